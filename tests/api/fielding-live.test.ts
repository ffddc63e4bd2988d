// Fielding as a team watches it, against a real server process and a websocket: approval, the run
// launched (ProjectUpdated 400), N simulated completes raising ResponsesCount by exactly N with a
// live ResponsesReceived event, the run closing at its quota, processing, and the project's results
// (900, ProjectReady to a watcher).
import { afterAll, beforeAll, expect, test } from "bun:test";
import { createTestDb, type TestDb } from "../helpers/db.ts";
import { liveCall, liveSignIn, openSocket, startServerProcess, type ServerProcess } from "../helpers/live.ts";

let tdb: TestDb;
let server: ServerProcess;
const T = 1003;

beforeAll(async () => {
  tdb = await createTestDb();
  await tdb.db`insert into credit_logs (client_id, type, credit_amount, description) values (${T}, 1, 100000, 'Live top-up')`;
  server = await startServerProcess(tdb.url);
}, 120_000);
afterAll(async () => {
  await server?.stop();
  await tdb.drop();
});

const api = (token: string, clientId: number | null, method: string, path: string, body?: unknown) => liveCall(server.base, token, clientId, method, path, body);
const signIn = (email: string) => liveSignIn(server.base, email);

test("submit, approve, watch the responses arrive live, and open the results", async () => {
  const uma = await signIn("user@acme.test");
  const ada = await signIn("admin@acme.test");
  const sam = await signIn("staff@ideally.test");
  const sock = await openSocket(server.base, uma);
  const channel = await api(uma, T, "GET", `/api/v1/Clients(${T})/GetChannelInfo`);
  sock.send({ action: "join", channel: channel.body.name, token: channel.body.token });
  await sock.next((m) => m.event === "joined" && m.channel === `client-${T}`);

  const p = await api(uma, T, "POST", "/api/v1/Projects", { projectName: "Live fielding", projectTypeId: 1, frameworkId: 1000, regionIds: [1] });
  const id = p.body.id as number;
  for (const conceptText of ["Live A", "Live B"]) expect((await api(uma, T, "POST", "/api/v1/TestOptions", { projectId: id, conceptText })).status).toBe(201);
  // A customer panel: the fielding tick never answers it, so only this test's completes arrive.
  await tdb.db`update projects_regions set sample_size = 500, is_customer_panel = true where project_id = ${id}`;
  expect((await api(uma, T, "POST", `/api/v1/Projects(${id})/StartWatching`)).status).toBe(200);
  expect((await api(uma, T, "POST", `/api/v1/Projects(${id})/Submit`)).body.statusCode).toBe(50);
  expect((await api(ada, T, "POST", `/api/v1/Projects(${id})/Approve`)).body.statusCode).toBe(100);
  await api(sam, T, "POST", `/api/v1/Projects(${id})/Approve`);
  expect((await api(sam, T, "POST", `/api/v1/Projects(${id})/Approve`)).body.statusCode).toBe(300);

  // Staff launch the run now (the fielding tick would within a minute).
  const created = await api(sam, null, "POST", "/api/v1/SurveyRuns/CreateDecipherSurveys", { projectId: id });
  const runId = created.body.runs[0]?.surveyRunId as number | undefined;
  if (runId !== undefined) expect((await api(sam, null, "POST", `/api/v1/SurveyRuns(${runId})/LaunchSurvey`)).status).toBe(200);
  await sock.next((m) => m.event === "ProjectUpdated" && (m.data as { projectId: number; statusCode?: number }).projectId === id && (m.data as { statusCode?: number }).statusCode === 400);
  // The owner gets the customer-panel link to send.
  const link = await sock.next((m) => m.event === "CustomPanelProjectReadyForSurvey" && (m.data as { projectId?: number }).projectId === id);
  expect((link.data as { surveyUrl: string }).surveyUrl).toContain("/s/");
  const counts = await api(uma, T, "GET", `/api/v1/Projects(${id})/DecipherCompletesCounts`);
  const run = counts.body.value[0].surveyRunId as number;

  const before = await api(uma, T, "GET", `/api/v1/Projects(${id})/ResponsesCount`);
  const was = (before.body.value as { count: number }[]).reduce((a, r) => Math.max(a, r.count), 0);
  const sim = await api(sam, null, "POST", `/api/v1/SurveyRuns(${run})/RunSimulatedData`, { completes: 7 });
  expect(sim.status, JSON.stringify(sim.body)).toBe(200);
  await sock.next((m) => m.event === "ProjectUpdated" && (m.data as { action?: string; completes?: number }).action === "ResponsesReceived" && (m.data as { completes: number }).completes === was + 7);
  const progress = await sock.next((m) => m.event === "Progress" && (m.data as { message: string }).message.startsWith(`${was + 7} of 500 completes`));
  expect((progress.data as { jobId: string; pct: number }).jobId).toBe(`survey-run-${run}`);
  expect((progress.data as { pct: number }).pct).toBe(Math.round(((was + 7) / 500) * 100));
  const after = await api(uma, T, "GET", `/api/v1/Projects(${id})/ResponsesCount`);
  for (const row of after.body.value as { testOptionId: number; count: number }[]) {
    const prev = (before.body.value as { testOptionId: number; count: number }[]).find((r) => r.testOptionId === row.testOptionId)?.count ?? 0;
    expect(row.count - prev, "7 completes, 7 more respondents per concept").toBe(7);
  }

  // Staff close the run; processing opens the results.
  const closed = await api(sam, null, "POST", `/api/v1/SurveyRuns(${run})/ForceCloseSurvey`);
  expect(closed.body.surveyStatus).toBe("Closed");
  const processed = await api(sam, null, "POST", `/api/v1/SurveyRuns(${run})/StartSurveyProcessing`);
  expect(processed.body.projectStatusCode).toBe(900);
  await sock.next((m) => m.event === "ProjectReady" && (m.data as { projectId?: number }).projectId === id);
  const qual = await api(uma, T, "GET", `/api/v1/Responses/QualResults?projectId=${id}`);
  expect(qual.body.measures.length).toBeGreaterThan(3);
  sock.ws.close();
}, 60_000);
