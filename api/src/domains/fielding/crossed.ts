// Crossed (interlocked) quota cells (docs/decisions/0128-crossed-quota-cells.md): two demographic
// questions of a market crossed, each pair of answers a cell with its share of the market's
// completes. The cells of one crossing add up to 100%; a respondent whose pair is no cell screens
// out and a full cell is over quota (engine.ts). The targets of the two questions still say who
// qualifies, so every cell lies within them, and a crossed question takes no quota of its own in
// that market (the cells decide its shares). Set by ChangeTargets (crossedQuotas), checked there and
// at Submit with the one-question quotas (quotas.ts).
import type postgres from "postgres";
import type { Tx } from "../../db/client.ts";
import type { FieldError } from "../../errors.ts";
import { hundredths, pct, type QuotaProblem, type QuotaTarget } from "./quota-shares.ts";

type Fragment = postgres.PendingQuery<postgres.Row[]>;

export interface CrossedCell {
  regionId: number;
  /** The question with the lower id, and its answer. */
  firstQuestionId: number;
  firstOptionId: number;
  secondQuestionId: number;
  secondOptionId: number;
  firstQuestion: string;
  secondQuestion: string;
  firstLabel: string;
  secondLabel: string;
  quotaPercent: number;
}

/** A crossing of a market: its two questions' group keys (s{id}, the lower id first) and its cells. */
export interface Crossing {
  regionId: number;
  key: string;
  name: string;
  firstQuestionId: number;
  secondQuestionId: number;
  cells: CrossedCell[];
}

/** "s45&s51": a crossing's key, the group keys of its questions, the lower question id first. */
export const crossingKey = (firstQuestionId: number, secondQuestionId: number) => `s${firstQuestionId}&s${secondQuestionId}`;
export const cellLabel = (c: Pick<CrossedCell, "firstLabel" | "secondLabel">) => `${c.firstLabel} × ${c.secondLabel}`;

/** The crossings of a project's cells in one market, in the order their first cells come. */
export function crossingsIn(cells: readonly CrossedCell[], regionId: number): Crossing[] {
  const out = new Map<string, Crossing>();
  for (const c of cells) {
    if (c.regionId !== regionId) continue;
    const key = crossingKey(c.firstQuestionId, c.secondQuestionId);
    const x = out.get(key) ?? { regionId, key, name: `${c.firstQuestion} × ${c.secondQuestion}`, firstQuestionId: c.firstQuestionId, secondQuestionId: c.secondQuestionId, cells: [] };
    x.cells.push(c);
    out.set(key, x);
  }
  return [...out.values()];
}

const list = (xs: string[]) => (xs.length <= 1 ? (xs[0] ?? "") : `${xs.slice(0, -1).join(", ")} and ${xs[xs.length - 1]}`);

/** The problems of one crossing in a market: shares not adding up to 100%, a cell outside the targets, a crossed question with quotas of its own. */
function crossingProblems(x: Crossing, all: readonly Crossing[], targets: readonly QuotaTarget[], regionName: string): string[] {
  const out: string[] = [];
  const sum = x.cells.reduce((s, c) => s + hundredths(c.quotaPercent), 0);
  if (sum !== 10000) out.push(`The crossed cells of ${x.name} add up to ${pct(sum)} in ${regionName}: they must add up to 100%, or the run can never fill`);
  const sides = [
    { questionId: x.firstQuestionId, name: x.cells[0]!.firstQuestion, other: x.cells[0]!.secondQuestion, option: (c: CrossedCell) => c.firstOptionId },
    { questionId: x.secondQuestionId, name: x.cells[0]!.secondQuestion, other: x.cells[0]!.firstQuestion, option: (c: CrossedCell) => c.secondOptionId },
  ];
  for (const side of sides) {
    const group = targets.filter((t) => t.groupKey === `s${side.questionId}`);
    if (group.some((t) => t.quotaPercent !== null)) {
      out.push(`${side.name} has quotas of its own in ${regionName} and is crossed with ${side.other} there: set its shares in the crossed cells only`);
    }
    const twice = all.find((y) => y !== x && (y.firstQuestionId === side.questionId || y.secondQuestionId === side.questionId));
    if (twice && x.key < twice.key) out.push(`${side.name} is crossed twice in ${regionName} (${x.name} and ${twice.name}): a question is crossed with one other at most`);
    if (!group.length) continue; // no targets: every answer qualifies
    const admitted = new Set(group.map((t) => t.optionId));
    const outside = x.cells.find((c) => !admitted.has(side.option(c)));
    if (outside) {
      out.push(`The crossed cell ${cellLabel(outside)} in ${regionName} is one no target admits: the targets of ${side.name} take only ${list(group.map((t) => t.optionLabel))} there`);
    }
  }
  return out;
}

/** Every crossing's problems, per market (QuotaProblem's groupKey is the crossing's key). */
export function crossedProblems(cells: readonly CrossedCell[], targets: readonly QuotaTarget[], regions: readonly { regionId: number; regionName: string }[]): QuotaProblem[] {
  const out: QuotaProblem[] = [];
  for (const r of regions) {
    const here = targets.filter((t) => (t.regionId === null || t.regionId === r.regionId) && (t.optionRegionId === null || t.optionRegionId === r.regionId));
    const crossings = crossingsIn(cells, r.regionId);
    for (const x of crossings) {
      for (const message of crossingProblems(x, crossings, here, r.regionName)) out.push({ groupKey: x.key, groupName: x.name, regionId: r.regionId, message });
    }
  }
  return out;
}

/** The cells of `source` (rows of crossed_quota_cells' columns, as c) with their questions and answers named, in the question order. */
function namedCells(tx: Tx, source: Fragment, where: Fragment): Promise<CrossedCell[]> {
  return tx<CrossedCell[]>`
    select c.region_id as "regionId", o1.system_question_id as "firstQuestionId", c.first_option_id as "firstOptionId",
           o2.system_question_id as "secondQuestionId", c.second_option_id as "secondOptionId",
           q1.question_label as "firstQuestion", q2.question_label as "secondQuestion",
           o1.answer_label as "firstLabel", o2.answer_label as "secondLabel", c.quota_percent::float8 as "quotaPercent"
    from ${source} c
    join system_question_option o1 on o1.id = c.first_option_id
    join system_question_option o2 on o2.id = c.second_option_id
    join system_question q1 on q1.id = o1.system_question_id
    join system_question q2 on q2.id = o2.system_question_id
    ${where}
    order by c.region_id, o1.system_question_id, o2.system_question_id, o1.sort_order, o1.id, o2.sort_order, o2.id`;
}

export async function loadCrossedCells(tx: Tx, projectId: number, regionId?: number): Promise<CrossedCell[]> {
  return namedCells(tx, tx`crossed_quota_cells`, tx`where c.project_id = ${projectId} ${regionId === undefined ? tx`` : tx`and c.region_id = ${regionId}`}`);
}

/**
 * Cells not saved anywhere (checkCrossedInput's rows: FeasibilityEstimate), named and ordered as
 * loadCrossedCells reads the stored ones, so the estimate and its explanation are the same.
 */
export async function crossedCellsOf(tx: Tx, rows: readonly CrossedInput[]): Promise<CrossedCell[]> {
  if (!rows.length) return [];
  const source = tx`unnest(${rows.map((c) => c.regionId)}::int[], ${rows.map((c) => c.systemQuestionOptionIds[0]!)}::int[],
    ${rows.map((c) => c.systemQuestionOptionIds[1]!)}::int[], ${rows.map((c) => c.quotaPercent)}::numeric(5, 2)[]) as u(region_id, first_option_id, second_option_id, quota_percent)`;
  return namedCells(tx, tx`(select * from ${source})`, tx``);
}

export interface CrossedInput {
  regionId: number;
  systemQuestionOptionIds: number[];
  quotaPercent: number;
}

interface OptionRow {
  id: number;
  systemQuestionId: number;
  regionId: number | null;
  label: string;
  question: string;
}

/**
 * ChangeTargets' crossedQuotas checked against the reference data and the project's markets: each
 * cell's market, its two answers (known, of the market, of two different questions), once. Answers
 * the rows to store (the lower question's answer first) or the field errors.
 */
export async function checkCrossedInput(
  tx: Tx,
  input: readonly CrossedInput[],
  regionIds: readonly number[],
  /** Whose regions the messages name: the project's (ChangeTargets) or the settings' (FeasibilityEstimate). */
  whose = "the project's",
): Promise<{ rows: CrossedInput[]; errors: FieldError[] }> {
  const ids = [...new Set(input.flatMap((c) => c.systemQuestionOptionIds))];
  const names = new Map((await tx<{ id: number; name: string }[]>`select id, region_name as name from regions where id = any(${[...regionIds]}::int[])`).map((r) => [r.id, r.name]));
  const regionName = (id: number) => names.get(id) ?? `region ${id}`;
  const opts = new Map(
    (
      await tx<OptionRow[]>`
        select o.id, o.system_question_id as "systemQuestionId", o.region_id as "regionId", o.answer_label as label, q.question_label as question
        from system_question_option o join system_question q on q.id = o.system_question_id where o.id = any(${ids}::int[])`
    ).map((o) => [o.id, o]),
  );
  const errors: FieldError[] = [];
  const rows: CrossedInput[] = [];
  const seen = new Set<string>();
  for (const [i, c] of input.entries()) {
    const at = (field: string, message: string) => errors.push({ path: `crossedQuotas.${i}${field ? `.${field}` : ""}`, message });
    if (!regionIds.includes(c.regionId)) {
      at("regionId", `Region ${c.regionId} is not one of ${whose} regions`);
      continue;
    }
    const found = c.systemQuestionOptionIds.map((id) => opts.get(id));
    const missing = found.findIndex((o) => !o);
    if (missing >= 0) {
      at(`systemQuestionOptionIds.${missing}`, `No system question option ${c.systemQuestionOptionIds[missing]}`);
      continue;
    }
    const [a, b] = found as [OptionRow, OptionRow];
    const foreign = [a, b].findIndex((o) => o.regionId !== null && o.regionId !== c.regionId);
    if (foreign >= 0) {
      at(`systemQuestionOptionIds.${foreign}`, `Option ${[a, b][foreign]!.id} belongs to region ${[a, b][foreign]!.regionId}, not ${c.regionId}`);
      continue;
    }
    if (a.systemQuestionId === b.systemQuestionId) {
      at("systemQuestionOptionIds", `A crossed cell pairs answers of two different questions: ${a.label} and ${b.label} both answer ${a.question}`);
      continue;
    }
    const [first, second] = a.systemQuestionId < b.systemQuestionId ? [a, b] : [b, a];
    const k = `${c.regionId}:${first.id}:${second.id}`;
    if (seen.has(k)) {
      at("", `The same crossed cell twice: ${first.label} × ${second.label} in ${regionName(c.regionId)}`);
      continue;
    }
    seen.add(k);
    rows.push({ regionId: c.regionId, systemQuestionOptionIds: [first.id, second.id], quotaPercent: c.quotaPercent });
  }
  return { rows, errors };
}

export async function replaceCrossedCells(tx: Tx, clientId: number, projectId: number, rows: readonly CrossedInput[]): Promise<void> {
  await tx`delete from crossed_quota_cells where project_id = ${projectId}`;
  for (const c of rows) {
    await tx`
      insert into crossed_quota_cells (client_id, project_id, region_id, first_option_id, second_option_id, quota_percent)
      values (${clientId}, ${projectId}, ${c.regionId}, ${c.systemQuestionOptionIds[0]!}, ${c.systemQuestionOptionIds[1]!}, ${c.quotaPercent})`;
  }
}
