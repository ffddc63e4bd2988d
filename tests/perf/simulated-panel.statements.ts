// The statements the simulated panel's people send through the respondent routes (docs/testing.md
// "The simulated panel's cost"): the bench's three-concept New Zealand run, the panel answering `N`
// completes (default 3); each statement printed in order (QUIET=1: not), then counted by kind.
// PGLOG=1 also logs each statement's duration in the PostgreSQL server's log (log_min_duration_statement
// on this database only), to be summed from the log by statement.
// DATABASE_URL=... N=200 QUIET=1 bun tests/perf/simulated-panel.statements.ts
import { connect } from "../../api/src/db/client.ts";
import * as fielding from "../../api/src/domains/fielding/fielding.service.ts";
import * as panel from "../../api/src/domains/fielding/simulated-panel.ts";
import { call, TEST_PUBLIC_URL, testApp } from "../helpers/app.ts";
import { createTestDb } from "../helpers/db.ts";

const T = 1003;
const N = Number(process.env.N ?? 3);
let log: string[] | null = null;
const tdb = await createTestDb({ onQuery: (text) => log?.push(text.replace(/\s+/g, " ").slice(0, Number(process.env.WIDTH ?? 140))) });
try {
  const app = testApp(tdb.db, { publicUrl: TEST_PUBLIC_URL });
  await tdb.db`insert into credit_logs (client_id, type, credit_amount, description) values (${T}, 1, 1000000, 'Bench top-up')`;
  const p = await call(app, "acmeUser", T, "POST", "/api/v1/Projects", { projectName: "Bench", projectTypeId: 1, frameworkId: 1000, regionIds: [1], sampleSize: 200 });
  for (const conceptText of ["Cold brew in a can", "Oat milk latte", "Sparkling yerba mate"]) await call(app, "acmeUser", T, "POST", "/api/v1/TestOptions", { projectId: p.body.id, conceptText });
  await call(app, "staff", T, "POST", `/api/v1/Projects(${p.body.id})/SuperApprove`, {});
  const [r] = await fielding.createSurveys(tdb.db, p.body.id);
  await tdb.db`update survey_runs set simulated_seed = 12345 where id = ${r!.surveyRunId}`;
  await fielding.launchRun(tdb.db, r!.surveyRunId, TEST_PUBLIC_URL);
  // PGLOG=1: every statement's duration in the server's log (log_min_duration_statement on this database only).
  let db = tdb.db;
  if (process.env.PGLOG === "1") {
    await tdb.db.unsafe(`alter database "${tdb.name}" set log_min_duration_statement = 0`);
    db = connect(tdb.url, { max: 4, onQuery: (text) => log?.push(text.replace(/\s+/g, " ").slice(0, Number(process.env.WIDTH ?? 140))) });
  }
  log = [];
  const t0 = performance.now();
  const s = await panel.simulate(db, r!.surveyRunId, N);
  console.log(`simulate ${N}: ${((performance.now() - t0) / 1000).toFixed(2)} s`);
  const lines = log;
  log = null;
  if (process.env.QUIET !== "1") for (const l of lines) console.log(l);
  const counts = new Map<string, number>();
  for (const l of lines) counts.set(l.slice(0, 60), (counts.get(l.slice(0, 60)) ?? 0) + 1);
  console.log(`\n${lines.length} statements for ${s.invited} people (${s.totalCompletes} completes): ${(lines.length / s.invited).toFixed(1)} a person`);
  for (const [k, n] of [...counts].sort((a, b) => b[1] - a[1]).slice(0, 30)) console.log(String(n).padStart(5), k);
} finally {
  await tdb.drop();
}
process.exit(0);
