// The results functions' fast path: an in-memory columnar copy of one project's complete
// respondents and their answers (typed arrays, answers grouped by respondent), kept per API
// process and keyed by project. The filter of SPEC 3 becomes a pass over the copy that marks the
// chosen respondents, and each aggregate a pass over their answers: no scan of the responses
// table per request. The figures are the same sums results.sql.ts computes in PostgreSQL (that
// SQL stays as the reference, and the path used when the cache is off); the equality is tested on
// random filters (tests/api/results-columnar.test.ts).
//
// Freshness: every change of a project's responses or respondents bumps its row of
// results_versions (migration 0029, statement triggers). A request reads the version in its own
// transaction with the project (results.sql.ts project()), and a copy of another version is
// reloaded, inside that transaction, so row-level security applies to the load as to any read.
// Tenancy: a copy is used only after the caller's own transaction has found the project; whoever
// can read a project can read all its responses (the tenant and shared_read policies of both tables
// are keyed on the same client and project), so the copy holds nothing the caller could not read.
import type { Tx } from "../../db/client.ts";
import type { ResolvedFilter } from "./filters.ts";
import type { CountRow, DesignCell, DesignStratum, OptionRow, ScaleRow, WeightRow } from "./results.sql.ts";

export interface ProjectColumns {
  projectId: number;
  version: string;
  bytes: number;
  /** Respondents (complete project survey sessions), ordered by survey session id. */
  n: number;
  sid: Int32Array;
  w: Float64Array;
  region: Int32Array;
  run: Int32Array;
  customer: Uint8Array;
  /** completed_at as days since 1970-01-01 in the session's time zone (as the SQL compares it); NO_DAY when unknown. */
  day: Int32Array;
  /** Index into weeks (NPD week or the week's Monday, as results.sql.ts labels it); -1 when unknown. */
  week: Int32Array;
  weeks: string[];
  /** Respondent i's answers are rows start[i] .. start[i + 1] - 1. */
  start: Int32Array;
  /** Per answer row: dense codes into the id lists below (0: none / null). */
  question: Int32Array;
  qOption: Int32Array;
  sysOption: Int32Array;
  testOption: Int32Array;
  /** Per answer row: the standard question id and answer value (0: none). */
  sq: Uint8Array;
  /** The largest standard question id + 1: the aggregates' slots per test option. */
  sqSlots: number;
  value: Uint8Array;
  questionIds: number[];
  qOptionIds: number[];
  /** Per dense question option code: 1 for a "not sure" option (not an answer to count). */
  qOptionNotSure: Uint8Array;
  sysOptionIds: number[];
  /** The system question of each dense system option code. */
  sysOptionQuestion: number[];
  testOptionIds: (number | null)[];
}

const NO_DAY = -2147483648;

// ---- the cache ----

let maxBytes = 256 * 2 ** 20;
const cache = new Map<number, ProjectColumns>();
let cachedBytes = 0;

/** The cache's budget in bytes (RESULTS_CACHE_MB); 0 turns the fast path off (SQL for every call). */
export function configureResultsCache(bytes: number): void {
  maxBytes = bytes;
  clearResultsCache();
}

export function resultsCacheEnabled(): boolean {
  return maxBytes > 0;
}

export function clearResultsCache(): void {
  cache.clear();
  cachedBytes = 0;
  answers.clear();
  answerBytes = 0;
}

export function resultsCacheStats() {
  return { projects: cache.size, bytes: cachedBytes, maxBytes };
}

/** The cached copy of the project at `version`, if there is one. */
export function cachedColumns(projectId: number, version: string): ProjectColumns | undefined {
  const hit = cache.get(projectId);
  if (!hit || hit.version !== version) return undefined;
  // Least recently used goes first: re-insert on use.
  cache.delete(projectId);
  cache.set(projectId, hit);
  return hit;
}

/** The project's columns at `version`, from the cache or loaded in the caller's transaction. */
export async function projectColumns(tx: Tx, projectId: number, version: string): Promise<ProjectColumns> {
  const fresh = cachedColumns(projectId, version);
  if (fresh) return fresh;
  const hit = cache.get(projectId);
  const cols = await loadColumns(tx, projectId, version);
  if (hit) {
    cache.delete(projectId);
    cachedBytes -= hit.bytes;
  }
  if (cols.bytes <= maxBytes) {
    for (const [id, old] of cache) {
      if (cachedBytes + cols.bytes <= maxBytes) break;
      cache.delete(id);
      cachedBytes -= old.bytes;
    }
    cache.set(projectId, cols);
    cachedBytes += cols.bytes;
  }
  return cols;
}

/** Dense codes for ids: code 0 stands for none (null / 0), the list holds each code's id. */
function encode(values: (number | null)[], withNull = false): { codes: Int32Array; ids: (number | null)[] } {
  const ids: (number | null)[] = [withNull ? null : 0];
  const index = new Map<number, number>();
  const codes = new Int32Array(values.length);
  for (let k = 0; k < values.length; k++) {
    const v = values[k];
    if (v === null || v === 0 || v === undefined) continue;
    let c = index.get(v);
    if (c === undefined) {
      c = ids.length;
      ids.push(v);
      index.set(v, c);
    }
    codes[k] = c;
  }
  return { codes, ids };
}

export async function loadColumns(tx: Tx, projectId: number, version: string): Promise<ProjectColumns> {
  // Both statements pipelined. Arrays, not rows: one value per column crosses the wire, and the aggregates of one select are
  // fed the same rows in the same order, so the arrays line up. No NULL inside an array: postgres.js
  // reads it as NaN (numbers) or "NULL" (text), so none is 0, and an unknown day or week a sentinel.
  const [[s], [r], [ns]] = await Promise.all([
    tx<{ sid: number[]; w: number[]; region: number[]; run: number[]; customer: number[]; day: number[]; week: string[] }[]>`
    select coalesce(array_agg(survey_session_id order by survey_session_id), '{}') as sid,
           coalesce(array_agg(weight order by survey_session_id), '{}') as w,
           coalesce(array_agg(region_id order by survey_session_id), '{}') as region,
           coalesce(array_agg(survey_run_id order by survey_session_id), '{}') as run,
           coalesce(array_agg(is_customer_panel::int order by survey_session_id), '{}') as customer,
           coalesce(array_agg(coalesce(completed_at::date - date '1970-01-01', ${NO_DAY}) order by survey_session_id), '{}') as day,
           coalesce(array_agg(coalesce(week::text, to_char(date_trunc('week', completed_at at time zone 'UTC'), 'YYYY-MM-DD'), '') order by survey_session_id), '{}') as week
    from project_survey_sessions where project_id = ${projectId} and status = 'Complete'`,
    tx<{ sid: number[]; question: number[]; qOption: number[]; sysQ: number[]; sysOption: number[]; testOption: number[]; sq: number[]; value: number[] }[]>`
    select coalesce(array_agg(r.survey_session_id), '{}') as sid, coalesce(array_agg(coalesce(r.question_id, 0)), '{}') as question,
           coalesce(array_agg(coalesce(r.question_option_id, 0)), '{}') as "qOption", coalesce(array_agg(coalesce(r.system_question_id, 0)), '{}') as "sysQ",
           coalesce(array_agg(coalesce(r.system_question_option_id, 0)), '{}') as "sysOption", coalesce(array_agg(coalesce(r.test_option_id, 0)), '{}') as "testOption",
           coalesce(array_agg(coalesce(r.standard_question_id, 0)), '{}') as sq, coalesce(array_agg(coalesce(r.standard_answer_value, 0)), '{}') as value
    from responses r join project_survey_sessions p on p.project_id = r.project_id and p.survey_session_id = r.survey_session_id
    where r.project_id = ${projectId} and p.status = 'Complete'`,
    tx<{ ids: number[] }[]>`select coalesce(array_agg(id), '{}') as ids from question_options where project_id = ${projectId} and is_not_sure`,
  ]);
  const n = s!.sid.length;
  const sid = Int32Array.from(s!.sid);
  const weeks: string[] = [];
  const weekIndex = new Map<string, number>();
  const week = new Int32Array(n);
  for (let i = 0; i < n; i++) {
    const label = s!.week[i]!;
    if (label === "") {
      week[i] = -1;
      continue;
    }
    let k = weekIndex.get(label);
    if (k === undefined) {
      k = weeks.length;
      weeks.push(label);
      weekIndex.set(label, k);
    }
    week[i] = k;
  }
  // Answers grouped by respondent (a counting sort on the respondent's index).
  const of = new Map<number, number>();
  for (let i = 0; i < n; i++) of.set(sid[i]!, i);
  const m = r!.sid.length;
  const owner = new Int32Array(m);
  const start = new Int32Array(n + 1);
  for (let k = 0; k < m; k++) {
    const i = of.get(r!.sid[k]!)!;
    owner[k] = i;
    start[i + 1]!++;
  }
  for (let i = 0; i < n; i++) start[i + 1]! += start[i]!;
  const at = start.slice(0, n);
  const order = new Int32Array(m);
  for (let k = 0; k < m; k++) order[at[owner[k]!]!++] = k;
  const permute = (xs: number[]) => {
    const out = new Array<number>(m);
    for (let k = 0; k < m; k++) out[k] = xs[order[k]!]!;
    return out;
  };
  const question = encode(permute(r!.question));
  const qOption = encode(permute(r!.qOption));
  const sysOptionValues = permute(r!.sysOption);
  const sysOption = encode(sysOptionValues);
  const sysQValues = permute(r!.sysQ);
  const sysOptionQuestion = new Array<number>(sysOption.ids.length).fill(0);
  for (let k = 0; k < m; k++) if (sysOption.codes[k]) sysOptionQuestion[sysOption.codes[k]!] = sysQValues[k]!;
  const testOption = encode(permute(r!.testOption), true);
  // Test option code 0 is "no test option" (SQL null).
  // Standard question ids (1-25) and answer values (1-4) are small: a byte each, checked.
  const sq = Uint8Array.from(permute(r!.sq));
  const value = Uint8Array.from(permute(r!.value));
  if (r!.sq.some((v) => v < 0 || v > 255) || r!.value.some((v) => v < 0 || v > 7)) {
    throw new RangeError(`project ${projectId}: a standard question id or answer value outside the columnar codes`);
  }
  const notSure = new Set(ns!.ids);
  const cols: ProjectColumns = {
    projectId,
    version,
    bytes: 0,
    n,
    sid,
    w: Float64Array.from(s!.w),
    region: Int32Array.from(s!.region),
    run: Int32Array.from(s!.run),
    customer: Uint8Array.from(s!.customer),
    day: Int32Array.from(s!.day),
    week,
    weeks,
    start,
    question: question.codes,
    qOption: qOption.codes,
    sysOption: sysOption.codes,
    testOption: testOption.codes,
    sq,
    sqSlots: sq.reduce((m, v) => Math.max(m, v), 0) + 1,
    value,
    questionIds: question.ids as number[],
    qOptionIds: qOption.ids as number[],
    qOptionNotSure: Uint8Array.from(qOption.ids, (id) => (id !== null && notSure.has(id) ? 1 : 0)),
    sysOptionIds: sysOption.ids as number[],
    sysOptionQuestion,
    testOptionIds: testOption.ids,
  };
  cols.bytes = n * (4 * 5 + 8 + 1) + (n + 1) * 4 + m * (4 * 4 + 2) + 64 * (weeks.length + question.ids.length + qOption.ids.length + sysOption.ids.length);
  return cols;
}

// ---- the filter ----

export interface Selection {
  /** 1 for each chosen respondent. */
  chosen: Uint8Array;
  /** Per dense test option code: 1 when per-option figures keep it (the filter's testOptionIds, or all). */
  keepOption: Uint8Array;
  /** The filter names test options: answers outside the test loop leave per-option figures too (SQL's null = any(...)). */
  filtered: boolean;
}

function dayOf(iso: string): number {
  return Math.floor(Date.parse(`${iso}T00:00:00Z`) / 86_400_000);
}

/** Whether the filter's question groups fit the bit masks (31 demographic, 15 question groups; the SQL takes the rest). */
export function fits(f: ResolvedFilter): boolean {
  return f.systemGroups.length <= 31 && f.questionGroups.length <= 15;
}

/** Bits per dense code: bit g set when the code's id is in group g. */
function groupBits(ids: (number | null)[], groups: number[][]): Uint32Array {
  const bits = new Uint32Array(ids.length);
  const where = new Map<number, number>();
  ids.forEach((id, code) => {
    if (id !== null) where.set(id, code);
  });
  groups.forEach((g, k) => {
    for (const id of g) {
      const code = where.get(id);
      if (code !== undefined && code > 0) bits[code]! |= 1 << k;
    }
  });
  return bits;
}

/**
 * The respondents SPEC 3's filter chooses, exactly as filters.ts sessionsSql does. Project group
 * segments' members are read from the database (they change without the responses changing).
 */
export async function select(tx: Tx, c: ProjectColumns, f: ResolvedFilter): Promise<Selection> {
  return choose(c, f, f.segmentIds ? await segmentMembers(tx, f.segmentIds) : null);
}

/** The survey sessions in any of these project group segments (read under the caller's row-level security). */
export async function segmentMembers(tx: Tx, segmentIds: number[]): Promise<Set<number>> {
  const rows = await tx<{ sid: number }[]>`
    select distinct survey_session_id as sid from project_group_segment_sessions where project_group_segment_id = any(${segmentIds}::int[])`;
  return new Set(rows.map((x) => x.sid));
}

/** The pure part of select(): the filter over the columns, given the segments' members. */
export function choose(c: ProjectColumns, f: ResolvedFilter, segment: Set<number> | null): Selection {
  if (!fits(f)) throw new RangeError("too many filter groups for the columnar path");
  const sysBits = groupBits(c.sysOptionIds, f.systemGroups);
  // Question option bits: one per group, and bit 15 for the excluded options.
  const qBits = groupBits(c.qOptionIds, f.questionGroups);
  const excluded = groupBits(c.qOptionIds, [f.exclude]);
  for (let k = 0; k < qBits.length; k++) if (excluded[k]) qBits[k]! |= 1 << 15;
  const keepOption = new Uint8Array(c.testOptionIds.length);
  const optionFilter = f.testOptionIds ? new Set(f.testOptionIds) : null;
  for (let k = 1; k < keepOption.length; k++) keepOption[k] = !optionFilter || optionFilter.has(c.testOptionIds[k]!) ? 1 : 0;
  const sysAll = f.systemGroups.length ? (2 ** f.systemGroups.length - 1) | 0 : 0;
  const qAll = f.questionGroups.length ? (1 << f.questionGroups.length) - 1 : 0;
  const regions = f.regionIds ? new Set(f.regionIds) : null;
  const runs = f.surveyIds ? new Set(f.surveyIds) : null;
  const from = f.from ? dayOf(f.from) : null;
  const to = f.to ? dayOf(f.to) : null;
  const customer = f.customerPanel === null ? -1 : f.customerPanel ? 1 : 0;
  const rowsNeeded = sysAll !== 0 || qAll !== 0 || f.exclude.length > 0 || optionFilter !== null;
  const chosen = new Uint8Array(c.n);
  for (let i = 0; i < c.n; i++) {
    if (regions && !regions.has(c.region[i]!)) continue;
    if (runs && !runs.has(c.run[i]!)) continue;
    if (customer >= 0 && c.customer[i] !== customer) continue;
    if (from !== null && (c.day[i] === NO_DAY || c.day[i]! < from)) continue;
    if (to !== null && (c.day[i] === NO_DAY || c.day[i]! > to)) continue;
    if (segment && !segment.has(c.sid[i]!)) continue;
    if (rowsNeeded) {
      let sys = 0;
      let q = 0;
      let sawOption = optionFilter === null;
      for (let k = c.start[i]!, end = c.start[i + 1]!; k < end; k++) {
        sys |= sysBits[c.sysOption[k]!]!;
        q |= qBits[c.qOption[k]!]!;
        if (!sawOption && c.testOption[k] !== 0 && keepOption[c.testOption[k]!]) sawOption = true;
      }
      if ((sys & sysAll) !== sysAll || (q & qAll) !== qAll || q & (1 << 15) || !sawOption) continue;
    }
    chosen[i] = 1;
  }
  return { chosen, keepOption, filtered: optionFilter !== null };
}

// ---- the aggregates (the row shapes and orders of results.sql.ts) ----

const nullsFirst = (a: number | null, b: number | null) => (a === b ? 0 : a === null ? -1 : b === null ? 1 : a - b);
const nullsLast = (a: number | null, b: number | null) => (a === b ? 0 : a === null ? 1 : b === null ? -1 : a - b);

/** results.sql.ts countsByOptionAndWeek: respondents per test option seen (or none) and week. */
export function countsByOptionAndWeek(c: ProjectColumns, sel: Selection): CountRow[] {
  const nOpt = c.testOptionIds.length;
  const nWeek = c.weeks.length + 1; // last slot: unknown week
  const count = new Float64Array(nOpt * nWeek);
  const weight = new Float64Array(nOpt * nWeek);
  const seen = new Uint8Array(nOpt);
  for (let i = 0; i < c.n; i++) {
    if (!sel.chosen[i]) continue;
    const wk = c.week[i]! < 0 ? nWeek - 1 : c.week[i]!;
    let any = false;
    seen.fill(0);
    for (let k = c.start[i]!, end = c.start[i + 1]!; k < end; k++) {
      const o = c.testOption[k]!;
      if (o === 0) continue;
      any = true;
      if (!sel.keepOption[o] || seen[o]) continue;
      seen[o] = 1;
      count[o * nWeek + wk]!++;
      weight[o * nWeek + wk]! += c.w[i]!;
    }
    if (!any) {
      count[wk]!++;
      weight[wk]! += c.w[i]!;
    }
  }
  const out: CountRow[] = [];
  for (let o = 0; o < nOpt; o++) {
    for (let wk = 0; wk < nWeek; wk++) {
      const x = o * nWeek + wk;
      if (count[x]) out.push({ testOptionId: c.testOptionIds[o]!, week: wk === nWeek - 1 ? null : c.weeks[wk]!, count: count[x]!, weight: weight[x]! });
    }
  }
  const weekOrder = (a: string | null, b: string | null) => (a === b ? 0 : a === null ? 1 : b === null ? -1 : a < b ? -1 : 1);
  return out.sort((a, b) => nullsFirst(a.testOptionId, b.testOptionId) || weekOrder(a.week, b.week));
}

/** results.sql.ts stdQuestionCounts: respondents who answered each standard question, per test option. */
export function stdQuestionCounts(c: ProjectColumns, sel: Selection) {
  const nOpt = c.testOptionIds.length;
  const S = c.sqSlots;
  const count = new Int32Array(nOpt * S);
  const last = new Int32Array(nOpt * S).fill(-1);
  for (let i = 0; i < c.n; i++) {
    if (!sel.chosen[i]) continue;
    for (let k = c.start[i]!, end = c.start[i + 1]!; k < end; k++) {
      const s = c.sq[k]!;
      const o = c.testOption[k]!;
      if (s === 0 || c.qOptionNotSure[c.qOption[k]!] || (o === 0 ? sel.filtered : !sel.keepOption[o])) continue;
      const x = o * S + s;
      if (last[x] === i) continue;
      last[x] = i;
      count[x]!++;
    }
  }
  const out: { testOptionId: number | null; standardQuestionId: number; count: number }[] = [];
  for (let o = 0; o < nOpt; o++) for (let s = 1; s < S; s++) if (count[o * S + s]) out.push({ testOptionId: c.testOptionIds[o]!, standardQuestionId: s, count: count[o * S + s]! });
  return out.sort((a, b) => nullsLast(a.testOptionId, b.testOptionId) || a.standardQuestionId - b.standardQuestionId);
}

/** results.sql.ts weightSums: count, Σw and Σw² per region. */
export function weightSums(c: ProjectColumns, sel: Selection): WeightRow[] {
  const by = new Map<number, WeightRow>();
  for (let i = 0; i < c.n; i++) {
    if (!sel.chosen[i]) continue;
    const region = c.region[i]!;
    const row = by.get(region) ?? by.set(region, { regionId: region, count: 0, sumW: 0, sumW2: 0 }).get(region)!;
    const w = c.w[i]!;
    row.count++;
    row.sumW += w;
    row.sumW2 += w * w;
  }
  return [...by.values()].sort((a, b) => a.regionId - b.regionId);
}

/** results.sql.ts scaleAnswers: n, Σw, Σw² per standard question, test option and answer value. */
export function scaleAnswers(c: ProjectColumns, sel: Selection, standardQuestionIds: number[] | null): ScaleRow[] {
  const nOpt = c.testOptionIds.length;
  const S = c.sqSlots;
  const wanted = new Uint8Array(256);
  if (standardQuestionIds) {
    for (const s of standardQuestionIds) if (s > 0 && s < 256) wanted[s] = 1;
  } else wanted.fill(1);
  // Cells: option x standard question x value (1..4 on the scale; 8 slots leave room).
  const size = nOpt * S * 8;
  const n = new Int32Array(size);
  const sumW = new Float64Array(size);
  const sumW2 = new Float64Array(size);
  for (let i = 0; i < c.n; i++) {
    if (!sel.chosen[i]) continue;
    const w = c.w[i]!;
    const w2 = w * w;
    for (let k = c.start[i]!, end = c.start[i + 1]!; k < end; k++) {
      const s = c.sq[k]!;
      const v = c.value[k]!;
      if (s === 0 || v === 0 || !wanted[s]) continue;
      const o = c.testOption[k]!;
      if (o === 0 ? sel.filtered : !sel.keepOption[o]) continue;
      const x = (o * S + s) * 8 + v;
      n[x]!++;
      sumW[x]! += w;
      sumW2[x]! += w2;
    }
  }
  const out: ScaleRow[] = [];
  for (let o = 0; o < nOpt; o++) {
    for (let s = 1; s < S; s++) {
      for (let v = 0; v < 8; v++) {
        const x = (o * S + s) * 8 + v;
        if (n[x]) out.push({ standardQuestionId: s, testOptionId: c.testOptionIds[o]!, value: v, n: n[x]!, sumW: sumW[x]!, sumW2: sumW2[x]! });
      }
    }
  }
  return out.sort((a, b) => a.standardQuestionId - b.standardQuestionId || nullsFirst(a.testOptionId, b.testOptionId) || a.value - b.value);
}

/** The selection as a string (which options count, and which respondents are chosen), made once per selection. */
const selectionKeys = new WeakMap<Selection, string>();
function selectionKey(sel: Selection): string {
  let key = selectionKeys.get(sel);
  if (key === undefined) {
    const bytes = (a: Uint8Array) => Buffer.from(a.buffer, a.byteOffset, a.byteLength).toString("latin1");
    key = `${sel.filtered ? 1 : 0}|${bytes(sel.keepOption)}|${bytes(sel.chosen)}`;
    selectionKeys.set(sel, key);
  }
  return key;
}

// ---- answers ----

/** The answers' budget (serialized bodies and their keys, in UTF-16 code units x 2). */
export const ANSWERS_MAX_BYTES = 16 * 2 ** 20;
const answers = new Map<string, string>();
let answerBytes = 0;

export interface AnswerMemo {
  get(key: string): string | undefined;
  set(key: string, body: string): void;
}

/**
 * A results function's serialized answer, remembered per project copy (its id and results
 * version), selection and `key` (the caller's options and every other input it reads: the norm's
 * rows, the measures' titles). An answer is a pure function of these: the same respondents of the
 * same copy with the same options and norm give the same bytes. A change of the project's
 * responses or weights is a new version (a new key), a change of a norm or of a title is a new
 * key; the superseded answers are never read again and leave by age. At most ANSWERS_MAX_BYTES
 * in all, least recently used first out. Strings: nothing a caller does to an answer changes the
 * next one.
 */
export function answerMemo(c: ProjectColumns, sel: Selection): AnswerMemo {
  const prefix = `${c.projectId}|${c.version}|${selectionKey(sel)}|`;
  return {
    get(key) {
      const k = prefix + key;
      const hit = answers.get(k);
      if (hit === undefined) return undefined;
      answers.delete(k);
      answers.set(k, hit);
      return hit;
    },
    set(key, body) {
      const k = prefix + key;
      const size = 2 * (k.length + body.length);
      if (!resultsCacheEnabled() || size > ANSWERS_MAX_BYTES) return;
      const old = answers.get(k);
      if (old !== undefined) {
        answers.delete(k);
        answerBytes -= 2 * (k.length + old.length);
      }
      for (const [ok, ov] of answers) {
        if (answerBytes + size <= ANSWERS_MAX_BYTES) break;
        answers.delete(ok);
        answerBytes -= 2 * (ok.length + ov.length);
      }
      answers.set(k, body);
      answerBytes += size;
    },
  };
}

/** How many answers are remembered, and their bytes (tests, metrics). */
export function answerStats() {
  return { answers: answers.size, bytes: answerBytes };
}

/** How many selections' design cells are kept per project copy (the newest). */
export const DESIGN_CELLS_KEPT = 16;
const designCellsSeen = new WeakMap<ProjectColumns, Map<string, DesignCell[]>>();

/**
 * designCells, remembered per project copy and selection: the same respondents and options of the
 * same copy give the same cells, so a filter asked again (a page reloaded, a teammate on the same
 * view, the filter sidebar's round trips) costs one lookup. A new copy (new results) is a new
 * WeakMap key: nothing outlives the data it was computed from. Callers only read the cells.
 */
export function designCellsMemo(c: ProjectColumns, sel: Selection, standardQuestionIds: number[] | null): DesignCell[] {
  const key = `${standardQuestionIds ? standardQuestionIds.join(",") : "*"}|${selectionKey(sel)}`;
  let memo = designCellsSeen.get(c);
  if (!memo) {
    memo = new Map();
    designCellsSeen.set(c, memo);
  }
  const hit = memo.get(key);
  if (hit) return hit;
  const cells = designCells(c, sel, standardQuestionIds);
  if (memo.size >= DESIGN_CELLS_KEPT) memo.delete(memo.keys().next().value!);
  memo.set(key, cells);
  return cells;
}

/** results.sql.ts designCells: the design-based variance's sums per market run, standard question and pair of test options. */
export function designCells(c: ProjectColumns, sel: Selection, standardQuestionIds: number[] | null): DesignCell[] {
  const wanted = new Uint8Array(256);
  if (standardQuestionIds) {
    for (const s of standardQuestionIds) if (s > 0 && s < 256) wanted[s] = 1;
  } else wanted.fill(1);
  // Cells by run, then by (question, option a, option b) as one number: no key string per
  // respondent and pair (that was most of a filtered QualResults' time).
  const O = Math.max(1, c.testOptionIds.length);
  const cells: DesignCell[] = [];
  const byRun = new Map<number, Map<number, DesignCell>>();
  const mine = new Map<number, Map<number, number>>(); // sq -> option code -> y (max)
  const spare: Map<number, number>[] = []; // the per-question maps, reused from respondent to respondent
  for (let i = 0; i < c.n; i++) {
    if (!sel.chosen[i]) continue;
    const w = c.w[i]!;
    mine.clear();
    let used = 0;
    for (let k = c.start[i]!, end = c.start[i + 1]!; k < end; k++) {
      const s = c.sq[k]!;
      const v = c.value[k]!;
      if (s === 0 || v === 0 || !wanted[s]) continue;
      const o = c.testOption[k]!;
      if (o === 0 ? sel.filtered : !sel.keepOption[o]) continue;
      let m = mine.get(s);
      if (!m) {
        spare[used] ??= new Map();
        m = spare[used];
        used++;
        m.clear();
        mine.set(s, m);
      }
      m.set(o, Math.max(m.get(o) ?? 0, v <= 2 ? 1 : 0));
    }
    if (!mine.size) continue;
    const run = c.run[i]!;
    let runCells = byRun.get(run);
    if (!runCells) {
      runCells = new Map();
      byRun.set(run, runCells);
    }
    for (const [s, m] of mine) {
      for (const [oa, ya] of m) {
        for (const [ob, yb] of m) {
          const key = (s * O + oa) * O + ob;
          let cell = runCells.get(key);
          if (!cell) {
            cell = { run, standardQuestionId: s, a: c.testOptionIds[oa]!, b: c.testOptionIds[ob]!, nn: 0, aa: 0, ab: 0, bb: 0, sA: 0, sB: 0 };
            runCells.set(key, cell);
            cells.push(cell);
          }
          cell.nn++;
          cell.aa += w * w * ya * yb;
          cell.ab += w * w * ya;
          cell.bb += w * w;
          cell.sA += w * ya;
          cell.sB += w;
        }
      }
    }
  }
  return cells.sort((x, y) => x.run - y.run || x.standardQuestionId - y.standardQuestionId || nullsFirst(x.a, y.a) || nullsFirst(x.b, y.b));
}

/** results.sql.ts designStrata: every complete respondent per market run. */
export function designStrata(c: ProjectColumns): DesignStratum[] {
  const m = new Map<number, DesignStratum>();
  for (let i = 0; i < c.n; i++) {
    const run = c.run[i]!;
    const h = m.get(run) ?? m.set(run, { run, regionId: c.region[i]!, n: 0, sumW: 0 }).get(run)!;
    h.regionId = Math.min(h.regionId, c.region[i]!);
    h.n++;
    h.sumW += c.w[i]!;
  }
  return [...m.values()].sort((a, b) => a.run - b.run);
}

/** results.sql.ts optionAnswers: a question's chosen options per test option, and its bases. */
export function optionAnswers(c: ProjectColumns, sel: Selection, questionId: number) {
  const qCode = c.questionIds.indexOf(questionId);
  const rows: OptionRow[] = [];
  const bases: { testOptionId: number | null; n: number; sumW: number; sumW2: number }[] = [];
  if (qCode <= 0) return { rows, bases };
  const nOpt = c.testOptionIds.length;
  const nChoice = c.qOptionIds.length;
  const n = new Int32Array(nOpt * nChoice);
  const sumW = new Float64Array(nOpt * nChoice);
  const base = new Float64Array(nOpt * 3);
  const last = new Int32Array(nOpt).fill(-1);
  for (let i = 0; i < c.n; i++) {
    if (!sel.chosen[i]) continue;
    const w = c.w[i]!;
    for (let k = c.start[i]!, end = c.start[i + 1]!; k < end; k++) {
      if (c.question[k] !== qCode) continue;
      const o = c.testOption[k]!;
      if (o === 0 ? sel.filtered : !sel.keepOption[o]) continue;
      if (last[o] !== i) {
        last[o] = i;
        base[o * 3]!++;
        base[o * 3 + 1]! += w;
        base[o * 3 + 2]! += w * w;
      }
      const choice = c.qOption[k]!;
      if (choice === 0) continue;
      n[o * nChoice + choice]!++;
      sumW[o * nChoice + choice]! += w;
    }
  }
  for (let o = 0; o < nOpt; o++) {
    if (base[o * 3]) bases.push({ testOptionId: c.testOptionIds[o]!, n: base[o * 3]!, sumW: base[o * 3 + 1]!, sumW2: base[o * 3 + 2]! });
    for (let ch = 1; ch < nChoice; ch++) {
      const x = o * nChoice + ch;
      if (n[x]) rows.push({ testOptionId: c.testOptionIds[o]!, questionOptionId: c.qOptionIds[ch]!, n: n[x]!, sumW: sumW[x]! });
    }
  }
  rows.sort((a, b) => nullsFirst(a.testOptionId, b.testOptionId) || a.questionOptionId - b.questionOptionId);
  bases.sort((a, b) => nullsFirst(a.testOptionId, b.testOptionId));
  return { rows, bases };
}

/** results.sql.ts demographics: n and Σw per system question option. */
export function demographics(c: ProjectColumns, sel: Selection) {
  const nSys = c.sysOptionIds.length;
  const n = new Int32Array(nSys);
  const sumW = new Float64Array(nSys);
  for (let i = 0; i < c.n; i++) {
    if (!sel.chosen[i]) continue;
    for (let k = c.start[i]!, end = c.start[i + 1]!; k < end; k++) {
      const o = c.sysOption[k]!;
      if (o === 0) continue;
      n[o]!++;
      sumW[o]! += c.w[i]!;
    }
  }
  const out: { systemQuestionId: number; optionId: number; n: number; sumW: number }[] = [];
  for (let o = 1; o < nSys; o++) if (n[o]) out.push({ systemQuestionId: c.sysOptionQuestion[o]!, optionId: c.sysOptionIds[o]!, n: n[o]!, sumW: sumW[o]! });
  return out.sort((a, b) => a.systemQuestionId - b.systemQuestionId || a.optionId - b.optionId);
}
