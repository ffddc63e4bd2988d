// Responses/CrossTab: a measure or question of the project (the stub: its rows) by a banner of columns (the
// options of demographics, of questions, the markets, saved filter sets), over the filtered
// respondents, with column-letter significance (analytics/crosstab.ts: design-based
// variance with market runs as strata, column pairs tested within each banner variable, one
// adjusted family per table). docs/statistics.md "Cross-tabs".
//
//   rows    measure:{standardQuestionId}   top-2-box per test option (rows = the options rated)
//           question:{projectQuestionId}   each answer's share of those who answered (per test
//                                          option asked, pooled: a unit is a respondent x option)
//   banner  demographic:{systemQuestionId}, question:{projectQuestionId}, market, segment:{segmentId}
//           (comma separated; every segment is one column of one "Filter sets" variable)
//
// Cost is bounded before any respondent is read: at most MAX_BANNER_VARIABLES variables and
// MAX_BANNER_COLUMNS columns, at most MAX_STUB_ROWS rows; every id is a parameter and is checked
// against the project (under the caller's tenant) before use.
import type { Db, Tx } from "../../db/client.ts";
import type { RequestCtx } from "../../access/principal.ts";
import { enterTenant } from "../../access/policy.ts";
import { ApiError, LOAD_RETRY_AFTER_SECONDS } from "../../errors.ts";
import { CLIENT_GONE } from "../../db/gate.ts";
import type { Confidence } from "@ideally/analytics/significance";
import { ADJUST_NAMES, type Adjust } from "@ideally/analytics/design";
import { crossTabPaced, XtabStopped, type XtabRespondent, type XtabResult, type XtabSpec } from "@ideally/analytics/crosstab";
import { SMALL_BASE } from "@ideally/analytics/significance";
import { resolveFilter, ResponseFilterSchema, sessionsSql, testOptionSql, type ResponseFilter } from "./filters.ts";
import * as q from "./results.sql.ts";
import { marketScale } from "./results.service.ts";

export const MAX_BANNER_VARIABLES = 8;
export const MAX_BANNER_COLUMNS = 60;
export const MAX_STUB_ROWS = 100;

export type StubSpec = { kind: "measure"; id: number } | { kind: "question"; id: number };
export type BannerSpec = { kind: "demographic"; id: number } | { kind: "question"; id: number } | { kind: "market" } | { kind: "segment"; id: number };

const bad = (path: string, message: string) => new ApiError("ValidationError", `${path}: ${message}`, undefined, [{ path, message }]);

/** `measure:5` or `question:123`. */
export function parseStub(raw: string | undefined): StubSpec {
  const m = /^(measure|question):(\d{1,9})$/.exec(raw ?? "");
  if (!m) throw bad("rows", "measure:{standardQuestionId} or question:{projectQuestionId}");
  return { kind: m[1] as "measure" | "question", id: Number(m[2]) };
}

/** A comma-separated banner; its length is checked before anything else is parsed. */
export function parseBanner(raw: string | undefined): BannerSpec[] {
  const items = (raw ?? "")
    .split(",")
    .map((s) => s.trim())
    .filter(Boolean);
  if (!items.length) throw bad("banner", "at least one of demographic:{id}, question:{id}, market, segment:{id}");
  const segments = items.filter((s) => s.startsWith("segment:")).length;
  const variables = items.length - segments + (segments ? 1 : 0);
  if (variables > MAX_BANNER_VARIABLES) throw bad("banner", `at most ${MAX_BANNER_VARIABLES} banner variables (got ${variables})`);
  if (segments > MAX_BANNER_COLUMNS) throw bad("banner", `at most ${MAX_BANNER_COLUMNS} columns`);
  const seen = new Set<string>();
  return items.map((s, i) => {
    if (seen.has(s)) throw bad(`banner.${i}`, `${s.slice(0, 40)} twice`);
    seen.add(s);
    if (s === "market") return { kind: "market" };
    const m = /^(demographic|question|segment):(\d{1,9})$/.exec(s);
    if (!m) throw bad(`banner.${i}`, "demographic:{systemQuestionId}, question:{projectQuestionId}, market or segment:{segmentId}");
    return { kind: m[1] as "demographic" | "question" | "segment", id: Number(m[2]) };
  });
}

export interface CrossTabColumn {
  key: string;
  /** The banner variable's key (null for the Total). */
  variable: string | null;
  label: string;
  /** A, B, ..; null for the Total. */
  letter: string | null;
}

export interface CrossTabCell {
  n: number;
  nEff: number;
  /** The weighted share, 0-1; null without respondents. */
  value: number | null;
  se: number | null;
  ci: [number, number] | null;
  smallBase: boolean;
  higherThan: string[];
}

export interface CrossTabResult {
  projectId: number;
  confidence: Confidence;
  /** Whose weights: `sample` every respondent at their own; `markets` the all-markets total (each market reweighted to its population share, as QualResults' total). */
  total: "sample" | "markets";
  stub: { kind: "measure" | "question"; id: number; title: string; value: string };
  banner: { key: string; label: string }[];
  columns: CrossTabColumn[];
  rows: { key: string; label: string; cells: CrossTabCell[] }[];
  method: {
    variance: "taylor-linearisation";
    strata: "market run";
    interval: "wilson";
    adjust: Adjust;
    adjustName: string;
    tests: number;
    smallBase: number;
    comparisons: string;
  };
}

interface Variable {
  key: string;
  label: string;
  columns: { key: string; label: string }[];
  /** Respondent (survey session) -> column indices within this variable. */
  members: Map<number, number[]>;
}

async function stubOf(tx: Tx, projectId: number, stub: StubSpec, s: ReturnType<typeof sessionsSql>, toSql: ReturnType<typeof testOptionSql>) {
  if (stub.kind === "measure") {
    const [sq] = await tx<{ id: number; title: string }[]>`
      select sq.id, sq.title from standard_questions sq
      where sq.id = ${stub.id} and sq.is_scaled and exists (select 1 from project_questions pq where pq.project_id = ${projectId} and pq.standard_question_id = sq.id and pq.deleted_at is null)`;
    if (!sq) throw bad("rows", `measure ${stub.id} is not a scaled measure of project ${projectId}`);
    const options = await q.testOptions(tx, projectId);
    const units = await tx<{ sid: number; o: number | null; y: number }[]>`
      with s as (${s})
      select r.survey_session_id as sid, r.test_option_id as o, max((r.standard_answer_value <= 2)::int) as y
      from responses r join s on s.sid = r.survey_session_id
      where r.project_id = ${projectId} and r.standard_question_id = ${stub.id} and r.standard_answer_value is not null ${toSql}
      group by 1, 2`;
    const present = new Set(units.map((u) => u.o));
    const rows = [
      ...(present.has(null) ? [{ key: "all", id: null as number | null, label: "All" }] : []),
      ...options.filter((o) => present.has(o.id)).map((o) => ({ key: `option:${o.id}`, id: o.id as number | null, label: o.conceptText })),
    ];
    const index = new Map(rows.map((r, i) => [r.id, i]));
    return { title: sq.title, value: "Top-2-box", rows, units: units.map((u) => ({ sid: u.sid, row: index.get(u.o)!, y: u.y })) };
  }
  const pq = await q.projectQuestion(tx, projectId, stub.id);
  if (!pq) throw bad("rows", `question ${stub.id} is not a question of project ${projectId}`);
  if (pq.standardQuestionId !== null) throw bad("rows", `question ${stub.id} is a standard measure: use measure:${pq.standardQuestionId}`);
  if (!pq.options.length) throw bad("rows", `question ${stub.id} has no options (an open or numeric question)`);
  if (pq.options.length > MAX_STUB_ROWS) throw bad("rows", `at most ${MAX_STUB_ROWS} rows`);
  const answers = await tx<{ sid: number; options: number[] }[]>`
    with s as (${s})
    select r.survey_session_id as sid, array_agg(r.question_option_id) as options
    from responses r join s on s.sid = r.survey_session_id
    where r.project_id = ${projectId} and r.question_id = ${pq.questionId} and r.question_option_id is not null ${toSql}
    group by r.survey_session_id, r.test_option_id`;
  return {
    title: pq.questionTitle || pq.questionText,
    value: "Share of those who answered",
    rows: pq.options.map((o) => ({ key: `option:${o.id}`, id: o.id as number | null, label: o.text })),
    units: answers.flatMap((a) => pq.options.map((o, i) => ({ sid: a.sid, row: i, y: a.options.includes(o.id) ? 1 : 0 }))),
  };
}

function group(rows: { sid: number; c: number }[]): Map<number, number[]> {
  const m = new Map<number, number[]>();
  for (const r of rows) (m.get(r.sid) ?? m.set(r.sid, []).get(r.sid)!).push(r.c);
  return m;
}

async function bannerOf(tx: Tx, projectId: number, banner: BannerSpec[], s: ReturnType<typeof sessionsSql>, regionFilter: number[] | null): Promise<Variable[]> {
  const out: Variable[] = [];
  const segments = banner.flatMap((b) => (b.kind === "segment" ? [b.id] : []));
  for (const [i, b] of banner.entries()) {
    if (b.kind === "segment") continue;
    if (b.kind === "market") {
      // The project's markets within the filter's.
      const regions = await tx<{ id: number; name: string }[]>`
        select r.id, r.region_name as name from projects_regions pr join regions r on r.id = pr.region_id
        where pr.project_id = ${projectId} ${regionFilter ? tx`and pr.region_id = any(${regionFilter}::int[])` : tx``} order by r.sort_order, r.id`;
      const index = new Map(regions.map((r, k) => [r.id, k]));
      const rows = await tx<{ sid: number; region: number }[]>`with s as (${s}) select sid, region_id as region from s`;
      out.push({
        key: "market",
        label: "Market",
        columns: regions.map((r) => ({ key: `market:${r.id}`, label: r.name })),
        members: group(rows.flatMap((r) => (index.has(r.region) ? [{ sid: r.sid, c: index.get(r.region)! }] : []))),
      });
    } else if (b.kind === "demographic") {
      const [sq] = await tx<{ label: string }[]>`select question_label as label from system_question where id = ${b.id}`;
      if (!sq) throw bad(`banner.${i}`, `no demographic ${b.id}`);
      const rows = await tx<{ sid: number; o: number; label: string; sort: number }[]>`
        with s as (${s})
        select r.survey_session_id as sid, o.id as o, o.answer_label as label, o.sort_order as sort
        from responses r join s on s.sid = r.survey_session_id join system_question_option o on o.id = r.system_question_option_id
        where r.project_id = ${projectId} and r.system_question_id = ${b.id}`;
      // Options of several markets with the same label are one column (e.g. "Female" in NZ and AU).
      const labels = [...new Map([...rows].sort((x, y) => x.sort - y.sort || x.o - y.o).map((r) => [r.label, r.label])).keys()];
      const index = new Map(labels.map((l, k) => [l, k]));
      out.push({
        key: `demographic:${b.id}`,
        label: sq.label,
        columns: labels.map((l) => ({ key: `demographic:${b.id}:${l}`, label: l })),
        members: group(rows.map((r) => ({ sid: r.sid, c: index.get(r.label)! }))),
      });
    } else {
      const pq = await q.projectQuestion(tx, projectId, b.id);
      if (!pq) throw bad(`banner.${i}`, `question ${b.id} is not a question of project ${projectId}`);
      if (!pq.options.length) throw bad(`banner.${i}`, `question ${b.id} has no options to make columns of`);
      const index = new Map(pq.options.map((o, k) => [o.id, k]));
      const rows = await tx<{ sid: number; o: number }[]>`
        with s as (${s})
        select distinct r.survey_session_id as sid, r.question_option_id as o from responses r join s on s.sid = r.survey_session_id
        where r.project_id = ${projectId} and r.question_id = ${pq.questionId} and r.question_option_id is not null`;
      out.push({
        key: `question:${b.id}`,
        label: pq.questionTitle || pq.questionText,
        columns: pq.options.map((o) => ({ key: `question:${b.id}:${o.id}`, label: o.text })),
        members: group(rows.flatMap((r) => (index.has(r.o) ? [{ sid: r.sid, c: index.get(r.o)! }] : []))),
      });
    }
  }
  if (segments.length) {
    const found = await tx<{ id: number; name: string; filters: unknown }[]>`
      select id, name, responses_filters as filters from segments where project_id = ${projectId} and id = any(${segments}::int[])`;
    const missing = segments.filter((id) => !found.some((f) => f.id === id));
    if (missing.length) throw bad("banner", `no filter set ${missing.join(", ")} in project ${projectId}`);
    const members: { sid: number; c: number }[] = [];
    const ordered = segments.map((id) => found.find((f) => f.id === id)!);
    for (const [k, seg] of ordered.entries()) {
      const parsed = ResponseFilterSchema.safeParse(seg.filters);
      if (!parsed.success) throw bad("banner", `filter set ${seg.id} holds a filter that is not valid`);
      const f = await resolveFilter(tx, parsed.data);
      const rows = await tx<{ sid: number }[]>`with s as (${s}), g as (${sessionsSql(tx, projectId, f)}) select s.sid from s join g on g.sid = s.sid`;
      for (const r of rows) members.push({ sid: r.sid, c: k });
    }
    out.push({ key: "segment", label: "Filter sets", columns: ordered.map((g) => ({ key: `segment:${g.id}`, label: g.name })), members: group(members) });
  }
  return out;
}

/**
 * The sums of a cross-tab give the event loop back every XTAB_SLICE_MS (200,000 respondents by the
 * widest banner took ~5 s of one core, during which the process answered no one else), and stop
 * at the request's statement timeout, or when its client goes away, like a statement would.
 */
export const XTAB_SLICE_MS = 10;

export async function pacedCrossTab(respondents: Iterable<XtabRespondent>, spec: XtabSpec, ctx: Pick<RequestCtx, "limits">, clock?: { now(): number; pause(): Promise<void> }): Promise<XtabResult> {
  const limitMs = ctx.limits?.statementTimeoutMs;
  const now = clock?.now ?? (() => performance.now());
  try {
    return await crossTabPaced(respondents, spec, { sliceMs: XTAB_SLICE_MS, deadline: limitMs ? now() + limitMs : undefined, signal: ctx.limits?.signal, now, pause: clock?.pause });
  } catch (e) {
    if (!(e instanceof XtabStopped)) throw e;
    if (e.reason === "aborted") throw Object.assign(new Error("the client went away"), { code: CLIENT_GONE });
    throw new ApiError(
      "ServiceUnavailable",
      `The cross-tab ran longer than the ${limitMs! / 1000} s limit and was stopped: narrow it (fewer stub rows, fewer banner variables or a tighter filter) and try again`,
      undefined,
      undefined,
      LOAD_RETRY_AFTER_SECONDS,
    );
  }
}

export async function crossTabResults(
  db: Db,
  ctx: RequestCtx,
  input: { projectId: number; filters: ResponseFilter; rows: StubSpec; banner: BannerSpec[]; confidence?: Confidence; adjust?: Adjust; total?: "sample" | "markets" },
): Promise<CrossTabResult> {
  const confidence = input.confidence ?? 95;
  const adjust = input.adjust ?? "bh";
  // The reads run in the tenant transaction; the sums run after it, off the connection.
  const read = await enterTenant(db, ctx, async (tx) => {
    const p = await q.project(tx, input.projectId);
    if (!p) throw new ApiError("NotFound", `No project ${input.projectId}`);
    const f = await resolveFilter(tx, input.filters);
    const s = sessionsSql(tx, p.id, f);
    const stub = await stubOf(tx, p.id, input.rows, s, testOptionSql(tx, f, "r.test_option_id"));
    const variables = await bannerOf(tx, p.id, input.banner, s, f.regionIds);
    const C = variables.reduce((a, v) => a + v.columns.length, 0);
    if (C > MAX_BANNER_COLUMNS) throw bad("banner", `at most ${MAX_BANNER_COLUMNS} columns (these variables have ${C})`);
    const respondents = await tx<{ sid: number; run: number; w: number }[]>`with s as (${s}) select sid, coalesce(survey_run_id, 0) as run, w from s`;
    const runs = await q.designStrata(tx, p.id);
    const strata = new Map(runs.map((h) => [String(h.run), h.n]));
    // total=markets: each market's respondents reweighted as QualResults' all-markets total (marketScale).
    const scale = input.total === "markets" ? marketScale(runs, "population").scale : null;
    // Column offsets of each variable in the banner.
    const offsets: number[] = [];
    variables.reduce((a, v) => {
      offsets.push(a);
      return a + v.columns.length;
    }, 0);
    const unitsOf = new Map<number, { row: number; y: number }[]>();
    for (const u of stub.units) (unitsOf.get(u.sid) ?? unitsOf.set(u.sid, []).get(u.sid)!).push({ row: u.row, y: u.y });
    return { p, stub, variables, respondents, strata, scale, offsets, unitsOf };
  });
  const { p, stub, variables, respondents, strata, scale, offsets, unitsOf } = read;
  // Each respondent is made as the sums reach them, so that work is paced too.
  function* input2(): Generator<XtabRespondent> {
    for (const r of respondents)
      yield {
        stratum: String(r.run),
        weight: r.w * (scale?.get(r.run) ?? 1),
        columns: variables.flatMap((v, k) => (v.members.get(r.sid) ?? []).map((c) => offsets[k]! + c)),
        units: unitsOf.get(r.sid) ?? [],
      };
  }
  const groups = variables.map((v, k) => v.columns.map((_, c) => offsets[k]! + c));
  const x = await pacedCrossTab(input2(), { rows: stub.rows.length, groups, strata, confidence, adjust }, ctx);
  const columns: CrossTabColumn[] = [
    { key: "total", variable: null, label: "Total", letter: null },
    ...variables.flatMap((v, k) => v.columns.map((c, i) => ({ key: c.key, variable: v.key, label: c.label, letter: x.letters[offsets[k]! + i]! }))),
  ];
  return {
    projectId: p.id,
    confidence,
    total: input.total ?? "sample",
    stub: { kind: input.rows.kind, id: input.rows.id, title: stub.title, value: stub.value },
    banner: variables.map((v) => ({ key: v.key, label: v.label })),
    columns,
    rows: stub.rows.map((r, i) => ({
      key: r.key,
      label: r.label,
      cells: x.cells[i]!.map((c) => ({
        n: c.n,
        nEff: c.nEff,
        value: c.n > 0 ? c.value : null,
        se: c.n > 0 ? c.se : null,
        ci: c.n > 0 && Number.isFinite(c.ci[0]) ? c.ci : null,
        smallBase: c.smallBase,
        higherThan: c.higherThan,
      })),
    })),
    method: {
      variance: "taylor-linearisation",
      strata: "market run",
      interval: "wilson",
      adjust,
      adjustName: ADJUST_NAMES[adjust],
      tests: x.tests.filter((t) => Number.isFinite(t.p)).length,
      smallBase: SMALL_BASE,
      comparisons: "every pair of columns within each banner variable, on every row; a letter marks a column of the same variable significantly lower",
    },
  };
}
