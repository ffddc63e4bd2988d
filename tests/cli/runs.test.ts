// Issue 24: staff `admin runs list|close|extend` (SurveyRuns ForceCloseSurvey and ExtendFieldPeriod
// { fieldEndAt }) against a real server with a Live run on the team's own panel (nobody answers);
// a User is told plainly that these are staff's (exit 2). The database is read to check the effect.
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
const dir = mkdtempSync(join(tmpdir(), "ideally-runs-"));

async function staff(method: string, path: string, body?: unknown): Promise<Record<string, unknown>> {
  const token = (sam.config().session as { accessToken: string }).accessToken;
  const res = await fetch(`${server.base}${path}`, { method, headers: { authorization: `Bearer ${token}`, "content-type": "application/json" }, body: body === undefined ? undefined : JSON.stringify(body) });
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
