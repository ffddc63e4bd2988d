// The questionnaire snapshot a survey run asks (CreateDecipherSurveys): built from the project as
// it is when the run is created, so later edits never change a live survey.
import type { Tx } from "../../db/client.ts";
import { ApiError } from "../../errors.ts";
import type { DefCrossing, DefQuestion, DefTarget, QuestionType, SurveyDefinition } from "./engine.ts";
import * as q from "./fielding.sql.ts";
import { cellCap } from "./quotas.ts";
import { crossingsIn, loadCrossedCells, type CrossedCell } from "./crossed.ts";

const TYPE: Record<number, QuestionType> = { 1: "single", 2: "multiple", 3: "text", 4: "dropdown" };
/** Positions (SPEC 3): Audience 1, 4, 7; Test 8, 2 and the framework's 5; Follow-up 3, Custom 6, 9-12. */
const SCREENER = [1, 4, 7];
const LOOP = [8, 2, 5];
export const PRICE_QUESTIONS = new Set([19, 20, 21, 22]);

export async function buildDefinition(tx: Tx, run: { id: number; regionId: number; isCustomerPanel: boolean; targetCompletes: number }, projectId: number): Promise<SurveyDefinition> {
  const p = await q.projectForDef(tx, projectId);
  if (!p) throw new ApiError("NotFound", `No project ${projectId}`);
  const region = await q.region(tx, run.regionId);
  if (!region) throw new ApiError("NotFound", `No region ${run.regionId}`);
  const options = await q.testOptions(tx, projectId);
  const reach = new Map((await q.marketReachOptions(tx, projectId)).map((r) => [r.answerOptionId, r.testOptionId]));

  const demographics: DefQuestion[] = (await q.systemQuestions(tx, run.regionId)).map((s) => ({
    key: `s${s.id}`,
    systemQuestionId: s.id,
    projectQuestionId: null,
    questionId: null,
    standardQuestionId: null,
    positionId: null,
    testOptionId: null,
    type: "single",
    title: s.questionLabel,
    text: s.questionText,
    options: s.options.map((o) => ({ id: o.id, text: o.text, exclusive: false, isNotSure: false, standardAnswerValue: null })),
    minChoices: null,
    maxChoices: null,
  }));

  const screener: DefQuestion[] = [];
  const loop: DefQuestion[] = [];
  const followUps: DefQuestion[] = [];
  for (const r of await q.projectQuestions(tx, projectId)) {
    const price = r.standardQuestionId !== null && PRICE_QUESTIONS.has(r.standardQuestionId);
    const question: DefQuestion = {
      key: `q${r.id}`,
      systemQuestionId: null,
      projectQuestionId: r.id,
      questionId: r.questionId,
      standardQuestionId: r.standardQuestionId,
      positionId: r.positionId,
      testOptionId: r.testOptionId,
      type: price ? "price" : (TYPE[r.questionTypeId] ?? "single"),
      title: r.title ?? "",
      text: r.text,
      options: r.options.map((o) => ({ ...o, testOptionId: reach.get(o.id) ?? null })),
      minChoices: r.minChoices,
      maxChoices: r.maxChoices,
    };
    if (!price && question.type !== "text" && !question.options.length) continue; // nothing to choose from
    if (SCREENER.includes(r.positionId)) screener.push(question);
    else if (LOOP.includes(r.positionId) || price) loop.push(question);
    else followUps.push(question);
  }

  // Targets: per system question (or screener question), the options that qualify, with quotas.
  const targets = new Map<string, DefTarget>();
  for (const t of await q.targets(tx, projectId, run.regionId)) {
    const key = t.systemQuestionId !== null ? `s${t.systemQuestionId}` : screener.find((s) => s.questionId === t.questionId)?.key;
    if (!key) continue; // a target on a question the survey does not ask cannot screen
    const target = targets.get(key) ?? { key, optionIds: [], quotas: {}, shares: {}, onlyThese: false, othersQuota: null };
    target.optionIds.push(t.optionId);
    if (t.quotaPercent !== null) {
      target.quotas[t.optionId] = cellCap(run.targetCompletes, t.quotaPercent);
      target.shares![t.optionId] = t.quotaPercent;
    }
    if (t.onlyThese) target.onlyThese = true;
    targets.set(key, target);
  }
  // A group with quotas leaves the rest of the completes to its other answers (unless only these).
  for (const t of targets.values()) {
    const capped = Object.values(t.quotas);
    if (!capped.length || t.onlyThese) continue;
    t.othersQuota = Math.max(0, run.targetCompletes - capped.reduce((a, b) => a + b, 0));
  }

  const crossed = crossingsOf(await loadCrossedCells(tx, projectId, run.regionId), demographics, run.targetCompletes);

  const priceRange: SurveyDefinition["priceRange"] = {};
  const purchaseIntent: number[] = [];
  for (const r of await q.priceRanges(tx, projectId)) {
    for (const o of r.testOptionId === null ? options : options.filter((x) => x.id === r.testOptionId)) {
      priceRange[o.id] = { min: r.min, max: r.max };
      if (r.purchaseIntent) purchaseIntent.push(o.id);
    }
  }

  return {
    version: 1,
    surveyRunId: run.id,
    projectId,
    projectName: p.projectName,
    projectTypeId: p.projectTypeId,
    regionId: run.regionId,
    regionName: region.regionName,
    currencyCode: region.currencyCode,
    currencySymbol: region.currencySymbol,
    isCustomerPanel: run.isCustomerPanel,
    targetCompletes: run.targetCompletes,
    // splitCellQuota: each respondent sees one test option, cells filled evenly (monadic).
    design: p.splitCellQuota ? "monadic" : "sequential",
    testOptions: options,
    demographics,
    screener,
    loop,
    followUps,
    targets: [...targets.values()],
    crossed,
    priceRange,
    purchaseIntent,
    translations: Object.fromEntries((await q.translations(tx, run.regionId)).map((t) => [t.sourceText, t.translatedText])),
  };
}

/**
 * The market's crossings as the engine reads them: keys in code-unit order (quotaCounts' pairs),
 * each cell's answers in that order and its cap in a run of `completes`. A crossing of a question
 * the survey does not ask cannot screen and is left out.
 */
function crossingsOf(cells: readonly CrossedCell[], demographics: readonly DefQuestion[], completes: number): DefCrossing[] {
  const regionId = cells[0]?.regionId;
  if (regionId === undefined) return [];
  return crossingsIn(cells, regionId).flatMap((x) => {
    const first = `s${x.firstQuestionId}`;
    const second = `s${x.secondQuestionId}`;
    if (!demographics.some((q) => q.key === first) || !demographics.some((q) => q.key === second)) return [];
    const flip = second < first;
    return [
      {
        keys: flip ? [second, first] : [first, second],
        cells: x.cells.map((c) => ({
          optionIds: flip ? [c.secondOptionId, c.firstOptionId] : [c.firstOptionId, c.secondOptionId],
          cap: cellCap(completes, c.quotaPercent),
          share: c.quotaPercent,
        })),
      },
    ];
  });
}

/**
 * The snapshot for a changed order (staff changing the run's completes): every cap worked again
 * from its share of the new completes (cellCap), and each group's rest (othersQuota) with them, so
 * the survey and the Samplify line item ask for the new order's quotas rather than the old one's. A
 * snapshot taken before shares were kept takes each cap's share as cap / old completes (exact for
 * caps that were a whole share; rounded up by at most one complete otherwise).
 */
export function withCompletes(def: SurveyDefinition, completes: number): SurveyDefinition {
  const shareOf = (cap: number, share: number | undefined) => share ?? (cap * 100) / def.targetCompletes;
  const targets = def.targets.map((t) => {
    const ids = Object.keys(t.quotas);
    if (!ids.length) return t;
    const quotas = Object.fromEntries(ids.map((id) => [id, cellCap(completes, shareOf(t.quotas[id]!, t.shares?.[id]))]));
    const capped = Object.values(quotas).reduce((a, b) => a + b, 0);
    return { ...t, quotas, othersQuota: t.othersQuota == null ? t.othersQuota : Math.max(0, completes - capped) };
  });
  const crossed = def.crossed?.map((x) => ({ ...x, cells: x.cells.map((c) => ({ ...c, cap: cellCap(completes, shareOf(c.cap, c.share)) })) }));
  return { ...def, targetCompletes: completes, targets, ...(crossed ? { crossed } : {}) };
}
