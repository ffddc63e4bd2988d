// The norms' rollup (migration 0030, domains/results/norms.ts) equals the norm computed over the
// responses themselves, for every benchmark type, project and region set of the demo world (every
// project type, two clients, NPD launch weeks); it is written when a run is processed and rebuilt
// when a project's results change afterwards.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import type { TestDb } from "../helpers/db.ts";
import type { Tx } from "../../api/src/db/client.ts";
import * as q from "../../api/src/domains/results/results.sql.ts";
import { refreshStaleNormCells } from "../../api/src/domains/results/norms.ts";
import { normFromResponses } from "../helpers/norms.ts";
import { clearNormsMemo } from "../../api/src/domains/results/results.service.ts";
import { createDemoWorldDb, DEMO_WORLD_HOOK_MS } from "../helpers/demo.ts";

let tdb: TestDb;
let tx: Tx;
let statements: string[] | null = null;
beforeAll(async () => {
  ({ tdb } = await createDemoWorldDb({ onQuery: (text) => statements?.push(text) }));
  tx = tdb.db as unknown as Tx;
}, DEMO_WORLD_HOOK_MS);
afterAll(async () => {
  await tdb.drop();
}, 30_000);

/** Every norm of every project from the rollup against the responses; the number of norms compared. */
async function compareAll(): Promise<number> {
  await refreshStaleNormCells(tx);
  const types = await q.benchmarkTypes(tx);
  const projects = await tdb.db<{ id: number }[]>`select id from projects where deleted_at is null order by id`;
  let compared = 0;
  for (const { id } of projects) {
    const p = (await q.project(tx, id))!;
    for (const t of types) {
      for (const regions of [null, await q.projectRegions(tx, id), [1], [2], [15]]) {
        const kind = { type: t.id, minWeek: t.minWeek, maxWeek: t.maxWeek };
        const fast = await q.norms(tx, p, kind, regions);
        const slow = await normFromResponses(tx, p, kind, regions);
        const where = `project ${id}, type ${t.id}, regions ${JSON.stringify(regions)}`;
        expect(
          fast.map((r) => [r.standardQuestionId, r.projectCount, r.respondents]),
          where,
        ).toEqual(slow.map((r) => [r.standardQuestionId, r.projectCount, r.respondents]));
        // Σw added in another order: equal to 1e-12.
        fast.forEach((r, i) => {
          expect(Math.abs(r.top2 - slow[i]!.top2), where).toBeLessThan(1e-12);
        });
        if (slow.length) compared++;
      }
    }
  }
  return compared;
}

test("processing a run writes its project's cells", async () => {
  const rows = await tdb.db<{ id: number; cells: number }[]>`
    select p.id, (select count(*)::int from norm_cells c where c.project_id = p.id) as cells from projects p
    where p.status_code = 900 and exists (select 1 from responses r where r.project_id = p.id and r.standard_answer_value is not null) order by p.id`;
  expect(rows.length).toBeGreaterThan(5);
  for (const r of rows) expect(r.cells, `project ${r.id}`).toBeGreaterThan(0);
});

test("every norm from the rollup equals the norm over the responses", async () => {
  expect(await compareAll(), "norms with data compared").toBeGreaterThan(30);
});

test("a change of a project's results after processing rebuilds its cells before the next norm", async () => {
  const [{ id }] = await tdb.db<{ id: number }[]>`select id from projects where project_name = 'Plant-based snacks idea screen'`;
  await refreshStaleNormCells(tx);
  expect(await refreshStaleNormCells(tx), "nothing stale right after a refresh").toBe(0);
  // A reweight (raking again) and a removed respondent.
  await tdb.db`update project_survey_sessions set weight = weight * (1 + (id % 7) / 3.0) where project_id = ${id}`;
  await tdb.db`delete from responses where project_id = ${id} and survey_session_id = (select min(survey_session_id) from responses where project_id = ${id})`;
  const before = await tdb.db<{ s: number }[]>`select sum(sum_w)::float8 as s from norm_cells where project_id = ${id}`;
  expect(await compareAll()).toBeGreaterThan(30);
  const after = await tdb.db<{ s: number }[]>`select sum(sum_w)::float8 as s from norm_cells where project_id = ${id}`;
  expect(after[0]!.s, "the cells were rebuilt").not.toBe(before[0]!.s);
});

test("the norms job rebuilds what changed outside processing, so a Benchmarks call finds nothing to do", async () => {
  const { normsRefreshJob } = await import("../../api/src/domains/results/norms.jobs.ts");
  const run = async () => {
    const steps: string[] = [];
    const ctx = { data: {}, db: tdb.db, signal: new AbortController().signal, progress: async (_p: number, m?: string) => void steps.push(m ?? "") };
    const r = await normsRefreshJob.handler(ctx as unknown as Parameters<typeof normsRefreshJob.handler>[0]);
    return { ...(r as { refreshed: number; stale: number }), steps };
  };
  await run();
  const ids = await tdb.db<{ id: number }[]>`select id from projects where status_code = 900 and project_name in ('Plant-based snacks idea screen') order by id`;
  await tdb.db`update project_survey_sessions set weight = weight * 1.1 where project_id = ${ids[0]!.id}`;
  const r = await run();
  expect(r).toMatchObject({ refreshed: 1, stale: 1 });
  expect(r.steps.at(-1)).toBe("rebuilt the norm cells of 1 of 1 projects");
  expect(await refreshStaleNormCells(tx), "nothing left for the request").toBe(0);
  expect(await run()).toMatchObject({ refreshed: 0, stale: 0 });
  expect(await compareAll()).toBeGreaterThan(30);
});

test("QualResults with a benchmark reads that benchmark's norm only: one norm statement, not one per benchmark type", async () => {
  const { qualResults } = await import("../../api/src/domains/results/results.service.ts");
  const { systemCtx } = await import("../../api/src/domains/lifecycle/lifecycle.service.ts");
  const [p] = await tdb.db<{ id: number }[]>`
    select id from projects where status_code >= 800 and status_code <> 950 and project_type_id = 1 and deleted_at is null order by id limit 1`;
  const types = await q.benchmarkTypes(tx);
  expect(types.length, "more than one benchmark type to choose from").toBeGreaterThan(1);
  const ask = (benchmarkTypeId: number) => qualResults(tdb.db, systemCtx(), { projectId: p!.id, filters: {}, benchmarkTypeId });
  for (const t of [types[0]!, types.at(-1)!]) {
    await ask(t.id); // the rollup refreshed, the project's columns loaded
    clearNormsMemo(); // the norm read, not the one this process kept
    statements = [];
    await ask(t.id);
    const normStatements = statements.filter((s) => s.includes("join norm_cells nc")).length;
    statements = null;
    expect(normStatements, `benchmark type ${t.id}`).toBe(1);
  }
  const unknown = await ask(999).catch((e: Error) => e);
  expect((unknown as Error).message, "an unknown benchmark type is still refused").toBe("No benchmark type 999");
}, 60_000);

/** The first fielded idea screen, QualResults with benchmark 1 on it, and how to read and check its norms. */
async function normWorld() {
  const { qualResults } = await import("../../api/src/domains/results/results.service.ts");
  const { systemCtx } = await import("../../api/src/domains/lifecycle/lifecycle.service.ts");
  const [p] = await tdb.db<{ id: number }[]>`
    select id from projects where status_code >= 800 and status_code <> 950 and project_type_id = 1 and deleted_at is null order by id limit 1`;
  const head = (await q.project(tx, p!.id))!;
  const regions = await q.projectRegions(tx, p!.id);
  const ask = () => qualResults(tdb.db, systemCtx(), { projectId: p!.id, filters: {}, benchmarkTypeId: 1 });
  /** Each measure's norm as the call reads it, by standard question. */
  const norm = async () => new Map((await ask()).measures.map((m) => [m.standardQuestionId, m.results[0]!.vsBenchmark!]));
  /** The norm computed afresh from the cells, as the call should read it. */
  const expected = async () => new Map((await q.norms(tx, head, { type: 1, minWeek: null, maxWeek: null }, regions)).map((r) => [r.standardQuestionId, r.top2 * 100]));
  const same = async () => {
    const [got, want] = [await norm(), await expected()];
    for (const [sq, v] of got) expect(Math.abs(v.top2Percentage - want.get(sq)!), `standard question ${sq}`).toBeLessThan(1e-9);
    return got;
  };
  const other = async () =>
    (
      await tdb.db<{ id: number }[]>`
        select q.id from projects q join norm_cells c on c.project_id = q.id
        where q.id <> ${p!.id} and q.status_code >= 800 and q.status_code <> 950 and q.deleted_at is null and c.region_id = any(${regions}::int[])
        group by q.id order by q.id limit 1`
    )[0]!.id;
  return { head, regions, ask, norm, same, other };
}

test("QualResults with a benchmark after another project's results changed reads the norm rebuilt from them, not the stale cells", async () => {
  const { head, regions, ask, other } = await normWorld();
  const kind = { type: 1, minWeek: null, maxWeek: null };
  const norms = (r: Awaited<ReturnType<typeof ask>>) => new Map(r.measures.map((m) => [m.standardQuestionId, m.results[0]!.vsBenchmark!.top2Percentage]));
  await refreshStaleNormCells(tx);
  const before = norms(await ask());
  // Another comparable project's answers change (a recode of its lowest answers to the top box)
  // outside processing: its cells are stale until rebuilt.
  await tdb.db`update responses set standard_answer_value = 1 where project_id = ${await other()} and standard_answer_value = 4`;
  const after = norms(await ask());
  const expected = await normFromResponses(tx, head, kind, regions);
  expect(expected.length).toBeGreaterThan(0);
  let moved = 0;
  for (const r of expected) {
    if (!after.has(r.standardQuestionId)) continue; // a measure this project did not ask
    expect(Math.abs(after.get(r.standardQuestionId)! - r.top2 * 100), `standard question ${r.standardQuestionId}`).toBeLessThan(1e-9);
    if (Math.abs(after.get(r.standardQuestionId)! - before.get(r.standardQuestionId)!) > 1e-9) moved++;
  }
  expect(moved, "the change moved the norm of a measure the project asked").toBeGreaterThan(0);
  expect(await refreshStaleNormCells(tx), "the call rebuilt the stale cells").toBe(0);
}, 60_000);

describe("the norms a process keeps (migration 0044's epoch)", () => {
  const moved = (a: Map<number, { top2Percentage: number }>, b: Map<number, { top2Percentage: number }>) =>
    [...a].filter(([sq, v]) => Math.abs(v.top2Percentage - b.get(sq)!.top2Percentage) > 1e-9).length;

  test("asked again with nothing changed, QualResults reads no norm statement", async () => {
    const { ask } = await normWorld();
    await refreshStaleNormCells(tx);
    await ask();
    statements = [];
    await ask();
    const normStatements = statements.filter((s) => s.includes("join norm_cells nc")).length;
    statements = null;
    expect(normStatements).toBe(0);
  }, 60_000);

  test("a comparable project deleted (projects): the next call reads the norm without it", async () => {
    const { same, other } = await normWorld();
    const before = await same();
    const id = await other();
    await tdb.db`update projects set deleted_at = now() where id = ${id}`;
    const after = await same();
    expect(moved(before, after), "the norm moved").toBeGreaterThan(0);
    await tdb.db`update projects set deleted_at = null where id = ${id}`;
    expect(moved(await same(), before), "and back").toBe(0);
  }, 60_000);

  test("a comparable project's cells rebuilt (norm_cells): the next call reads the new cells", async () => {
    const { same, other } = await normWorld();
    const before = await same();
    const id = await other();
    // As a rebuild would write them: the cells of another answer distribution.
    await tdb.db`update norm_cells set sum_w_top2 = sum_w_top2 * 0.5 where project_id = ${id}`;
    const after = await same();
    expect(moved(before, after), "the norm moved").toBeGreaterThan(0);
  }, 60_000);

  test("a comparable project's results changed (results_versions): the next call rebuilds its cells and reads them", async () => {
    const { same, other } = await normWorld();
    await refreshStaleNormCells(tx);
    const before = await same();
    const id = await other();
    await tdb.db`update responses set standard_answer_value = 1 where project_id = ${id} and standard_answer_value = 3`;
    const after = await same();
    expect(moved(before, after), "the norm moved").toBeGreaterThan(0);
    expect(await refreshStaleNormCells(tx), "the call rebuilt the stale cells").toBe(0);
  }, 60_000);

  test("the app role can neither read nor move the epoch", async () => {
    await expect(tdb.db.begin((t) => t`set local role ideally_app`.then(() => t`select value from norms_epoch`))).rejects.toThrow(/permission denied/);
    await expect(tdb.db.begin((t) => t`set local role ideally_app`.then(() => t`update norms_epoch set value = 0`))).rejects.toThrow(/permission denied/);
    const [r] = await tdb.db.begin((t) => t`set local role ideally_app`.then(() => t<{ e: string }[]>`select app_norms_epoch()::text as e`));
    expect(Number(r!.e)).toBeGreaterThan(0);
  });
});
