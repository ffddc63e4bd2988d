// The results benchmarks' data set: 10 million response rows (400,000 respondents over 50 projects,
// 25 rows each) in a database of the tests' PostgreSQL server, seeded once and kept while its hash
// matches (ideally_bench_results_<hash of migrations, reference data, fixtures and this seed>);
// BENCH_RESULTS_RESEED=1 builds it again. Seeding: generate_series in SQL, secondary indexes
// dropped during the load and rebuilt after. The fixtures' logins (tests/helpers/fixtures.sql) are
// there: even-numbered projects belong to Acme Team A (1003), odd ones to Globex (2001).
// Used by results.bench.ts (the service functions) and results-web.bench.ts (the page in a browser).
import { createHash } from "node:crypto";
import { readFileSync } from "node:fs";
import { join, resolve } from "node:path";
import postgres from "postgres";
import { createTestDb } from "../helpers/db.ts";
import { testServerAdminUrl } from "../helpers/server.ts";
import { connect, type Db } from "../../api/src/db/client.ts";
import { migrationFiles } from "../../api/src/db/migrate.ts";

export const PROJECTS = Number(process.env.BENCH_PROJECTS ?? 50);
export const RESPONDENTS = Number(process.env.BENCH_RESPONDENTS ?? 8000); // per project: 400,000 in all
export const ROWS_EACH = 25; // 3 demographics, 1 screener, 3 of 4 test options x (5 measures + 2 choices)
const SEED_VERSION = "results-bench-1";
const ROOT = resolve(import.meta.dir, "../..");
const log = (m: string) => console.log(m);

function benchName(): string {
  const h = createHash("sha256");
  for (const f of migrationFiles()) h.update(f.name).update(f.checksum);
  h.update(readFileSync(join(ROOT, "api/src/db/reference-data.sql")));
  h.update(readFileSync(join(ROOT, "tests/helpers/fixtures.sql")));
  h.update(`${SEED_VERSION}:${PROJECTS}:${RESPONDENTS}`);
  return `ideally_bench_results_${h.digest("hex").slice(0, 12)}`;
}

function withDb(url: string, name: string): string {
  const u = new URL(url);
  u.pathname = `/${name}`;
  return u.toString();
}

/** The seeded database's URL, seeding it first when it is missing or of another schema. */
export async function seededDatabase(): Promise<string> {
  const adminUrl = await testServerAdminUrl();
  const admin = postgres(adminUrl, { max: 1, onnotice: () => {} });
  const name = benchName(); // hex digest: safe in the statement text
  try {
    const [exists] = await admin`select 1 from pg_database where datname = ${name}`;
    if (exists && process.env.BENCH_RESULTS_RESEED !== "1") {
      const db = connect(withDb(adminUrl, name), { max: 1 });
      const [done] = await db`select 1 from pg_tables where tablename = 'bench_seeded'`.catch(() => []);
      await db.end();
      if (done) {
        log(`reusing ${name}`);
        return withDb(adminUrl, name);
      }
    }
    // Older bench databases (another schema) are dropped: they are only ever rebuilt.
    for (const old of await admin<{ datname: string }[]>`select datname from pg_database where datname like 'ideally_bench_results_%'`) {
      await admin.unsafe(`drop database if exists "${old.datname}" with (force)`);
    }
    const t0 = performance.now();
    const tdb = await createTestDb();
    await tdb.db.end();
    await admin.unsafe(`alter database "${tdb.name}" rename to "${name}"`);
    const url = withDb(adminUrl, name);
    const db = connect(url, { max: 1 });
    try {
      await seed(db);
    } finally {
      await db.end();
    }
    log(`seeded ${name} in ${((performance.now() - t0) / 1000).toFixed(0)} s`);
    return url;
  } finally {
    await admin.end();
  }
}

async function seed(db: Db): Promise<void> {
  await db`set synchronous_commit = off`;
  await db`set maintenance_work_mem = '512MB'`;
  // Rows are generated consistent with every key: foreign-key and version triggers are skipped
  // (replica role) while loading, and the secondary indexes are rebuilt once at the end.
  await db`set session_replication_role = replica`;
  const indexes = await db<{ name: string; def: string }[]>`
    select indexname as name, indexdef as def from pg_indexes
    where schemaname = 'public' and tablename in ('responses', 'project_survey_sessions', 'survey_sessions')
      and not exists (select 1 from pg_constraint c where c.conindid = format('%I.%I', schemaname, indexname)::regclass)`;
  for (const i of indexes) await db.unsafe(`drop index "${i.name}"`); // names from the catalogue
  const projects = await db<{ id: number; clientId: number }[]>`
    insert into projects (client_id, project_name, project_type_id, status_code, framework_id)
    select case when g % 2 = 0 then 1003 else 2001 end, 'Results bench ' || g, 1, 900, 1000 from generate_series(1, ${PROJECTS}) g
    returning id, client_id as "clientId"`;
  let t = performance.now();
  for (const [n, p] of projects.entries()) {
    const c = p.clientId;
    const tos = (
      await db<{ id: number }[]>`
      insert into test_options (client_id, project_id, concept_text, sort_order)
      select ${c}, ${p.id}, 'Concept ' || k, k from generate_series(1, 4) k returning id`
    ).map((r) => r.id);
    const q = async (text: string, type: number, std: number | null, position: number) => {
      const [{ id: qid }] = await db<{ id: number }[]>`insert into questions (client_id, project_id, question_text, question_type_id) values (${c}, ${p.id}, ${text}, ${type}) returning id`;
      const [{ id: pq }] = await db<{ id: number }[]>`
        insert into project_questions (client_id, project_id, question_id, standard_question_id, question_position_id, sort_order) values (${c}, ${p.id}, ${qid}, ${std}, ${position}, ${std ?? 0}) returning id`;
      return { qid, pq };
    };
    const std = [];
    for (const s of [1, 2, 3, 4, 5]) std.push(await q(`Measure ${s}`, 1, s, 5));
    const screener = await q("Where do you usually shop?", 1, null, 1);
    const multi = await q("What stands out?", 2, null, 3);
    const opts = async (qid: number, k: number) =>
      (
        await db<{ id: number }[]>`
        insert into question_options (client_id, project_id, question_id, option_text, sort_order)
        select ${c}, ${p.id}, ${qid}, 'Option ' || k, k from generate_series(1, ${k}) k returning id`
      ).map((r) => r.id);
    const screenerOpts = await opts(screener.qid, 4);
    const multiOpts = await opts(multi.qid, 3);
    const runs = (
      await db<{ id: number }[]>`
      insert into survey_runs (client_id, region_id, schedule_date, survey_status_id, sample_provider_id)
      values (${c}, 1, '2026-01-01', 90, 1), (${c}, 2, '2026-01-01', 90, 2) returning id`
    ).map((r) => r.id);
    // Respondents: three in four in region 1 (Ideally panel), one in four in region 2 (customer
    // panel), completing over four weeks.
    await db`
      insert into survey_sessions (client_id, survey_run_id, region_id, status, completed_at)
      select ${c}, case when g % 4 = 3 then ${runs[1]!}::int else ${runs[0]!}::int end, case when g % 4 = 3 then 2 else 1 end, 'Complete',
             timestamptz '2026-01-01 00:00Z' + (g % 28) * interval '1 day' + ((hashint4(g) & 1023) % 1440) * interval '1 minute'
      from generate_series(0, ${RESPONDENTS - 1}) g`;
    await db`
      insert into project_survey_sessions (client_id, project_id, survey_session_id, survey_run_id, region_id, is_customer_panel, weight, completed_at)
      select ${c}, ${p.id}, s.id, s.survey_run_id, s.region_id, s.region_id = 2, 0.4 + ((hashint4(s.id) & 2147483647) % 1000) / 500.0, s.completed_at
      from survey_sessions s where s.survey_run_id = any(${runs}::int[])`;
    // 25 rows per respondent; which options they see, their answers and choices from hashes.
    await db`
      with r as (
        select pss.id as pss, pss.survey_session_id as sid, pss.survey_run_id as run, pss.region_id, pss.is_customer_panel as cp,
               (hashint4(pss.survey_session_id) & 2147483647) as h
        from project_survey_sessions pss where pss.project_id = ${p.id}
      ), k as (
        select k, case when k >= 4 then (k - 4) / 7 end as slot, case when k >= 4 then (k - 4) % 7 end as within
        from generate_series(0, ${ROWS_EACH - 1}) k
      ), x as (
        select r.*, k.k, k.within, ((r.h % 4) + 1 + k.slot) % 4 as t, (hashint4(r.h + k.k) & 2147483647) as hk
        from r cross join k
      )
      insert into responses (client_id, project_id, survey_run_id, survey_session_id, project_survey_session_id, region_id, is_customer_panel,
                             project_question_id, question_id, standard_question_id, test_option_id, question_option_id,
                             system_question_id, system_question_option_id, standard_answer_value)
      select ${c}, ${p.id}, x.run, x.sid, x.pss, x.region_id, x.cp,
             case when x.k = 3 then ${screener.pq}::int when x.within < 5 then (${std.map((s) => s.pq)}::int[])[x.within + 1] when x.within >= 5 then ${multi.pq}::int end,
             case when x.k = 3 then ${screener.qid}::int when x.within < 5 then (${std.map((s) => s.qid)}::int[])[x.within + 1] when x.within >= 5 then ${multi.qid}::int end,
             case when x.within < 5 then x.within + 1 end,
             case when x.k >= 4 then (${tos}::int[])[x.t + 1] end,
             case when x.k = 3 then (${screenerOpts}::int[])[(x.h / 7) % 4 + 1] when x.within >= 5 then (${multiOpts}::int[])[((x.h / 11) % 3 + x.within - 4) % 3 + 1] end,
             case x.k when 0 then 45 when 1 then 51 when 2 then 37 end,
             case x.k when 0 then 4500001 + (x.h / 13) % 2 when 1 then 5100001 + (x.h / 17) % 6 when 2 then 3700001 + (x.h / 19) % 3 end,
             -- each concept has its own appeal: value 1 (top) .. 4 (bottom), shifted by the option
             case when x.within < 5 then 1 + least(3, ((x.hk % 10) + x.t) / 3) end
      from x`;
    if ((n + 1) % 10 === 0) {
      log(`  ${n + 1}/${projects.length} projects, ${(((n + 1) * RESPONDENTS * ROWS_EACH) / 1e6).toFixed(1)}M rows, ${((performance.now() - t) / 1000).toFixed(0)} s`);
    }
  }
  t = performance.now();
  for (const i of indexes) await db.unsafe(i.def); // definitions from the catalogue
  log(`  indexes rebuilt in ${((performance.now() - t) / 1000).toFixed(0)} s`);
  await db`set session_replication_role = origin`;
  t = performance.now();
  await db`vacuum (analyze) responses`;
  await db`vacuum (analyze) project_survey_sessions`;
  await db`vacuum (analyze) survey_sessions`;
  log(`  vacuum analyze in ${((performance.now() - t) / 1000).toFixed(0)} s`);
  await db`create table bench_seeded (at timestamptz default now())`;
}
