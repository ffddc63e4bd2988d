// Price sensitivity (Van Westendorp with Newton-Miller-Smith), market reach (TURF) and waves over
// a project's filtered respondents: the respondent-level rows come from PostgreSQL, the methods
// are the cited pure functions of @ideally/analytics (psm.ts, turf.ts, significance.ts).
import type { Db, Tx } from "../../db/client.ts";
import { enterTenant } from "../../access/policy.ts";
import type { RequestCtx } from "../../access/principal.ts";
import { ApiError } from "../../errors.ts";
import { vanWestendorp, type PsmCurves } from "@ideally/analytics/psm";
import { turf } from "@ideally/analytics/turf";
import type { Confidence } from "@ideally/analytics/significance";
import { contrast, isSmallBase, type Adjust } from "@ideally/analytics/design";
import { resolveFilter, sessionsSql, testOptionSql, type ResolvedFilter, type ResponseFilter } from "./filters.ts";
import * as q from "./results.sql.ts";
import { adjustFamily, designByQuestion, designTopTwoBoxes, enterFamily, statsMethod, viewTest, type Family, type Measure, type ViewTest } from "./results.service.ts";

/** SPEC 9's price tooltips, quoted. */
export const PRICE_TOOLTIPS = {
  optimal: "The sweet spot. The price that feels just right, not too cheap or expensive.",
  indifferent: "Neutral ground. People are willing to pay this, but it doesn’t feel like a deal or a stretch.",
  acceptable: "What feels fair. Most people would buy at this price - it’s seen as trustworthy and good value.",
} as const;

async function withProject<T>(db: Db, ctx: RequestCtx, projectId: number, filters: ResponseFilter, fn: (tx: Tx, p: q.ProjectHead, f: ResolvedFilter) => Promise<T>): Promise<T> {
  return enterTenant(db, ctx, async (tx) => {
    const p = await q.project(tx, projectId);
    if (!p) throw new ApiError("NotFound", `No project ${projectId}`);
    return fn(tx, p, await resolveFilter(tx, filters));
  });
}

// ---- price sensitivity ----

export interface PriceResult {
  testOptionId: number | null;
  conceptText: string | null;
  n: number;
  invalid: number;
  pmc: number | null;
  pme: number | null;
  ipp: number | null;
  opp: number | null;
  acceptableRange: [number, number] | null;
  interpolation: "linear";
  trialOptimal: { price: number; trial: number; revenue: number } | null;
  revenueOptimal: { price: number; trial: number; revenue: number } | null;
  curves: PsmCurves | null;
}

export async function priceSensitivityResults(db: Db, ctx: RequestCtx, projectId: number, filters: ResponseFilter) {
  return withProject(db, ctx, projectId, filters, async (tx, p, f) => {
    const rows = await tx<{ testOptionId: number | null; w: number; tc: number | null; c: number | null; e: number | null; te: number | null; ic: number | null; ie: number | null }[]>`
      with s as (${sessionsSql(tx, p.id, f)})
      select r.test_option_id as "testOptionId", s.w,
             max(r.numeric_value) filter (where r.standard_question_id = 19)::float8 as tc,
             max(r.numeric_value) filter (where r.standard_question_id = 20)::float8 as c,
             max(r.numeric_value) filter (where r.standard_question_id = 21)::float8 as e,
             max(r.numeric_value) filter (where r.standard_question_id = 22)::float8 as te,
             max(r.purchase_intent) filter (where r.standard_question_id = 20)::int as ic,
             max(r.purchase_intent) filter (where r.standard_question_id = 21)::int as ie
      from responses r join s on s.sid = r.survey_session_id
      where r.project_id = ${p.id} and r.standard_question_id in (19, 20, 21, 22) and r.numeric_value is not null ${testOptionSql(tx, f, "r.test_option_id")}
      group by r.test_option_id, r.survey_session_id, s.w
      order by 1 nulls first`;
    const options = await q.testOptions(tx, p.id);
    const calibrations = await tx<{ testOptionId: number | null; c: number[] }[]>`
      select test_option_id as "testOptionId", purchase_intent_calibration::float8[] as c from project_price_sensitivities where project_id = ${p.id}`;
    const [currency] = await tx<{ code: string; symbol: string }[]>`
      select r.currency_code as code, r.currency_symbol as symbol from projects_regions pr join regions r on r.id = pr.region_id where pr.project_id = ${p.id} order by pr.region_id limit 1`;
    const groups = new Map<number | null, (typeof rows)[number][]>();
    for (const r of rows) (groups.get(r.testOptionId) ?? groups.set(r.testOptionId, []).get(r.testOptionId)!).push(r);
    const value: PriceResult[] = [];
    for (const [testOptionId, rs] of groups) {
      // A respondent missing one of the four prices cannot be placed on the curves: counted invalid.
      const complete = rs.filter((r) => r.tc !== null && r.c !== null && r.e !== null && r.te !== null);
      // Newton-Miller-Smith (1993) where the intents were asked, with the set-up's calibration.
      const cal = (calibrations.find((x) => x.testOptionId === testOptionId) ?? calibrations.find((x) => x.testOptionId === null))?.c;
      const res = vanWestendorp(
        complete.map((r) => ({ tooCheap: r.tc!, cheap: r.c!, expensive: r.e!, tooExpensive: r.te!, weight: r.w, intentCheap: r.ic, intentExpensive: r.ie })),
        { curves: true, ...(cal && isFive(cal) ? { calibration: cal } : {}) },
      );
      value.push({
        testOptionId,
        conceptText: options.find((o) => o.id === testOptionId)?.conceptText ?? null,
        n: res.n,
        invalid: res.invalid + (rs.length - complete.length),
        pmc: res.pmc,
        pme: res.pme,
        ipp: res.ipp,
        opp: res.opp,
        acceptableRange: res.pmc !== null && res.pme !== null ? [res.pmc, res.pme] : null,
        interpolation: res.interpolation,
        trialOptimal: res.nms?.trialOptimal ?? null,
        revenueOptimal: res.nms?.revenueOptimal ?? null,
        curves: res.curves ?? null,
      });
    }
    return { projectId: p.id, currencyCode: currency?.code ?? null, currencySymbol: currency?.symbol ?? null, tooltips: PRICE_TOOLTIPS, value };
  });
}

// ---- market reach (TURF) ----

export async function marketReachResults(db: Db, ctx: RequestCtx, projectId: number, filters: ResponseFilter, opts: { top?: number } = {}) {
  return withProject(db, ctx, projectId, filters, async (tx, p, f) => {
    const [setup] = await tx<{ id: number; reachDepth: number; maxCombinationSize: number; questionId: number | null; pqQuestionId: number | null }[]>`
      select m.id, m.reach_depth as "reachDepth", m.max_combination_size as "maxCombinationSize", m.question_id as "questionId",
             (select pq.question_id from project_questions pq where pq.id = m.project_question_id) as "pqQuestionId"
      from project_market_reach m where m.project_id = ${p.id}`;
    if (!setup) throw new ApiError("NotFound", `Project ${p.id} has no market reach set-up`);
    const items = await tx<{ optionId: number; name: string }[]>`
      select coalesce(o.answer_option_id, o.question_option_id) as "optionId", coalesce(t.concept_text, qo.option_text) as name
      from project_market_reach_options o
      left join test_options t on t.id = o.test_option_id
      left join question_options qo on qo.id = o.question_option_id
      where o.project_market_reach_id = ${setup.id} and coalesce(o.answer_option_id, o.question_option_id) is not null
        and not coalesce(qo.exclusive, false)
      order by o.sort_order, o.id`;
    const questionId = setup.questionId ?? setup.pqQuestionId;
    if (!questionId || !items.length) throw new ApiError("Conflict", `Project ${p.id}'s market reach has no items`);
    // Every filtered respondent is in the base: one who chose nothing, or "None of these" (never an
    // item), is reached by nothing (an inner join dropped them, and with no "none" option reach was
    // 100% by construction).
    const answers = await tx<{ sid: number; w: number; chosen: number[] }[]>`
      with s as (${sessionsSql(tx, p.id, f)})
      select s.sid, s.w, coalesce(array_agg(r.question_option_id) filter (where r.question_option_id is not null), '{}') as chosen
      from s left join responses r on r.survey_session_id = s.sid and r.project_id = ${p.id} and r.question_id = ${questionId}
      group by s.sid, s.w order by s.sid`;
    const acceptance = answers.map((a) => items.map((it) => a.chosen.includes(it.optionId)));
    const weights = answers.map((a) => a.w);
    const maxK = Math.min(setup.maxCombinationSize, items.length);
    const byK = [];
    for (let k = 1; k <= maxK && answers.length; k++) {
      const r = turf({ acceptance, weights }, { k, depth: setup.reachDepth, top: opts.top ?? 10 });
      byK.push({
        k,
        method: r.method,
        evaluated: r.evaluated,
        sets: r.sets.map((s) => ({ items: s.items.map((i) => items[i]!.name), optionIds: s.items.map((i) => items[i]!.optionId), reach: s.reach, frequency: s.frequency })),
      });
    }
    const single = answers.length ? turf({ acceptance, weights }, { k: 1, depth: 1, top: items.length }).itemReach : items.map(() => 0);
    return {
      projectId: p.id,
      respondents: answers.length,
      reachDepth: setup.reachDepth,
      items: items.map((it, i) => ({ optionId: it.optionId, name: it.name, reach: single[i] ?? 0 })),
      byK,
    };
  });
}

// ---- waves ----

export type WaveMeasure = Measure & {
  /** This option and measure against the previous wave (disjoint samples: independent), in the view's family. */
  vsPreviousWave: ({ wave: number } & ViewTest) | null;
};

export async function waveData(db: Db, ctx: RequestCtx, projectId: number, filters: ResponseFilter, confidence: Confidence = 95, adjust: Adjust = "bh") {
  return withProject(db, ctx, projectId, filters, async (tx, p, f) => {
    const npd = p.projectTypeId === 4;
    const waveSql = npd ? tx`s.week` : tx`coalesce((select min(ps.wave_number) from project_schedules ps where ps.survey_run_id = s.survey_run_id and ps.project_id = ${p.id}), 1)`;
    const rows = await tx<(q.ScaleRow & { wave: number })[]>`
      with s as (${sessionsSql(tx, p.id, f)}),
      sw as (select s.*, ${waveSql} as wave from s)
      select sw.wave, r.standard_question_id as "standardQuestionId", r.test_option_id as "testOptionId", r.standard_answer_value as value,
             count(*)::int as n, sum(sw.w)::float8 as "sumW", sum(sw.w * sw.w)::float8 as "sumW2"
      from responses r join sw on sw.sid = r.survey_session_id
      where r.project_id = ${p.id} and r.standard_question_id is not null and r.standard_answer_value is not null and sw.wave is not null
        ${testOptionSql(tx, f, "r.test_option_id")}
      group by 1, 2, 3, 4 order by 1, 2, 3, 4`;
    // The design's sums with (wave, test option) as the domain (results.sql.ts designCells, by wave).
    const cells = await tx<(q.DesignCell & { wa: number; wb: number })[]>`
      with s as (${sessionsSql(tx, p.id, f)}),
      sw as (select s.*, ${waveSql} as wave from s),
      y as (
        select r.survey_session_id as sid, sw.w, coalesce(sw.survey_run_id, 0) as run, sw.wave, r.standard_question_id as sq, r.test_option_id as o, max((r.standard_answer_value <= 2)::int) as y
        from responses r join sw on sw.sid = r.survey_session_id
        where r.project_id = ${p.id} and r.standard_question_id is not null and r.standard_answer_value is not null and sw.wave is not null
          ${testOptionSql(tx, f, "r.test_option_id")}
        group by 1, 2, 3, 4, 5, 6
      ),
      ${q.pairsPerRespondent(tx, { waves: true })}
      select g.run, g.sq as "standardQuestionId", a.wave as wa, a.o as a, b.wave as wb, b.o as b, count(*)::int as nn,
             sum(g.w * g.w * a.y * b.y)::float8 as aa, sum(g.w * g.w * a.y)::float8 as ab, sum(g.w * g.w)::float8 as bb,
             sum(g.w * a.y)::float8 as "sA", sum(g.w)::float8 as "sB"
      from g cross join lateral unnest(g.ws, g.os, g.ys) as a(wave, o, y) cross join lateral unnest(g.ws, g.os, g.ys) as b(wave, o, y)
      group by 1, 2, 3, 4, 5, 6 order by 1, 2, 3, 4 nulls first, 5, 6 nulls first`;
    const strata = await q.designStrata(tx, p.id);
    const dates = await tx<{ wave: number; from: string; to: string; count: number }[]>`
      with s as (${sessionsSql(tx, p.id, f)})
      select ${waveSql} as wave,
             min(s.completed_at)::date::text as from, max(s.completed_at)::date::text as to, count(*)::int as count
      from s group by 1 having ${npd ? tx`s.week` : tx`true`} is not null order by 1`;
    const titles = await q.standardQuestions(tx, null);
    const waves = [...new Set(rows.map((r) => r.wave))].sort((a, b) => a - b);
    const design = designByQuestion(
      cells,
      strata,
      (o, w) => ({ wave: w ?? 0, option: o }),
      (k) => `${k.wave}|${k.option}`,
    );
    const family: Family = [];
    const perWave = waves.map((w) => {
      const view = new Map([...design].map(([sq, d]) => [sq, { est: d.est, domains: d.domains.map((k) => (k.wave === w ? k.option : undefined)) }]));
      return designTopTwoBoxes(
        rows.filter((r) => r.wave === w),
        view,
        confidence,
        adjust,
        null,
        family,
      ).bySq;
    });
    // Wave on wave: each option and measure against the same in the previous wave.
    const withPrev = perWave.map((byQ, wi) => {
      const m = new Map<number, WaveMeasure[]>();
      for (const [sq, measures] of byQ) {
        m.set(
          sq,
          measures.map((x) => {
            const out: WaveMeasure = { ...x, vsPreviousWave: null };
            const d = design.get(sq);
            if (wi === 0 || !d) return out;
            const prev = waves[wi - 1]!;
            const ia = d.domains.findIndex((k) => k.wave === waves[wi] && k.option === x.testOptionId);
            const ib = d.domains.findIndex((k) => k.wave === prev && k.option === x.testOptionId);
            if (ia < 0 || ib < 0) return out;
            const c = contrast(d.est, ia, ib);
            // Below the low base on either wave's side: not tested (docs/statistics.md).
            const v = { wave: prev, ...viewTest(c, isSmallBase(d.est.domains[ia]!.nEff) || isSmallBase(d.est.domains[ib]!.nEff)) };
            out.vsPreviousWave = v;
            enterFamily(family, v);
            return out;
          }),
        );
      }
      return m;
    });
    const tests = adjustFamily(family, adjust, confidence);
    return {
      projectId: p.id,
      waveKind: npd ? ("weekSinceLaunch" as const) : ("wave" as const),
      confidence,
      method: statsMethod(adjust, tests),
      waves: waves.map((w, wi) => {
        const byQ = withPrev[wi]!;
        const d = dates.find((x) => x.wave === w);
        return {
          wave: w,
          from: d?.from ?? null,
          to: d?.to ?? null,
          respondents: d?.count ?? 0,
          measures: titles.filter((t) => byQ.has(t.id)).map((t) => ({ standardQuestionId: t.id, title: t.title, results: byQ.get(t.id)! })),
        };
      }),
    };
  });
}

/** A Newton-Miller-Smith calibration has five coefficients. */
function isFive(xs: number[]): xs is [number, number, number, number, number] {
  return xs.length === 5;
}
