// Past one machine, for real: a primary PostgreSQL with a streaming replica, PgBouncer in
// transaction mode in front of the primary (tests/helpers/cluster.ts), and two API processes with
// DATABASE_URL at PgBouncer, DATABASE_DIRECT_URL at the primary and DATABASE_REPLICA_URL at the
// replica. Through them: sign-in, the README's acceptance query, writes read back under row-level
// security, no tenant setting left on a pooled connection, realtime fan-out between the two
// processes, a job, and the results functions read from the replica (200 at once, no error).
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { startCluster, type Cluster } from "../helpers/cluster.ts";
import { connect } from "../../api/src/db/client.ts";
import { liveCall, liveMetrics, liveSignIn, openSocket, startServerProcess, submitNewProject, type ServerProcess } from "../helpers/live.ts";

let cluster: Cluster;
let a: ServerProcess;
let b: ServerProcess;
const ACME = 1003;
const GLOBEX = 2001;

beforeAll(async () => {
  cluster = await startCluster();
  await cluster.primary`insert into credit_logs (client_id, type, credit_amount, description) values (${ACME}, 1, 100000, 'Pooler test top-up')`;
  const env = { DATABASE_DIRECT_URL: cluster.primaryUrl, DATABASE_REPLICA_URL: cluster.replicaUrl };
  [a, b] = await Promise.all([startServerProcess(cluster.bouncerUrl, env), startServerProcess(cluster.bouncerUrl, env)]);
}, 180_000);
afterAll(async () => {
  await Promise.all([a?.stop(), b?.stop()]);
  await cluster?.stop();
}, 60_000);

/** The replica read counters of a process's /metrics. */
async function replicaReads(base: string): Promise<Record<string, number>> {
  const text = await liveMetrics(base);
  const out: Record<string, number> = {};
  for (const m of text.matchAll(/^ideally_replica_reads_total\{outcome="(\w+)"\} (\d+)/gm)) out[m[1]!] = Number(m[2]);
  return out;
}

describe("through PgBouncer in transaction mode", () => {
  test("sign-in and the README's acceptance query", async () => {
    const token = await liveSignIn(a.base, "user@acme.test");
    const r = await liveCall(a.base, token, null, "GET", "/api/v1/StandardQuestions?$filter=id%20le%206&$orderby=id%20desc&$select=id");
    expect(r.status, JSON.stringify(r.body)).toBe(200);
    expect(r.body.value).toEqual([{ id: 6 }, { id: 5 }, { id: 4 }, { id: 3 }, { id: 2 }, { id: 1 }]);
  }, 60_000);

  test("a write is read back by its client through the other process, and never by another client", async () => {
    const uma = await liveSignIn(a.base, "user@acme.test");
    const gia = await liveSignIn(b.base, "admin@globex.test");
    const p = await liveCall(a.base, uma, ACME, "POST", "/api/v1/Projects", { projectName: "Through the pooler", projectTypeId: 1, frameworkId: 1000, regionIds: [1] });
    expect(p.status, JSON.stringify(p.body)).toBe(201);
    const id = p.body.id as number;
    const back = await liveCall(b.base, await liveSignIn(b.base, "user@acme.test"), ACME, "GET", `/api/v1/Projects(${id})?$select=id,projectName`);
    expect(back.status).toBe(200);
    expect(back.body.projectName).toBe("Through the pooler");
    const other = await liveCall(b.base, gia, GLOBEX, "GET", `/api/v1/Projects(${id})`);
    expect(other.status, "row-level security holds through pooled connections").toBe(404);
  }, 60_000);

  test("two tenants interleaved on pooled connections each see only their own rows, and no setting outlives its request", async () => {
    const [uma, gia] = await Promise.all([liveSignIn(a.base, "user@acme.test"), liveSignIn(a.base, "admin@globex.test")]);
    const calls = Array.from({ length: 120 }, (_, i) => {
      const acme = i % 2 === 0;
      return liveCall(a.base, acme ? uma : gia, acme ? ACME : GLOBEX, "GET", "/api/v1/Projects?$select=id,clientId&$top=1000").then((r) => ({ acme, r }));
    });
    // Globex sees its own projects and the one Acme project shared with its admin (fixtures.sql).
    const SHARED_WITH_GLOBEX = 1001;
    for (const { acme, r } of await Promise.all(calls)) {
      expect(r.status).toBe(200);
      const rows = r.body.value as { id: number; clientId: number }[];
      expect(rows.length).toBeGreaterThan(0);
      const foreign = rows.filter((x) => (acme ? x.clientId !== ACME : x.clientId !== GLOBEX && x.id !== SHARED_WITH_GLOBEX));
      expect(foreign, acme ? "Acme sees only Acme's" : "Globex sees only Globex's and what was shared with it").toEqual([]);
    }
    // Every server connection PgBouncer holds, asked outside a transaction: no role, no tenant.
    const probe = connect(cluster.bouncerUrl, { max: 20, pooled: true });
    try {
      const rows = await Promise.all(
        Array.from(
          { length: 20 },
          () =>
            probe<{ role: string; who: string; uid: string | null; ids: string | null }[]>`
            select current_setting('role') as role, current_user as who,
                   nullif(current_setting('app.user_id', true), '') as uid, nullif(current_setting('app.client_ids', true), '') as ids`,
        ),
      );
      for (const [r] of rows) expect(r).toEqual({ role: "none", who: "postgres", uid: null, ids: null });
    } finally {
      await probe.end();
    }
  }, 90_000);

  test("a notification raised through process B reaches a websocket on process A (NOTIFY on the direct URL)", async () => {
    const uma = await liveSignIn(b.base, "user@acme.test");
    const ada = await liveSignIn(a.base, "admin@acme.test");
    const sock = await openSocket(a.base, ada);
    const id = await submitNewProject(b.base, uma, ACME, "Fan-out through the pooler");
    const m = await sock.next((x) => x.event === "SurveySubmittedForApproval" && (x.data as { projectId?: number }).projectId === id);
    expect(m.channel).toBe("user-9003");
    sock.ws.close();
  }, 60_000);

  test("a job is queued and run (pg-boss on the direct URL)", async () => {
    const sam = await liveSignIn(a.base, "staff@ideally.test");
    const r = await liveCall(a.base, sam, null, "POST", "/api/CommandRunner/TestNotification", { userId: 9005, title: "Through the pooler" });
    expect(r.status, JSON.stringify(r.body)).toBe(202);
    const jobId = r.body.jobId as string;
    const until = Date.now() + 30_000;
    let state: string | undefined;
    while (Date.now() < until) {
      state = (await cluster.primary<{ state: string }[]>`select state from pgboss.job where id = ${jobId}`)[0]?.state;
      if (state === "completed") break;
      await Bun.sleep(200);
    }
    expect(state).toBe("completed");
  }, 60_000);
});

describe("the cluster helper", () => {
  test("caughtUp() waits for a commit made with synchronous_commit off (the primary's setting here)", async () => {
    // An asynchronous commit returns once its WAL is inserted, before it is written: a wait for
    // the write position (pg_current_wal_lsn) can return before the replica can have the commit.
    await cluster.primary`create table if not exists caught_up_probe (n int primary key)`;
    for (let n = 1; n <= 40; n++) {
      await cluster.primary`insert into caught_up_probe values (${n})`;
      await cluster.caughtUp();
      const [r] = await cluster.replica<{ seen: boolean }[]>`select exists (select 1 from caught_up_probe where n = ${n}) as seen`;
      expect(r!.seen, `row ${n} on the replica once caughtUp() returned`).toBe(true);
    }
  }, 60_000);
});

describe("the results functions on the replica", () => {
  test("QualResults, ResponsesCount and WeightSum are read on the replica, with the primary's answers", async () => {
    // The session this sign-in makes is read by app_enter: once the replica has it, the reads run
    // there (before, they are retried on the primary: tests/api/replica-router.test.ts).
    const uma = await liveSignIn(a.base, "user@acme.test");
    await cluster.caughtUp();
    // The replica is used once the process has polled its lag (every second).
    const until = Date.now() + 10_000;
    while (!(await liveMetrics(a.base)).includes("ideally_replica_usable 1") && Date.now() < until) await Bun.sleep(200);
    const paths = ["/api/v1/Responses/QualResults?projectId=1001", "/api/v1/Projects(1001)/ResponsesCount", "/api/v1/Responses/WeightSum?projectId=1001"];
    // A first call may find the norms' rollup stale (its start-up job not run yet on a busy
    // machine) and refresh it: a write, which the replica refuses, so that call runs on the primary
    // by design (a "fallback"). Warm up once, let the replica replay the refresh, then measure.
    for (const p of paths) expect((await liveCall(a.base, uma, ACME, "GET", p)).status, p).toBe(200);
    await cluster.caughtUp();
    const before = await replicaReads(a.base);
    const answers = [];
    for (const p of paths) {
      const r = await liveCall(a.base, uma, ACME, "GET", p);
      expect(r.status, `${p}: ${JSON.stringify(r.body)}`).toBe(200);
      answers.push(r.body);
    }
    const after = await replicaReads(a.base);
    const replicaMetrics = (await liveMetrics(a.base))
      .split("\n")
      .filter((l) => l.startsWith("ideally_replica"))
      .join("; ");
    expect((after.replica ?? 0) - (before.replica ?? 0), `each call ran its transactions on the replica (${replicaMetrics})`).toBeGreaterThanOrEqual(paths.length);
    expect(after.primary ?? 0, "none sent to the primary").toBe(before.primary ?? 0);
    // The same answers as a process without a replica gives.
    const plain = await startServerProcess(cluster.bouncerUrl, { DATABASE_DIRECT_URL: cluster.primaryUrl });
    try {
      const t = await liveSignIn(plain.base, "user@acme.test");
      for (const [i, p] of paths.entries()) expect((await liveCall(plain.base, t, ACME, "GET", p)).body, p).toEqual(answers[i]);
    } finally {
      await plain.stop();
    }
  }, 120_000);

  test("200 results calls at once through both processes: no error", async () => {
    const [ta, tb] = await Promise.all([liveSignIn(a.base, "user@acme.test"), liveSignIn(b.base, "viewer@acme.test")]);
    const kinds = [
      "/api/v1/Responses/QualResults?projectId=1001",
      "/api/v1/Projects(1001)/ResponsesCount",
      "/api/v1/Responses/WeightSum?projectId=1001",
      "/api/v1/Responses/DemographicsResults?projectId=1001",
    ];
    const all = await Promise.all(
      Array.from({ length: 200 }, (_, i) => (i % 2 ? liveCall(b.base, tb, ACME, "GET", kinds[i % kinds.length]!) : liveCall(a.base, ta, ACME, "GET", kinds[i % kinds.length]!))),
    );
    const bad = all.filter((r) => r.status !== 200).map((r) => `${r.status} ${JSON.stringify(r.body).slice(0, 200)}`);
    expect(bad).toEqual([]);
  }, 120_000);

  test("the replica's lag is in /metrics", async () => {
    const text = await liveMetrics(a.base);
    expect(text).toMatch(/^ideally_replica_lag_bytes \d+/m);
    expect(text).toMatch(/^ideally_replica_lag_seconds [\d.]+/m);
  });
});
