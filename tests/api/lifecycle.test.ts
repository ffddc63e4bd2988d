// The project lifecycle: the transition table cell by cell (every action from every status,
// against the API, expected outcomes from tests/fixtures/lifecycle.json; the code's table itself
// is checked against the fixture in lifecycle-table.test.ts), notifications and
// realtime events, the audit log, Duplicate, Move, AdminEdit, incidence, and who may act.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { createTestDb, type TestDb } from "../helpers/db.ts";
import { call, testApp } from "../helpers/app.ts";
import type { App } from "../../api/src/app.ts";
import { subscribe, type NotifiedEvent } from "../../api/src/jobs/channel.ts";
import { ACTIONS, type Action } from "../../api/src/domains/lifecycle/transitions.ts";
import { expected, FX_STATUS, fxAllowed, fxName } from "../helpers/lifecycle-fixture.ts";

let tdb: TestDb;
let app: App;
const events: NotifiedEvent[] = [];
let unsubscribe: () => Promise<void>;

beforeAll(async () => {
  tdb = await createTestDb();
  app = testApp(tdb.db);
  unsubscribe = await subscribe(tdb.url, (e) => events.push(e));
  // Acme Team A can afford every charge the cell tests make.
  await tdb.db`insert into credit_logs (client_id, type, credit_amount, description) values (1003, 1, 1000000, 'Test top-up')`;
});
afterAll(async () => {
  await unsubscribe?.();
  await tdb.drop();
});

interface Made {
  id: number;
  runId: number;
}

let seq = 0;
/**
 * A project of Acme Team A in `status` (written as the owner, outside the API): one region (NZ,
 * 100 completes), one test option, and one schedule on a survey run (wave 1, charged and settled
 * like a run that happened), so every action has what it needs.
 */
async function makeProject(status: number, opts: { clientId?: number; regions?: [number, number, boolean?][]; onRun?: boolean } = {}): Promise<Made> {
  const sql = tdb.db;
  const clientId = opts.clientId ?? 1003;
  const [p] = await sql<{ id: number }[]>`
    insert into projects (client_id, project_name, project_type_id, status_code, framework_id, owner_user_id, created_by_user_id)
    values (${clientId}, ${`Lifecycle test ${++seq}`}, 1, ${status}, 1000, 9004, 9004) returning id`;
  const id = p!.id;
  for (const [regionId, sampleSize, customer] of opts.regions ?? [[1, 100]]) {
    await sql`insert into projects_regions (client_id, project_id, region_id, sample_size, is_customer_panel)
              values (${clientId}, ${id}, ${regionId}, ${sampleSize}, ${customer ?? false})`;
  }
  await sql`insert into test_options (client_id, project_id, concept_text) values (${clientId}, ${id}, 'Concept')`;
  let runId = 0;
  if (opts.onRun ?? true) {
    const [r] = await sql<{ id: number }[]>`
      insert into survey_runs (client_id, region_id, survey_status_id, schedule_date, target_completes)
      values (${clientId}, 1, 50, current_date, 100) returning id`;
    runId = r!.id;
    const [l] = await sql<{ id: number }[]>`
      insert into credit_logs (client_id, type, credit_amount, project_id, survey_run_id, description, created_by_user_id)
      values (${clientId}, 40, -100, ${id}, ${runId}, 'Wave 1', 5380) returning id`;
    await sql`insert into project_schedules (client_id, project_id, region_id, survey_run_id, schedule_date, credit_log_id, wave_number, sample_size)
              values (${clientId}, ${id}, 1, ${runId}, current_date, ${l!.id}, 1, 100)`;
  }
  return { id, runId };
}

async function statusOf(id: number): Promise<{ status: number; clientId: number }> {
  const [r] = await tdb.db<{ status: number; clientId: number }[]>`select status_code as status, client_id as "clientId" from projects where id = ${id}`;
  return r!;
}

/** A valid body for each action (so a refusal is the table's, never the body's). */
function bodyFor(a: Action, status: number, made: Made): unknown {
  switch (a) {
    case "Decline":
      return { reason: "Not this quarter" };
    case "Move":
      return { clientId: 1004 };
    case "AdminEdit":
      return { statusCode: status === 0 ? 50 : 0, note: "cell test" };
    case "UpdateProjectOwner":
      return { userId: 9003 };
    case "UpdateGroupTags":
      return { tagIds: [1002] };
    case "RemoveFromSurveyRun":
      return { surveyRunId: made.runId };
    default:
      return {};
  }
}

async function waitFor<T>(find: () => T | undefined, what: string, ms = 4000): Promise<T> {
  const until = Date.now() + ms;
  for (;;) {
    const x = find();
    if (x !== undefined) return x;
    if (Date.now() > until) throw new Error(`timed out waiting for ${what}`);
    await Bun.sleep(20);
  }
}

describe("the transition table", () => {
  for (const a of ACTIONS) {
    describe(a, () => {
      for (const s of FX_STATUS) {
        const cell = expected(a, s);
        test(`from ${s}: ${cell.to === null ? "409" : Array.isArray(cell.to) ? `→ ${cell.to.join("|")}` : cell.to}`, async () => {
          // Move refuses a project with ledger rows: its Draft has none.
          const made = await makeProject(s, { onRun: a !== "Move" });
          const res = await call(app, "staff", 1003, "POST", `/api/v1/Projects(${made.id})/${a}`, bodyFor(a, s, made));
          if (cell.to === null) {
            expect(res.status, `${a} from ${s} is refused: ${JSON.stringify(res.body)}`).toBe(409);
            expect(res.body.message).toBe(`Cannot ${a} project ${made.id}: it is ${s} ${fxName(s)}. Allowed from ${fxName(s)}: ${fxAllowed(s).join(", ") || "none"}.`);
            expect((await statusOf(made.id)).status, "a refusal changes nothing").toBe(s);
            return;
          }
          expect(res.status, `${a} from ${s} is allowed: ${JSON.stringify(res.body)}`).toBe(200);
          const after = await statusOf(made.id);
          if (cell.to === "stays") expect(after.status).toBe(s);
          else if (Array.isArray(cell.to)) expect(cell.to, `${a} from ${s} ends in one of the expected statuses`).toContain(after.status);
          else expect(after.status, "AdminEdit set the status asked for").toBe(s === 0 ? 50 : 0);
          if (res.body.statusCode !== undefined && a !== "Duplicate") expect(res.body.statusCode).toBe(after.status);
          if (a === "Duplicate") expect((await statusOf(res.body.id)).status, "the copy is a Draft").toBe(0);
          if (a === "Move") expect(after.clientId).toBe(1004);
        });
      }
    });
  }

  // The staff-only steps of actions whose route admits a team Admin: the Admin gets 403, nothing changes.
  const staffSteps = (["Approve", "Decline"] as const).flatMap((a) => FX_STATUS.filter((s) => expected(a, s).staffOnly).map((s) => [a, s] as const));
  test.each(staffSteps)("%s from %d is a staff step: the team's Admin gets 403", async (a, s) => {
    const made = await makeProject(s);
    const res = await call(app, "acmeAdmin", 1003, "POST", `/api/v1/Projects(${made.id})/${a}`, bodyFor(a, s, made));
    expect(res.status, JSON.stringify(res.body)).toBe(403);
    expect((await statusOf(made.id)).status).toBe(s);
  });
});

describe("submission, approval and their notifications", () => {
  test("a User's Submit waits for approval: Admins and staff are notified, events arrive", async () => {
    const { id } = await makeProject(0, { onRun: false });
    const res = await call(app, "acmeUser", 1003, "POST", `/api/v1/Projects(${id})/Submit`);
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body).toMatchObject({ projectId: id, previousStatusCode: 0, statusCode: 50, status: "Awaiting Approval" });
    expect(res.body.allowedActions).toContain("Approve");

    const notes = await tdb.db<{ userId: number; typeId: number; url: string }[]>`
      select user_id as "userId", notification_type_id as "typeId", url from notifications where project_id = ${id} order by user_id`;
    expect(
      notes.map((n) => n.userId),
      "the team's Admin (9003) and staff (9001, 9002); not the submitter, not the services user",
    ).toEqual([9001, 9002, 9003]);
    expect(notes.every((n) => n.typeId === 1)).toBe(true);
    expect(notes.find((n) => n.userId === 9003)!.url).toBe(`/1003/projects/${id}/review`);
    expect(notes.find((n) => n.userId === 9001)!.url).toBe("/admin/approvals");

    const note = await waitFor(
      () => events.find((e) => e.channel === "user-9003" && e.event === "SurveySubmittedForApproval" && (e.data as { projectId: number }).projectId === id),
      "SurveySubmittedForApproval on user-9003",
    );
    expect((note.data as { notificationId: number }).notificationId).toBeGreaterThan(0);
    await waitFor(
      () =>
        events.find(
          (e) =>
            e.channel === "client-1003" &&
            e.event === "ProjectUpdated" &&
            (e.data as { projectId: number; statusCode: number }).projectId === id &&
            (e.data as { statusCode: number }).statusCode === 50,
        ),
      "ProjectUpdated on client-1003",
    );

    const log = await tdb.db<{ event: string; userId: number; data: Record<string, unknown> }[]>`
      select event, user_id as "userId", data from data_events_log where entity_type = 'Project' and entity_id = ${id} order by id`;
    expect(log.map((l) => l.event)).toEqual(["SubmittedForSurvey", "StatusChanged"]);
    expect(
      log.every((l) => l.userId === 9004),
      "the actor is the user",
    ).toBe(true);
    expect(log[1]!.data).toMatchObject({ from: 0, to: 50, action: "Submit" });

    // The Admin approves: the submitter hears of it.
    const ok = await call(app, "acmeAdmin", 1003, "POST", `/api/v1/Projects(${id})/Approve`);
    expect(ok.status, JSON.stringify(ok.body)).toBe(200);
    expect(ok.body.statusCode).toBe(100);
    const [approved] = await tdb.db<{ userId: number }[]>`
      select user_id as "userId" from notifications where project_id = ${id} and notification_type_id = 2`;
    expect(approved?.userId, "SurveyApproved goes to the submitter").toBe(9004);
    await waitFor(() => events.find((e) => e.channel === "user-9004" && e.event === "SurveyApproved" && (e.data as { projectId: number }).projectId === id), "SurveyApproved on user-9004");
  });

  test("an Admin's Submit goes straight to Submitted, unless a client above requires approval", async () => {
    const a = await makeProject(0, { onRun: false });
    const direct = await call(app, "acmeAdmin", 1003, "POST", `/api/v1/Projects(${a.id})/Submit`);
    expect(direct.body.statusCode).toBe(100);
    const [n] = await tdb.db<{ n: number }[]>`select count(*)::int as n from notifications where project_id = ${a.id}`;
    expect(n!.n, "no approval request").toBe(0);

    await tdb.db`update clients set requires_project_approval = true where id = 1001`;
    try {
      const b = await makeProject(0, { onRun: false });
      const viaApproval = await call(app, "acmeAdmin", 1003, "POST", `/api/v1/Projects(${b.id})/Submit`);
      expect(viaApproval.body.statusCode, "the enterprise requires approval for its teams").toBe(50);
    } finally {
      await tdb.db`update clients set requires_project_approval = false where id = 1001`;
    }
  });

  test("Decline takes the project back to Draft with a refund, and tells the submitter why", async () => {
    const { id } = await makeProject(0, { onRun: false });
    const sub = await call(app, "acmeUser", 1003, "POST", `/api/v1/Projects(${id})/Submit`);
    expect(sub.body.charged).toBeGreaterThan(0);
    const res = await call(app, "acmeAdmin", 1003, "POST", `/api/v1/Projects(${id})/Decline`, { reason: "Too many test options" });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body).toMatchObject({ statusCode: 0, refunded: sub.body.charged });
    const [net] = await tdb.db<{ n: number }[]>`select coalesce(sum(credit_amount), 0)::float8 as n from credit_logs where project_id = ${id}`;
    expect(net!.n, "charge and refund net to zero").toBe(0);
    const [note] = await tdb.db<{ userId: number; body: string }[]>`
      select user_id as "userId", body from notifications where project_id = ${id} and notification_type_id = 3`;
    expect(note?.userId).toBe(9004);
    expect(note?.body).toContain("Too many test options");
    await waitFor(() => events.find((e) => e.channel === "user-9004" && e.event === "SurveyApprovalDeclined" && (e.data as { projectId: number }).projectId === id), "SurveyApprovalDeclined");
    const [sched] = await tdb.db<{ n: number }[]>`select count(*)::int as n from project_schedules where project_id = ${id}`;
    expect(sched!.n, "the cancelled waves are gone").toBe(0);
  });

  test("one transaction: when a late step fails, nothing of the action stays or is published", async () => {
    const { id } = await makeProject(0, { onRun: false });
    // Fault injection: the approval notifications (written after the status change, the charge and
    // the ProjectUpdated event) fail for this project.
    await tdb.db.unsafe(`
      create or replace function test_fail_notification() returns trigger language plpgsql as $$
      begin
        if new.project_id = ${id} then raise exception 'injected failure'; end if;
        return new;
      end $$;
      create trigger test_fail_notification before insert on notifications for each row execute function test_fail_notification();`);
    try {
      const before = events.length;
      const balance = (await tdb.db<{ b: number }[]>`select sum(credit_amount)::float8 as b from credit_logs where client_id = 1003`)[0]!.b;
      const res = await call(app, "acmeUser", 1003, "POST", `/api/v1/Projects(${id})/Submit`);
      expect(res.status).toBe(500);
      await Bun.sleep(300);
      expect(
        events.slice(before).filter((e) => (e.data as { projectId?: number })?.projectId === id),
        "ProjectUpdated was never sent",
      ).toEqual([]);
      expect((await statusOf(id)).status).toBe(0);
      const [after] = await tdb.db<{ b: number }[]>`select sum(credit_amount)::float8 as b from credit_logs where client_id = 1003`;
      expect(after!.b, "no charge").toBe(balance);
      const [log] = await tdb.db<{ n: number }[]>`select count(*)::int as n from data_events_log where entity_id = ${id}`;
      expect(log!.n, "no log row").toBe(0);
    } finally {
      await tdb.db.unsafe("drop trigger test_fail_notification on notifications; drop function test_fail_notification()");
    }
  });

  test("a project without regions cannot be submitted", async () => {
    const { id } = await makeProject(0, { onRun: false, regions: [] });
    const res = await call(app, "acmeAdmin", 1003, "POST", `/api/v1/Projects(${id})/Submit`);
    // The pre-launch check refuses it as a field error before the ledger is asked (readiness.ts).
    expect(res.status).toBe(400);
    expect(res.body.errors).toEqual([{ path: "regions", message: "Choose at least one market." }]);
  });

  test("CloseProjectSurvey settles the run's charges and logs ResultsReady; 800 while waves remain", async () => {
    const { id } = await makeProject(400);
    await tdb.db`update credit_logs set type = 30, survey_run_id = null where project_id = ${id}`;
    await tdb.db`insert into project_schedules (client_id, project_id, region_id, schedule_date, wave_number, sample_size, schedule_type_id)
                 values (1003, ${id}, 1, current_date + 28, 2, 100, 10)`;
    const res = await call(app, "ops", 1003, "POST", `/api/v1/Projects(${id})/CloseProjectSurvey`);
    expect(res.body.statusCode, "a later wave remains").toBe(800);
    const types = await tdb.db<{ type: number }[]>`select type from credit_logs where project_id = ${id}`;
    expect(
      types.map((t) => t.type),
      "pending charge of the run became a spend",
    ).toEqual([40]);
    const [ev] = await tdb.db<{ event: string; userId: number }[]>`
      select event, user_id as "userId" from data_events_log where entity_id = ${id} and event = 'ResultsReady'`;
    expect(ev?.userId).toBe(9002);
    const stop = await call(app, "acmeUser", 1003, "POST", `/api/v1/Projects(${id})/StopProjectScheduling`);
    expect(stop.body.statusCode, "no more waves: complete").toBe(900);
  });
});

describe("who may act", () => {
  test("Globex cannot act on Acme's projects, not even the one shared with it", async () => {
    const { id } = await makeProject(0, { onRun: false });
    const r1 = await call(app, "globexAdmin", 2001, "POST", `/api/v1/Projects(${id})/Submit`);
    expect(r1.status).toBe(404);
    const shared = await call(app, "globexAdmin", 2001, "POST", "/api/v1/Projects(1001)/Duplicate", {});
    expect(shared.status, "a share lets Globex read project 1001, never act on it").toBe(404);
    const cost = await call(app, "globexAdmin", 2001, "GET", "/api/v1/Projects(1001)/CreditCostNow");
    expect(cost.status, "nor read what it costs Acme").toBe(404);
    const named = await call(app, "globexAdmin", 1003, "POST", `/api/v1/Projects(${id})/Submit`);
    expect(named.status, "naming Acme's client is refused").toBe(403);
    expect((await statusOf(id)).status).toBe(0);
  });

  test("a Viewer cannot submit; a User cannot approve; ops cannot SuperApprove", async () => {
    const { id } = await makeProject(0, { onRun: false });
    expect((await call(app, "acmeViewer", 1003, "POST", `/api/v1/Projects(${id})/Submit`)).status).toBe(403);
    const p50 = await makeProject(50, { onRun: false });
    expect((await call(app, "acmeUser", 1003, "POST", `/api/v1/Projects(${p50.id})/Approve`)).status).toBe(403);
    expect((await call(app, "ops", 1003, "POST", `/api/v1/Projects(${p50.id})/SuperApprove`)).status).toBe(403);
    expect((await call(app, "staff", 1003, "POST", `/api/v1/Projects(${p50.id})/SuperApprove`)).body.statusCode).toBe(300);
  });

  test("a client Admin cannot take staff steps: Approve at 100, Decline at 200", async () => {
    const p100 = await makeProject(100, { onRun: false });
    const a = await call(app, "acmeAdmin", 1003, "POST", `/api/v1/Projects(${p100.id})/Approve`);
    expect(a.status).toBe(403);
    expect(a.body.message).toContain("only Ideally staff");
    const p200 = await makeProject(200, { onRun: false });
    expect((await call(app, "acmeAdmin", 1003, "POST", `/api/v1/Projects(${p200.id})/Decline`, { reason: "x" })).status).toBe(403);
    expect((await call(app, "ops", 1003, "POST", `/api/v1/Projects(${p100.id})/Approve`)).body.statusCode).toBe(200);
  });
});

describe("MarkAsDemo", () => {
  test("staff mark a finished project (800 or 900) as a demo; 403 for the team's Admin, 404 for no project, 409 from 400", async () => {
    const done = await makeProject(900);
    expect((await call(app, "acmeAdmin", 1003, "POST", `/api/v1/Projects(${done.id})/MarkAsDemo`)).status).toBe(403);
    expect((await statusOf(done.id)).status).toBe(900);
    expect((await call(app, "staff", 1003, "POST", "/api/v1/Projects(99999999)/MarkAsDemo")).status).toBe(404);
    const running = await makeProject(400);
    const refused = await call(app, "staff", 1003, "POST", `/api/v1/Projects(${running.id})/MarkAsDemo`);
    expect(refused.status).toBe(409);
    expect(refused.body.message).toBe(`Cannot MarkAsDemo project ${running.id}: it is 400 Processing results. Allowed from Processing results: ${fxAllowed(400).join(", ")}.`);
    expect(refused.body.message).not.toContain("MarkAsDemo, ");
    const ok = await call(app, "staff", 1003, "POST", `/api/v1/Projects(${done.id})/MarkAsDemo`);
    expect(ok.status).toBe(200);
    expect((await statusOf(done.id)).status).toBe(950);
    // A demo is not marked again.
    expect((await call(app, "staff", 1003, "POST", `/api/v1/Projects(${done.id})/MarkAsDemo`)).status).toBe(409);
  });
});

describe("the other actions", () => {
  test("Duplicate copies the project, its questions, options, test options, targets and objectives as a Draft", async () => {
    const res = await call(app, "acmeUser", 1003, "POST", "/api/v1/Projects(1001)/Duplicate", {});
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body).toMatchObject({ projectName: "Snack bar ideas (copy)", statusCode: 0, clientId: 1003, duplicatedFromProjectId: 1001 });
    const id = res.body.id as number;
    const count = async (table: string, where = "") => (await tdb.db.unsafe(`select count(*)::int as n from ${table} where project_id = $1 ${where}`, [id]))[0]!.n as number;
    expect(await count("projects_regions")).toBe(2);
    expect(await count("test_options"), "the trashed test option is left behind").toBe(2);
    expect(await count("questions"), "the trashed question is left behind").toBe(4);
    expect(await count("question_options")).toBe(10);
    expect(await count("project_questions")).toBe(4);
    expect(await count("project_objectives")).toBe(2);
    expect(await count("targets")).toBe(2);
    expect(await count("project_price_sensitivities")).toBe(1);
    expect(await count("project_market_reach")).toBe(1);
    expect(await count("project_schedules"), "nothing of a run").toBe(0);
    // References point at the copies.
    const [stray] = await tdb.db<{ n: number }[]>`
      select count(*)::int as n from question_options o join questions q on q.id = o.question_id
      where o.project_id = ${id} and q.project_id is distinct from ${id}`;
    expect(stray!.n, "every copied option belongs to a copied question").toBe(0);
    const [strayPq] = await tdb.db<{ n: number }[]>`
      select count(*)::int as n from project_questions pq join questions q on q.id = pq.question_id
      where pq.project_id = ${id} and q.project_id is distinct from ${id}`;
    expect(strayPq!.n, "every copied project question asks a copied question").toBe(0);
    const [t] = await tdb.db<{ questionId: number; optionId: number }[]>`
      select question_id as "questionId", question_option_id as "optionId" from targets where project_id = ${id} and question_id is not null`;
    const [q] = await tdb.db<{ projectId: number }[]>`select project_id as "projectId" from questions where id = ${t!.questionId}`;
    const [o] = await tdb.db<{ projectId: number }[]>`select project_id as "projectId" from question_options where id = ${t!.optionId}`;
    expect([q!.projectId, o!.projectId], "the screener target names the copied question and option").toEqual([id, id]);
    const [routed] = await tdb.db<{ routing: { routingConditions: { projectQuestionId: number; questionOptionIds: number[] }[] } }[]>`
      select routing from project_questions where project_id = ${id} and routing is not null`;
    const cond = routed!.routing.routingConditions[0]!;
    const [pq] = await tdb.db<{ projectId: number }[]>`select project_id as "projectId" from project_questions where id = ${cond.projectQuestionId}`;
    expect(pq!.projectId, "routing names the copied project question").toBe(id);
    const opts = await tdb.db<{ projectId: number }[]>`select project_id as "projectId" from question_options where id = any(${cond.questionOptionIds}::int[])`;
    expect(opts.map((x) => x.projectId)).toEqual([id, id]);
    const [p] = await tdb.db<{ active: number; owner: number }[]>`
      select active_project_objective_id as active, owner_user_id as owner from projects where id = ${id}`;
    const [obj] = await tdb.db<{ summary: string; projectId: number }[]>`
      select summary, project_id as "projectId" from project_objectives where id = ${p!.active}`;
    expect(obj).toEqual({ summary: "Which bar should we launch first?", projectId: id });
    expect(p!.owner, "the copy is the duplicator's").toBe(9004);
    const [created] = await tdb.db<{ userId: number }[]>`
      select user_id as "userId" from data_events_log where entity_id = ${id} and event = 'Created'`;
    expect(created?.userId).toBe(9004);
    const named = await call(app, "acmeUser", 1003, "POST", "/api/v1/Projects(1001)/Duplicate", { projectName: "Winter bars" });
    expect(named.body.projectName).toBe("Winter bars");
  });

  test("Move takes a Draft to another team of its enterprise, with its rows; never across enterprises", async () => {
    const res = await call(app, "ops", null, "POST", "/api/v1/Projects(1004)/Move", { clientId: 1003 });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body).toMatchObject({ clientId: 1003, fromClientId: 1004 });
    const [r] = await tdb.db<{ c: number }[]>`select client_id as c from projects_regions where project_id = 1004`;
    expect(r!.c, "its regions moved with it").toBe(1003);
    const [ev] = await tdb.db<{ data: Record<string, number> }[]>`select data from data_events_log where entity_id = 1004 and event = 'Moved'`;
    expect(ev!.data).toEqual({ fromClientId: 1004, toClientId: 1003 });
    const { id } = await makeProject(0, { onRun: false });
    const away = await call(app, "ops", 1003, "POST", `/api/v1/Projects(${id})/Move`, { clientId: 2001 });
    expect(away.status, "Globex is another enterprise").toBe(409);
    const charged = await makeProject(0);
    const paid = await call(app, "ops", 1003, "POST", `/api/v1/Projects(${charged.id})/Move`, { clientId: 1004 });
    expect(paid.status, "a project with ledger rows stays").toBe(409);
    expect((await call(app, "acmeAdmin", 1003, "POST", `/api/v1/Projects(${id})/Move`, { clientId: 1004 })).status).toBe(403);
  });

  test("AdminEdit changes any field, the status too, in one audited row", async () => {
    const { id } = await makeProject(0, { onRun: false });
    const res = await call(app, "ops", 1003, "POST", `/api/v1/Projects(${id})/AdminEdit`, { statusCode: 300, projectName: "Fixed name", note: "ticket 42" });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body.changes).toEqual({ statusCode: { from: 0, to: 300 }, projectName: { from: `Lifecycle test ${seq}`, to: "Fixed name" } });
    const log = await tdb.db<{ event: string; userId: number; data: Record<string, unknown> }[]>`
      select event, user_id as "userId", data from data_events_log where entity_id = ${id} order by id`;
    expect(log.map((l) => l.event)).toEqual(["AdminEdit", "StatusChanged"]);
    expect(log[0]).toMatchObject({ userId: 9002, data: { note: "ticket 42" } });
    const bad = await call(app, "ops", 1003, "POST", `/api/v1/Projects(${id})/AdminEdit`, { statusCode: 123 });
    expect(bad.status, "only the nine statuses").toBe(400);
    const none = await call(app, "ops", 1003, "POST", `/api/v1/Projects(${id})/AdminEdit`, { note: "nothing" });
    expect(none.status).toBe(400);
  });

  test("UpdateProjectOwner gives the project to an Admin or User of the team only", async () => {
    const { id } = await makeProject(900);
    expect((await call(app, "acmeAdmin", 1003, "POST", `/api/v1/Projects(${id})/UpdateProjectOwner`, { userId: 9005 })).status).toBe(400);
    expect((await call(app, "acmeAdmin", 1003, "POST", `/api/v1/Projects(${id})/UpdateProjectOwner`, { userId: 9006 })).status).toBe(400);
    const ok = await call(app, "acmeAdmin", 1003, "POST", `/api/v1/Projects(${id})/UpdateProjectOwner`, { userId: 9003 });
    expect(ok.body.ownerUserId).toBe(9003);
    expect((await call(app, "acmeUser", 1003, "POST", `/api/v1/Projects(${id})/UpdateProjectOwner`, { userId: 9004 })).status).toBe(403);
  });

  test("UpdateGroupTags sets exactly the named tags; a tag's last row stays with its group", async () => {
    const res = await call(app, "acmeUser", 1003, "POST", "/api/v1/Projects(1001)/UpdateGroupTags", { tagIds: [1002] });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body.tags.map((t: { name: string }) => t.name)).toEqual(["Tracking"]);
    const [wave] = await tdb.db<{ projectId: number | null }[]>`select project_id as "projectId" from project_group_tags where id = 1001`;
    expect(wave!.projectId, "'Wave 1' stays as the group's tag").toBeNull();
    expect((await call(app, "acmeUser", 1003, "POST", "/api/v1/Projects(1001)/UpdateGroupTags", { tagIds: [2001] })).status, "Globex's tag").toBe(400);
  });

  test("IncidenceEstimate multiplies the targets' census shares and publishes IncidenceEstimateUpdated", async () => {
    const { id } = await makeProject(0, { onRun: false });
    // Age 18-24 (5100002) and women (4500002) in New Zealand: census shares 0.189 and 0.51.
    await tdb.db`insert into targets (client_id, project_id, system_question_option_id) values (1003, ${id}, 5100002), (1003, ${id}, 4500002)`;
    const res = await call(app, "acmeUser", 1003, "POST", `/api/v1/Projects(${id})/IncidenceEstimate`);
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body.incidenceEstimate).toBe(0.0964);
    expect(res.body.regions[0].factors.map((f: { basis: string }) => f.basis)).toEqual(["census", "census"]);
    const [p] = await tdb.db<{ v: number }[]>`select incidence_estimate::float8 as v from projects where id = ${id}`;
    expect(p!.v).toBe(0.0964);
    await waitFor(() => events.find((e) => e.channel === "client-1003" && e.event === "IncidenceEstimateUpdated" && (e.data as { projectId: number }).projectId === id), "IncidenceEstimateUpdated");
    const [d] = await tdb.db<{ days: number }[]>`select estimated_days as days from estimated_project_duration where project_id = ${id}`;
    // 100 completes at 150 a day in NZ at 9.64% incidence: 7 days of fielding, one of processing.
    expect(d!.days).toBe(8);
  });

  test("GenerateQuestionIr: each screener's incidence from past answers", async () => {
    const res = await call(app, "acmeUser", 1003, "POST", "/api/v1/Projects(1001)/GenerateQuestionIr");
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body.questions).toHaveLength(1);
    expect(res.body.questions[0]).toMatchObject({ questionId: 1004, targetedOptionIds: [1009], respondents: 2, qualified: 2, incidence: 1, basis: "responses" });
    expect(res.body.combinedIncidence).toBe(1);
  });

  test("RemoveFromSurveyRun takes the project off the run; its settled charge is pending again", async () => {
    const made = await makeProject(400);
    const res = await call(app, "ops", 1003, "POST", `/api/v1/Projects(${made.id})/RemoveFromSurveyRun`, { surveyRunId: made.runId });
    expect(res.body).toMatchObject({ statusCode: 300, schedules: 1 });
    const [l] = await tdb.db<{ type: number; runId: number | null }[]>`select type, survey_run_id as "runId" from credit_logs where project_id = ${made.id}`;
    expect(l).toEqual({ type: 30, runId: null });
    const again = await call(app, "ops", 1003, "POST", `/api/v1/Projects(${made.id})/RemoveFromSurveyRun`, { surveyRunId: made.runId });
    expect(again.status, "no longer on that run").toBe(404);
  });
});
