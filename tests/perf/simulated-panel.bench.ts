// The simulated panel's cost (issue 36: the panel answers through the respondent routes, a request
// per page): the demo world's build (what tests/helpers/demo.ts does for its template) and
// RunSimulatedData of 200 completes on a three-concept New Zealand run, each timed, with a digest
// of who answered what (same seed, same people). Run it on two checkouts one after the other to
// compare: DATABASE_URL=... bun tests/perf/simulated-panel.bench.ts
import { createHash } from "node:crypto";
import { seedDemo } from "../../api/src/db/demo.ts";
import { seedDemoProjects } from "../../api/src/domains/fielding/demo.ts";
import * as fielding from "../../api/src/domains/fielding/fielding.service.ts";
import * as panel from "../../api/src/domains/fielding/simulated-panel.ts";
import { registry } from "../../api/src/entities/index.ts";
import { call, TEST_PUBLIC_URL, testApp, testPasswords } from "../helpers/app.ts";
import { createTestDb } from "../helpers/db.ts";

const T = 1003;
const rounds = Number(process.env.ROUNDS ?? 1);

async function demoWorld(): Promise<number> {
  const tdb = await createTestDb({ fixtures: false });
  try {
    const t0 = performance.now();
    await seedDemo(tdb.db, testPasswords.hash, { whenEmpty: true });
    await seedDemoProjects(tdb.db, registry, TEST_PUBLIC_URL);
    return (performance.now() - t0) / 1000;
  } finally {
    await tdb.drop();
  }
}

async function simulate200(): Promise<{ seconds: number; digest: string; completes: number; invited: number }> {
  const tdb = await createTestDb();
  try {
    const app = testApp(tdb.db, { publicUrl: TEST_PUBLIC_URL });
    await tdb.db`insert into credit_logs (client_id, type, credit_amount, description) values (${T}, 1, 1000000, 'Bench top-up')`;
    const p = await call(app, "acmeUser", T, "POST", "/api/v1/Projects", { projectName: "Bench", projectTypeId: 1, frameworkId: 1000, regionIds: [1], sampleSize: 200 });
    for (const conceptText of ["Cold brew in a can", "Oat milk latte", "Sparkling yerba mate"]) await call(app, "acmeUser", T, "POST", "/api/v1/TestOptions", { projectId: p.body.id, conceptText });
    await call(app, "staff", T, "POST", `/api/v1/Projects(${p.body.id})/SuperApprove`, {});
    const [r] = await fielding.createSurveys(tdb.db, p.body.id);
    await tdb.db`update survey_runs set simulated_seed = 12345 where id = ${r!.surveyRunId}`;
    await fielding.launchRun(tdb.db, r!.surveyRunId, TEST_PUBLIC_URL);
    const t0 = performance.now();
    const s = await panel.simulate(tdb.db, r!.surveyRunId, 200);
    const seconds = (performance.now() - t0) / 1000;
    const rows = await tdb.db<{ status: string; answers: unknown; order: number[]; flags: string[] }[]>`
      select status, answers, test_option_order as order, quality_flags as flags from survey_sessions where survey_run_id = ${r!.surveyRunId} order by id`;
    const digest = createHash("sha256").update(JSON.stringify(rows)).digest("hex").slice(0, 16);
    return { seconds, digest, completes: s.totalCompletes, invited: s.invited };
  } finally {
    await tdb.drop();
  }
}

for (let i = 0; i < rounds; i++) {
  const sim = await simulate200();
  console.log(`simulate200: ${sim.seconds.toFixed(2)} s (${sim.completes} completes of ${sim.invited} invited, digest ${sim.digest})`);
  if (process.env.DEMO !== "0") console.log(`demo world: ${(await demoWorld()).toFixed(2)} s`);
}
process.exit(0);
