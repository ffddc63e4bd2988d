// Issue 24: staff `admin runs list|close|extend` (SurveyRuns ForceCloseSurvey and ExtendFieldPeriod
// { fieldEndAt }) against a real server with a Live run on the team's own panel (nobody answers);
// a User is told plainly that these are staff's (exit 2). The database is read to check the effect.
// And `admin runs callbacks RUN [--resend ID]` (SupplierCallbacks and its Resend): the run is given
// a supplier's recorded outcomes here, one callback failed after its 8 attempts and one delivered.
// And `admin waves PROJECT [--supplier ID|none] [--region ID]` (docs/decisions/0145): a submitted
// project's wave given that supplier before approval; the run made from it is the supplier's.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fieldEnd } from "../../cli/src/commands/admin/runs.ts";
import { cliHarness, type CliHarness } from "../helpers/cli.ts";
import { createTestDb, type TestDb } from "../helpers/db.ts";
import { startServerProcess, type ServerProcess } from "../helpers/live.ts";

const T = 1003;
let tdb: TestDb;
let server: ServerProcess;
let uma: CliHarness;
let sam: CliHarness;
let project = 0;
let run = 0;
/** The run's supplier callbacks (rows written in beforeAll): two failed after 8 attempts (one is listed, one re-sent), and one delivered. */
let failedCallback = 0;
let resentCallback = 0;
let deliveredCallback = 0;
/** The supplier the callbacks are recorded for, chosen for a wave in `admin waves`. */
let supplier = 0;
const dir = mkdtempSync(join(tmpdir(), "ideally-runs-"));

async function staff(method: string, path: string, body?: unknown): Promise<Record<string, unknown>> {
  const token = (sam.config().session as { accessToken: string }).accessToken;
  const res = await fetch(`${server.base}${path}`, {
    method,
    headers: { authorization: `Bearer ${token}`, "content-type": "application/json" },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  expect(res.status, `${method} ${path}`).toBe(200);
  return (await res.json()) as Record<string, unknown>;
}

beforeAll(async () => {
  tdb = await createTestDb();
  await tdb.db`insert into credit_logs (client_id, type, credit_amount, description) values (${T}, 1, 100000, 'CLI runs top-up')`;
  server = await startServerProcess(tdb.url);
  [uma, sam] = [cliHarness(server.base), cliHarness(server.base)];
  writeFileSync(join(dir, "p.yaml"), "name: Runs by hand\ntype: Idea\nframework: idea-default\nregions: [NZ]\nsampleSize: 50\ntestOptions:\n  - text: A\n");
  await uma.json(["login", "--email", "user@acme.test", "--password-stdin"], { stdin: "Password123!" });
  await sam.json(["login", "--email", "staff@ideally.test", "--password-stdin"], { stdin: "Password123!" });
  ({ id: project } = await uma.json<{ id: number }>(["projects", "create", "--from", join(dir, "p.yaml")]));
  await tdb.db`update projects_regions set is_customer_panel = true where project_id = ${project}`;
  await uma.json(["projects", "submit", String(project), "--yes"]);
  await sam.json(["admin", "approve", String(project), "--to", "300"]);
  await staff("POST", "/api/v1/SurveyRuns/CreateDecipherSurveys", { projectId: project });
  const runs = (await staff("GET", `/api/v1/Projects(${project})/DecipherCompletesCounts`)) as { value: { surveyRunId: number; surveyStatusId: number }[] };
  run = runs.value[0].surveyRunId;
  if (runs.value[0].surveyStatusId !== 50) await staff("POST", `/api/v1/SurveyRuns(${run})/LaunchSurvey`);
  // A supplier whose callbacks go nowhere reachable (port 1): a re-sent one stays undelivered.
  const [sup] = await tdb.db<{ id: number }[]>`
    insert into sample_suppliers (name, complete_url, screen_out_url, over_quota_url, quality_terminate_url, callback_url)
    values ('CLI supplier', 'https://s.example/c?rid={rid}', 'https://s.example/s?rid={rid}', 'https://s.example/q?rid={rid}', 'https://s.example/t?rid={rid}',
            'http://127.0.0.1:1/s2s?rid={rid}&status={outcome}')
    returning id`;
  const [f] = await tdb.db<{ id: number }[]>`
    insert into supplier_outcomes (survey_run_id, sample_supplier_id, rid, outcome, callback_state, callback_attempts)
    values (${run}, ${sup!.id}, 'F1', 'complete', 'failed', 8) returning id::int as id`;
  const [d] = await tdb.db<{ id: number }[]>`
    insert into supplier_outcomes (survey_run_id, sample_supplier_id, rid, outcome, callback_state, callback_attempts, delivered_at)
    values (${run}, ${sup!.id}, 'D1', 'screen-out', 'delivered', 1, now()) returning id::int as id`;
  const [f2] = await tdb.db<{ id: number }[]>`
    insert into supplier_outcomes (survey_run_id, sample_supplier_id, rid, outcome, callback_state, callback_attempts)
    values (${run}, ${sup!.id}, 'F2', 'over-quota', 'failed', 8) returning id::int as id`;
  [failedCallback, deliveredCallback, resentCallback] = [f!.id, d!.id, f2!.id];
  supplier = sup!.id;
  for (const [id, rid] of [
    [failedCallback, "F1"],
    [resentCallback, "F2"],
  ] as const) {
    for (let a = 1; a <= 8; a++) {
      await tdb.db`insert into supplier_callback_attempts (supplier_outcome_id, attempt, url, started_at, http_status) values (${id}, ${a}, ${`http://127.0.0.1:1/s2s?rid=${rid}`}, now(), 503)`;
    }
  }
  await tdb.db`insert into supplier_callback_attempts (supplier_outcome_id, attempt, url, started_at, http_status) values (${deliveredCallback}, 1, 'http://127.0.0.1:1/s2s?rid=D1&status=screen-out', now(), 200)`;
}, 180_000);
afterAll(async () => {
  for (const h of [uma, sam]) h?.dispose();
  rmSync(dir, { recursive: true, force: true });
  await server?.stop();
  await tdb?.drop();
}, 30_000);

test("list names the project's run, Live, and its sample source (the team's own list: customer)", async () => {
  const rows = await sam.json<{ id: number; surveyStatusId: number; sampleSource: string }[]>(["admin", "runs", "list", String(project)]);
  expect(rows.map((r) => [r.id, r.surveyStatusId, r.sampleSource])).toEqual([[run, 50, "customer"]]);
  const text = await sam.run(["admin", "runs", "list", String(project)]);
  expect(text.stdout).toMatch(new RegExp(`\\n\\s*${run}\\s+New Zealand\\s+customer\\s+50 Live\\s+50\\s`));
});

test("a User may not extend or close: one line, exit 2, nothing changed", async () => {
  const ext = await uma.run(["admin", "runs", "extend", String(run), "--until", "+3d"]);
  expect([ext.code, ext.stdout, ext.stderr]).toEqual([2, "", `ideally: extend survey run ${run}: survey runs are closed and extended by provider staff; user@acme.test is not staff\n`]);
  const close = await uma.run(["admin", "runs", "close", String(run), "--yes"]);
  expect([close.code, close.stderr]).toEqual([2, `ideally: close survey run ${run}: survey runs are closed and extended by provider staff; user@acme.test is not staff\n`]);
  const [r] = await tdb.db<{ survey_status_id: number }[]>`select survey_status_id from survey_runs where id = ${run}`;
  expect(r.survey_status_id).toBe(50);
});

test("staff extend: the field end moves to --until", async () => {
  const before = Date.now();
  const s = await sam.json<{ fieldEndAt: string; fieldingState: string }>(["admin", "runs", "extend", String(run), "--until", "+3d"]);
  const [r] = await tdb.db<{ field_end_at: Date }[]>`select field_end_at from survey_runs where id = ${run}`;
  expect(new Date(s.fieldEndAt).getTime()).toBe(r.field_end_at.getTime());
  expect(r.field_end_at.getTime()).toBeGreaterThanOrEqual(before + 3 * 86_400_000);
  expect(r.field_end_at.getTime()).toBeLessThanOrEqual(Date.now() + 3 * 86_400_000);
  const exact = await sam.run(["admin", "runs", "extend", String(run), "--until", "2099-01-15T18:00:00+13:00"]);
  expect(exact.code, exact.stderr).toBe(0);
  const [r2] = await tdb.db<{ field_end_at: Date }[]>`select field_end_at from survey_runs where id = ${run}`;
  expect(r2.field_end_at.toISOString()).toBe("2099-01-15T05:00:00.000Z");
  expect(exact.stdout).toStartWith(`Survey run ${run} now closes at 2099-01-15T05:00:00`);
});

test("bad --until values and a past field end are usage errors (exit 1), before the server", async () => {
  for (const [until, message] of [
    ["tomorrow", "--until: expected a date (2026-12-01), a date-time with offset (2026-12-01T18:00:00Z) or +N days/hours (+3d, +12h), got 'tomorrow'"],
    ["2027-02-30", "--until: expected a date (2026-12-01), a date-time with offset (2026-12-01T18:00:00Z) or +N days/hours (+3d, +12h), got '2027-02-30'"],
    ["2027-01-01T10:00", "--until: expected a date (2026-12-01), a date-time with offset (2026-12-01T18:00:00Z) or +N days/hours (+3d, +12h), got '2027-01-01T10:00'"],
    ["2020-01-01", "--until: 2020-01-01T23:59:59.000Z has passed; the field end must be in the future (`admin runs close` ends a run now)"],
  ]) {
    const r = await sam.run(["admin", "runs", "extend", String(run), "--until", until]);
    expect([r.code, r.stderr], until).toEqual([1, `ideally: ${message}\n`]);
  }
  const none = await sam.run(["admin", "runs", "extend", String(run)]);
  expect(none.code).toBe(1);
});

test("staff close: without --yes off a terminal it is refused; with --yes the run is Closed by staff", async () => {
  const asked = await sam.run(["admin", "runs", "close", String(run)]);
  expect([asked.code, asked.stderr]).toEqual([1, `ideally: close survey run ${run}: add --yes to confirm (stdin is not a terminal, so there is no one to ask)\n`]);
  const s = await sam.json<{ surveyStatusId: number; closedReason: string; fieldingState: string }>(["admin", "runs", "close", String(run), "--yes"]);
  expect([s.surveyStatusId, s.closedReason, s.fieldingState]).toEqual([90, "staff", "closed"]);
  const [r] = await tdb.db<{ survey_status_id: number; closed_at: Date | null }[]>`select survey_status_id, closed_at from survey_runs where id = ${run}`;
  expect([r.survey_status_id, r.closed_at !== null]).toEqual([90, true]);
  const again = await sam.run(["admin", "runs", "close", String(run), "--yes"]);
  expect(again.code, "a closed run cannot be closed again").toBe(2);
  expect(again.stderr).toMatch(/^ideally: close survey run \d+: .*\(HTTP 409/);
});

describe("--until forms", () => {
  const now = Date.parse("2026-11-25T12:00:00Z");
  test("relative, a date (its end, UTC), a date-time with offset", () => {
    expect(fieldEnd("+3d", now)).toBe("2026-11-28T12:00:00.000Z");
    expect(fieldEnd("+12h", now)).toBe("2026-11-26T00:00:00.000Z");
    expect(fieldEnd("2026-12-01", now)).toBe("2026-12-01T23:59:59.000Z");
    expect(fieldEnd("2026-12-01T18:00:00+13:00", now)).toBe("2026-12-01T05:00:00.000Z");
    expect(() => fieldEnd("+3w", now)).toThrow("--until");
  });
});

describe("admin runs callbacks", () => {
  test("staff list the run's callbacks: state, series, attempts, the last answer; a hint names the re-send", async () => {
    const text = await sam.run(["admin", "runs", "callbacks", String(run)]);
    expect(text.code, text.stderr).toBe(0);
    expect(text.stdout).toMatch(new RegExp(`\\n\\s*${failedCallback}\\s+F1\\s+outcome\\s+complete\\s+failed\\s+1\\s+8\\s+HTTP 503\\s*\\n`));
    expect(text.stdout).toMatch(new RegExp(`\\n\\s*${deliveredCallback}\\s+D1\\s+outcome\\s+screen-out\\s+delivered\\s+1\\s+1\\s+HTTP 200\\s*(\\n|$)`));
    // F2 is failed too unless the re-send test ran first.
    expect(text.stderr).toMatch(new RegExp(`^[12] failed: send one again with \`ideally admin runs callbacks ${run} --resend ${failedCallback}\`\\n$`));
    const rows = await sam.json<{ id: number; rid: string; state: string }[]>(["admin", "runs", "callbacks", String(run)]);
    expect(rows.filter((c) => c.rid !== "F2").map((c) => [c.id, c.state])).toEqual([
      [failedCallback, "failed"],
      [deliveredCallback, "delivered"],
    ]);
  });

  test("--resend: the failed callback is pending again in series 2 with its 8 attempts kept; a delivered one is refused (exit 2, HTTP 409)", async () => {
    const r = await sam.run(["admin", "runs", "callbacks", String(run), "--resend", String(resentCallback)]);
    expect([r.code, r.stdout], r.stderr).toEqual([0, `Callback ${resentCallback} (rid F2, over-quota) is pending again: series 2, sent now; its 8 earlier attempts are kept\n`]);
    const [o] = await tdb.db<{ series: number; from: number }[]>`select callback_series as series, callback_series_from as "from" from supplier_outcomes where id = ${resentCallback}`;
    expect(o).toEqual({ series: 2, from: 8 });
    const again = await sam.run(["admin", "runs", "callbacks", String(run), "--resend", String(deliveredCallback)]);
    expect(again.code).toBe(2);
    expect(again.stderr).toMatch(new RegExp(`^ideally: send callback ${deliveredCallback} of survey run ${run} again: .*delivered.*\\(HTTP 409`));
  });

  test("a User is told these are staff's (exit 2); a callback id that is not a number is a usage error (exit 1)", async () => {
    const list = await uma.run(["admin", "runs", "callbacks", String(run)]);
    expect([list.code, list.stderr]).toEqual([2, `ideally: list survey run ${run}'s supplier callbacks: supplier callbacks are read and sent again by provider staff; user@acme.test is not staff\n`]);
    const resend = await uma.run(["admin", "runs", "callbacks", String(run), "--resend", String(failedCallback)]);
    expect([resend.code, resend.stderr]).toEqual([
      2,
      `ideally: send callback ${failedCallback} of survey run ${run} again: supplier callbacks are read and sent again by provider staff; user@acme.test is not staff\n`,
    ]);
    const bad = await sam.run(["admin", "runs", "callbacks", String(run), "--resend", "x1"]);
    expect([bad.code, bad.stderr]).toEqual([1, "ideally: expected a callback id (the id column of `ideally admin runs callbacks RUN`), got 'x1'\n"]);
  });
});

describe("admin waves", () => {
  test("staff list a submitted project's wave and give it a supplier before approval; the run made from it is the supplier's; a run's wave is refused", async () => {
    writeFileSync(join(dir, "w.yaml"), "name: Waves by hand\ntype: Idea\nframework: idea-default\nregions: [NZ]\nsampleSize: 50\ntestOptions:\n  - text: A\n");
    const { id } = await uma.json<{ id: number }>(["projects", "create", "--from", join(dir, "w.yaml")]);
    await uma.json(["projects", "submit", String(id), "--yes"]);
    const before = await sam.run(["admin", "waves", String(id)]);
    expect(before.code, before.stderr).toBe(0);
    expect(before.stdout).toMatch(/\n\s*1\s+\d+\s+New Zealand\s+\d{4}-\d{2}-\d{2}\s+simulated panel\s+(Scheduled|ReadyToLaunch)\s*\n$/);

    const set = await sam.run(["admin", "waves", String(id), "--supplier", String(supplier), "--region", "1"]);
    expect([set.code, set.stderr]).toEqual([0, `1 wave of project ${id} now fielded by supplier ${supplier}; the runs made from them carry it\n`]);
    expect(set.stdout).toMatch(new RegExp(`\\n\\s*1\\s+\\d+\\s+New Zealand\\s+\\S+\\s+supplier ${supplier} \\(CLI supplier\\)\\s+\\S+\\s*\\n$`));
    const waves = await sam.json<{ sampleSupplierId: number | null; surveyRunId: number | null }[]>(["admin", "waves", String(id)]);
    expect(waves.map((w) => [w.sampleSupplierId, w.surveyRunId])).toEqual([[supplier, null]]);

    await sam.json(["admin", "approve", String(id), "--to", "300"]);
    await staff("POST", "/api/v1/SurveyRuns/CreateDecipherSurveys", { projectId: id });
    const runs = await sam.json<{ sampleSource: string }[]>(["admin", "runs", "list", String(id)]);
    expect(runs.map((r) => r.sampleSource)).toEqual(["supplier"]);
    const late = await sam.run(["admin", "waves", String(id), "--supplier", "none"]);
    expect([late.code, late.stderr]).toEqual([2, `ideally: Project ${id} has no wave without a run: a run's suppliers are set on the run (\`ideally admin runs allocations RUN --set ID=100\`)\n`]);
  });

  test("a User may not set a wave's sample (exit 2, one line); bad values are usage errors (exit 1), before the server", async () => {
    writeFileSync(join(dir, "u.yaml"), "name: Waves by a user\ntype: Idea\nframework: idea-default\nregions: [NZ]\nsampleSize: 50\ntestOptions:\n  - text: A\n");
    const { id } = await uma.json<{ id: number }>(["projects", "create", "--from", join(dir, "u.yaml")]);
    await uma.json(["projects", "submit", String(id), "--yes"]);
    const user = await uma.run(["admin", "waves", String(id), "--supplier", String(supplier)]);
    expect([user.code, user.stderr]).toEqual([2, `ideally: set the sample of project ${id}'s waves: a wave's sample is chosen by provider staff; user@acme.test is not staff\n`]);
    const list = await uma.run(["admin", "waves", String(id)]);
    expect([list.code, list.stderr]).toEqual([2, `ideally: list project ${id}'s waves: a wave's sample is chosen by provider staff; user@acme.test is not staff\n`]);
    const [w] = await tdb.db<{ supplier: number | null }[]>`select sample_supplier_id as supplier from project_schedules where project_id = ${id}`;
    expect(w!.supplier, "nothing changed").toBeNull();
    for (const [args, message] of [
      [["--supplier", "x3"], "expected a supplier id (`ideally api /api/v1/SampleSuppliers`) or none, got 'x3'"],
      [["--region", "1"], "--region chooses the market whose waves --supplier sets; give --supplier too"],
      [["--supplier", "3", "--region", "NZ"], "expected a region id, got 'NZ'"],
    ] as const) {
      const r = await sam.run(["admin", "waves", String(project), ...args]);
      expect([r.code, r.stderr], args.join(" ")).toEqual([1, `ideally: ${message}\n`]);
    }
  });
});

describe("admin runs allocations", () => {
  test("staff give a run two suppliers 60/40 and read their caps; a User is refused (exit 2); a bad --set is a usage error (exit 1)", async () => {
    writeFileSync(join(dir, "a.yaml"), "name: Allocated by hand\ntype: Idea\nframework: idea-default\nregions: [NZ]\nsampleSize: 50\ntestOptions:\n  - text: A\n");
    const { id } = await uma.json<{ id: number }>(["projects", "create", "--from", join(dir, "a.yaml")]);
    await uma.json(["projects", "submit", String(id), "--yes"]);
    // A supplier run from birth (the wave's supplier), so the simulated panel never answers it.
    await sam.json(["admin", "waves", String(id), "--supplier", String(supplier)]);
    await sam.json(["admin", "approve", String(id), "--to", "300"]);
    const made = (await staff("POST", "/api/v1/SurveyRuns/CreateDecipherSurveys", { projectId: id })) as { runs: { surveyRunId: number }[] };
    const runs = await sam.json<{ id: number }[]>(["admin", "runs", "list", String(id)]);
    const runId = made.runs[0]?.surveyRunId ?? runs[0]!.id;
    const [second] = await tdb.db<{ id: number }[]>`
      insert into sample_suppliers (name, complete_url, screen_out_url, over_quota_url, quality_terminate_url)
      values ('Second supplier', 'https://t.example/c?rid={rid}', 'https://t.example/s?rid={rid}', 'https://t.example/q?rid={rid}', 'https://t.example/t?rid={rid}') returning id`;

    const none = await sam.run(["admin", "runs", "allocations", String(runId)]);
    expect([none.code, none.stdout]).toEqual([0, `Survey run ${runId} has no allocations: it takes its one supplier's respondents (if any) up to its quota\n`]);
    const set = await sam.run(["admin", "runs", "allocations", String(runId), "--set", `${supplier}=60`, "--set", `${second!.id}=40`]);
    expect(set.code, set.stderr).toBe(0);
    // 60% and 40% of 50 completes: caps 30 and 20.
    expect(set.stdout).toMatch(new RegExp(`\\n\\s*${supplier}\\s+CLI supplier\\s+60%\\s+30\\s+0\\s+0\\s*\\n\\s*${second!.id}\\s+Second supplier\\s+40%\\s+20\\s+0\\s+0\\s*\\n$`));
    const rows = await sam.json<{ sampleSupplierId: number; cap: number }[]>(["admin", "runs", "allocations", String(runId)]);
    expect(rows.map((r) => [r.sampleSupplierId, r.cap])).toEqual([
      [supplier, 30],
      [second!.id, 20],
    ]);

    const user = await uma.run(["admin", "runs", "allocations", String(runId), "--set", `${supplier}=100`]);
    expect([user.code, user.stderr]).toEqual([2, `ideally: set survey run ${runId}'s allocations: a run's suppliers are chosen by provider staff; user@acme.test is not staff\n`]);
    const bad = await sam.run(["admin", "runs", "allocations", String(runId), "--set", "3:60"]);
    expect([bad.code, bad.stderr]).toEqual([1, "ideally: --set: expected SUPPLIER=SHARE (a supplier's id and its percent, e.g. 3=60 or 4=39.5), got '3:60'\n"]);
    const sum = await sam.run(["admin", "runs", "allocations", String(runId), "--set", `${supplier}=60`]);
    expect([sum.code, sum.stderr]).toEqual([2, `ideally: set survey run ${runId}'s allocations: The run's allocations: allocations The shares sum to 60.00%, not 100% (HTTP 400 ValidationError)\n`]);
  });
});
