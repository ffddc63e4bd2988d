// `projects watch` as a script can trust it (issue 24, finding 7): distinct exit codes for ready
// (0), declined (4), stalled (5) and timed out (6), against a real server with a real stalled run:
// a customer-panel run launched by staff that no one answers. The 400 status reads "Survey in
// progress" while fielding (SPEC's modal for 400-499), not "Processing results".
import { afterAll, beforeAll, expect, test } from "bun:test";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { cliHarness, type CliHarness } from "../helpers/cli.ts";
import { createTestDb, type TestDb } from "../helpers/db.ts";
import { startServerProcess, type ServerProcess } from "../helpers/live.ts";

const T = 1003;
let tdb: TestDb;
let server: ServerProcess;
let uma: CliHarness;
let ada: CliHarness;
let sam: CliHarness;
const dir = mkdtempSync(join(tmpdir(), "ideally-watch-"));
const FILE = join(dir, "p.yaml");
let stalled = 0;

async function staff(method: string, path: string, body?: unknown): Promise<Record<string, unknown>> {
  const token = (sam.config().session as { accessToken: string }).accessToken;
  const res = await fetch(`${server.base}${path}`, {
    method,
    headers: { authorization: `Bearer ${token}`, "content-type": "application/json" },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  expect(res.status, `${method} ${path}: ${res.status}`).toBe(200);
  return (await res.json()) as Record<string, unknown>;
}

beforeAll(async () => {
  tdb = await createTestDb();
  await tdb.db`insert into credit_logs (client_id, type, credit_amount, description) values (${T}, 1, 100000, 'CLI watch top-up')`;
  server = await startServerProcess(tdb.url);
  [uma, ada, sam] = [cliHarness(server.base), cliHarness(server.base), cliHarness(server.base)];
  writeFileSync(FILE, "name: Nobody answers\ntype: Idea\nframework: idea-default\nregions: [NZ]\nsampleSize: 50\ntestOptions:\n  - text: A\n");
  await uma.json(["login", "--email", "user@acme.test", "--password-stdin"], { stdin: "Password123!" });
  await ada.json(["login", "--email", "admin@acme.test", "--password-stdin"], { stdin: "Password123!" });
  await sam.json(["login", "--email", "staff@ideally.test", "--password-stdin"], { stdin: "Password123!" });
  await uma.json(["clients", "use", String(T)]);
  await ada.json(["clients", "use", String(T)]);
  // A project fielded on the team's own (customer) panel: launched, Live, and no one answers.
  ({ id: stalled } = await uma.json<{ id: number }>(["projects", "create", "--from", FILE]));
  await tdb.db`update projects_regions set is_customer_panel = true where project_id = ${stalled}`;
  await uma.json(["projects", "submit", String(stalled), "--yes"]);
  await sam.json(["admin", "approve", String(stalled), "--to", "300"]);
  // Staff launch the run now (the server's fielding tick may have created it already: then launch that one).
  await staff("POST", "/api/v1/SurveyRuns/CreateDecipherSurveys", { projectId: stalled });
  const runs = (await staff("GET", `/api/v1/Projects(${stalled})/DecipherCompletesCounts`)) as { value: { surveyRunId: number; surveyStatusId: number }[] };
  expect(runs.value).toHaveLength(1);
  if (runs.value[0].surveyStatusId !== 50) await staff("POST", `/api/v1/SurveyRuns(${runs.value[0].surveyRunId})/LaunchSurvey`);
}, 180_000);
afterAll(async () => {
  for (const h of [uma, ada, sam]) h?.dispose();
  rmSync(dir, { recursive: true, force: true });
  await server?.stop();
  await tdb?.drop();
}, 30_000);

const lines = (out: string) =>
  out
    .trimEnd()
    .split("\n")
    .map((l) => JSON.parse(l) as { event: string; result?: string; data: { statusCode: number; phase: string } });

test("ready: a Complete project ends at once with exit 0", async () => {
  const r = await uma.run(["projects", "watch", "1001", "--json"]);
  expect(r.code, r.stderr).toBe(0);
  expect(lines(r.stdout).at(-1)).toMatchObject({ event: "Done", result: "ready", data: { statusCode: 900, phase: "ready" } });
}, 30_000);

test("stalled: no new completes for --stall seconds while fielding is exit 5", async () => {
  const started = Date.now();
  const r = await uma.run(["projects", "watch", String(stalled), "--json", "--stall", "3", "--interval", "1"]);
  const took = Date.now() - started;
  expect(r.code, r.stderr).toBe(5);
  const out = lines(r.stdout);
  expect(out[0]).toMatchObject({ event: "State", data: { statusCode: 400, phase: "fielding" } });
  expect(out.at(-1)).toMatchObject({ event: "Done", result: "stalled" });
  expect(r.stderr).toMatch(new RegExp(`^ideally: project ${stalled} stalled: 0 completes and none new for [3-9] s \\(--stall 3\\); the runs: \\d+ New Zealand 0/50 Live\\n$`));
  expect(took, "not before the stall time").toBeGreaterThanOrEqual(3000);
  // Just below the edge: a stall window longer than the timeout lets the timeout end it.
  const t = await uma.run(["projects", "watch", String(stalled), "--json", "--stall", "30", "--timeout", "2"]);
  expect(t.code, "timed out, not stalled").toBe(6);
  expect(lines(t.stdout).at(-1)).toMatchObject({ event: "Done", result: "timeout" });
  expect(t.stderr).toBe(`ideally: project ${stalled} is still 400 Survey in progress (fielding) after --timeout 2 s\n`);
}, 60_000);

test("piped, the 400 status reads Survey in progress while fielding", async () => {
  const r = await uma.run(["projects", "watch", String(stalled), "--timeout", "1"]);
  expect(r.code).toBe(6);
  // The run's field period (issue 21): when it closes, to the minute, from the server's fieldEndAt.
  const [run] = await tdb.db<
    { end: string }[]
  >`select to_char(r.field_end_at at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI"Z"') as end from survey_runs r join project_schedules s on s.survey_run_id = r.id where s.project_id = ${stalled} limit 1`;
  expect(r.stdout).toBe(`${r.stdout.slice(0, 8)} 400 Survey in progress (fielding): New Zealand 0/50 (closes ${run!.end})\n`);
  expect(r.stdout).toMatch(/^\d\d:\d\d:\d\d /);
}, 30_000);

test("declined: the project going back to Draft is exit 4", async () => {
  const { id } = await uma.json<{ id: number }>(["projects", "create", "--from", FILE]);
  await uma.json(["projects", "submit", String(id), "--yes"]);
  const watching = uma.run(["projects", "watch", String(id), "--json", "--interval", "1", "--timeout", "60"]);
  await Bun.sleep(2500);
  await ada.json(["admin", "decline", String(id), "--reason", "Not now", "--yes"]);
  const r = await watching;
  expect(r.code, r.stderr).toBe(4);
  expect(lines(r.stdout).at(-1)).toMatchObject({ event: "Done", result: "declined", data: { statusCode: 0 } });
  expect(r.stderr).toBe(`ideally: project ${id} went back to 0 Draft (declined or unsubmitted)\n`);
}, 60_000);

test("bad --timeout and --stall values are usage errors", async () => {
  for (const [flag, v] of [
    ["--timeout", "0"],
    ["--timeout", "soon"],
    ["--stall", "-1"],
    ["--interval", "0.1"],
  ]) {
    const r = await uma.run(["projects", "watch", String(stalled), flag, v]);
    expect(r.code, `${flag} ${v}`).toBe(1);
    expect(r.stderr).toStartWith(`ideally: ${flag}: expected seconds from `);
  }
});

test("stalled on the server: a run the fielding engine marked stalled ends the watch with exit 5, with no --stall", async () => {
  const [run] = await tdb.db<{ id: number }[]>`select distinct s.survey_run_id as id from project_schedules s where s.project_id = ${stalled} and s.survey_run_id is not null`;
  // The engine's mark: no complete for 24 hours with the quota open (docs/decisions.md "Field periods").
  await tdb.db`update survey_runs set stalled_at = now() - interval '1 hour' where id = ${run!.id}`;
  try {
    const started = Date.now();
    const r = await uma.run(["projects", "watch", String(stalled), "--json", "--timeout", "30"]);
    expect(r.code, r.stderr).toBe(5);
    expect(Date.now() - started, "at the first state, not at the timeout").toBeLessThan(25_000);
    expect(lines(r.stdout).at(-1)).toMatchObject({ event: "Done", result: "stalled" });
    expect(r.stderr).toMatch(
      new RegExp(
        `^ideally: project ${stalled} stalled: run ${run!.id} New Zealand 0/50 has had no complete for 24 hours \\(marked stalled at \\d{4}-\\d\\d-\\d\\dT\\d\\d:\\d\\dZ by the fielding engine\\); it closes at \\d{4}-\\d\\d-\\d\\dT\\d\\d:\\d\\dZ with the completes it has, or staff extend it\\n$`,
      ),
    );
  } finally {
    await tdb.db`update survey_runs set stalled_at = null where id = ${run!.id}`;
  }
  // Cleared (a complete or an extension): the watch goes on until its timeout.
  const t = await uma.run(["projects", "watch", String(stalled), "--json", "--timeout", "2"]);
  expect(t.code, t.stderr).toBe(6);
}, 90_000);
