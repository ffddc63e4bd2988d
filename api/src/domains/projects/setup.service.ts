// The price sensitivity and market reach set-ups of a project (Projects Create/Update/Delete
// PriceSensitivities and MarketReach, and reading them back).
//
// Price sensitivity (Van Westendorp 1976): the four price questions, standard questions 19-22
// (too cheap, bargain, getting expensive, too expensive), are asked about each chosen test option:
// one project question per test option and price question, at position 5 after the framework's
// questions. Prices are asked in the currency of the project's regions (one currency per project:
// Van Westendorp curves cannot pool prices across currencies). purchaseIntent adds the
// Newton-Miller-Smith (1993) purchase-likelihood follow-ups at the respondent's own bargain and
// expensive prices; the calibration maps the 5-point answers (5..1) to purchase probabilities.
//
// Market reach (TURF): the items are either test options, asked through a copy of standard
// question 25 whose options stand for the test options (asked once, after the test loop: position
// 3), or the options of one of the project's multiple-choice questions (then marked
// marketReachEnabled). The reach depth and the largest combination size bound the TURF search.
// Question 25 ends with an exclusive "None of these" (it asks "which of these, if any"); a
// question's own none answer (exclusive, or reading "none ...") is left out of the items and
// refused as one. Those who choose it stay in the base, reached by nothing.
import type { Db, Tx } from "../../db/client.ts";
import { enterTenant } from "../../access/policy.ts";
import type { RequestCtx } from "../../access/principal.ts";
import { ApiError, type FieldError } from "../../errors.ts";
import { assertEditable, dbError, projectForWrite, unique } from "./common.ts";
import * as pq from "./projects.sql.ts";
import * as q from "./setup.sql.ts";
import { STANDARD_POSITION } from "./projects.service.ts";

export const PRICE_QUESTIONS = [19, 20, 21, 22] as const;
export const MARKET_REACH_QUESTION = 25;
/** The market reach question's exclusive last answer (a respondent who would buy none of the items). */
export const NONE_OF_THESE = "None of these";
/** Where the market reach question is asked: once, after the test loop (OutsideLoop). */
export const MARKET_REACH_POSITION = 3;
/** Newton, Miller and Smith (1993): answers 5..1 as purchase probabilities. */
export const NMS_CALIBRATION = [0.7, 0.5, 0.3, 0.1, 0];

function fail(errors: FieldError[]): never {
  throw new ApiError("ValidationError", errors.map((e) => `${e.path}: ${e.message}`).join("; "), undefined, errors);
}

// ---- price sensitivity ----

export interface PriceInput {
  testOptionIds?: number[];
  currencyCode?: string;
  minPrice?: number | null;
  maxPrice?: number | null;
  purchaseIntent?: boolean;
  purchaseIntentCalibration?: number[];
}

export interface PriceSettings {
  projectId: number;
  currencyCode: string;
  purchaseIntent: boolean;
  purchaseIntentCalibration: number[];
  items: { id: number; testOptionId: number | null; minPrice: number | null; maxPrice: number | null; projectQuestionIds: number[] }[];
}

async function priceSettings(tx: Tx, projectId: number): Promise<PriceSettings | null> {
  const rows = await q.priceRows(tx, projectId);
  if (!rows.length) return null;
  const pqs = await q.standardProjectQuestions(tx, projectId, [...PRICE_QUESTIONS]);
  return {
    projectId,
    currencyCode: rows[0]!.currencyCode,
    purchaseIntent: rows[0]!.purchaseIntent,
    purchaseIntentCalibration: rows[0]!.purchaseIntentCalibration,
    items: rows.map((r) => ({
      id: r.id,
      testOptionId: r.testOptionId,
      minPrice: r.minPrice,
      maxPrice: r.maxPrice,
      projectQuestionIds: pqs
        .filter((x) => x.testOptionId === r.testOptionId)
        .sort((a, b) => a.standardQuestionId - b.standardQuestionId)
        .map((x) => x.id),
    })),
  };
}

/** The price questions of each test option: present for the chosen ones, gone for the others. */
async function syncPriceQuestions(tx: Tx, clientId: number, projectId: number, testOptionIds: number[], userId: number): Promise<void> {
  const existing = await q.standardProjectQuestions(tx, projectId, [...PRICE_QUESTIONS]);
  await q.dropProjectQuestions(
    tx,
    existing.filter((x) => x.testOptionId === null || !testOptionIds.includes(x.testOptionId)).map((x) => x.id),
  );
  const kept = existing.filter((x) => x.testOptionId !== null && testOptionIds.includes(x.testOptionId));
  // One copy of each price question per project, asked once per test option.
  const questionOf = new Map<number, number>(kept.map((x) => [x.standardQuestionId, x.questionId]));
  const standard = await pq.standardQuestions(tx, [...PRICE_QUESTIONS]);
  let sortOrder = (await pq.nextSortOrder(tx, projectId, STANDARD_POSITION)) - 1;
  for (const testOptionId of testOptionIds) {
    for (const sq of standard) {
      if (kept.some((x) => x.testOptionId === testOptionId && x.standardQuestionId === sq.id)) continue;
      let questionId = questionOf.get(sq.id);
      if (questionId === undefined) {
        questionId = await pq.copyStandardQuestion(tx, clientId, projectId, sq, userId);
        questionOf.set(sq.id, questionId);
      }
      await pq.insertProjectQuestion(tx, {
        clientId,
        projectId,
        questionId,
        standardQuestionId: sq.id,
        questionPositionId: STANDARD_POSITION,
        sortOrder: ++sortOrder,
        testOptionId,
        routing: null,
      });
    }
  }
}

async function writePrice(tx: Tx, ctx: RequestCtx, projectId: number, input: PriceInput, mode: "create" | "update"): Promise<PriceSettings> {
  const p = await projectForWrite(tx, projectId);
  assertEditable(p);
  if (p.projectTypeId !== 1 && p.projectTypeId !== 2) throw new ApiError("BadRequest", "Price sensitivity is for Idea and Message projects");
  const had = (await q.priceRows(tx, projectId)).length > 0;
  if (mode === "create" && had) throw new ApiError("Conflict", `Project ${projectId} already has a price sensitivity set-up: use UpdatePriceSensitivities`);
  if (mode === "update" && !had) throw new ApiError("NotFound", `Project ${projectId} has no price sensitivity set-up: use CreatePriceSensitivities`);

  const errors: FieldError[] = [];
  const options = await q.testOptions(tx, projectId);
  const ids = input.testOptionIds ? unique(input.testOptionIds) : options.map((o) => o.id);
  ids.forEach((id, i) => {
    if (!options.some((o) => o.id === id)) errors.push({ path: `testOptionIds.${i}`, message: `No test option ${id} in project ${projectId}` });
  });
  if (!ids.length) errors.push({ path: "testOptionIds", message: "Add a test option first: prices are asked about test options" });
  const currencies = await q.projectCurrencies(tx, projectId);
  if (currencies.length > 1) {
    errors.push({ path: "currencyCode", message: `The project's regions use ${currencies.join(" and ")}: price questions need regions with one currency` });
  }
  const currency = currencies[0] ?? "USD";
  if (input.currencyCode && input.currencyCode !== currency) errors.push({ path: "currencyCode", message: `The project's regions use ${currency}` });
  if (input.minPrice != null && input.maxPrice != null && input.minPrice >= input.maxPrice) errors.push({ path: "minPrice", message: "Must be below maxPrice" });
  if (errors.length) fail(errors);

  await q
    .replacePriceRows(
      tx,
      p.clientId,
      projectId,
      ids.map((testOptionId) => ({
        testOptionId,
        currencyCode: currency,
        minPrice: input.minPrice ?? null,
        maxPrice: input.maxPrice ?? null,
        purchaseIntent: input.purchaseIntent ?? false,
        purchaseIntentCalibration: input.purchaseIntentCalibration ?? NMS_CALIBRATION,
      })),
    )
    .catch(dbError("PriceSensitivities"));
  await syncPriceQuestions(tx, p.clientId, projectId, ids, ctx.principal.userId).catch(dbError("ProjectQuestions"));
  return (await priceSettings(tx, projectId))!;
}

export const createPriceSensitivities = (db: Db, ctx: RequestCtx, projectId: number, input: PriceInput) => enterTenant(db, ctx, (tx) => writePrice(tx, ctx, projectId, input, "create"));

export const updatePriceSensitivities = (db: Db, ctx: RequestCtx, projectId: number, input: PriceInput) => enterTenant(db, ctx, (tx) => writePrice(tx, ctx, projectId, input, "update"));

export async function deletePriceSensitivities(db: Db, ctx: RequestCtx, projectId: number): Promise<void> {
  await enterTenant(db, ctx, async (tx) => {
    const p = await projectForWrite(tx, projectId);
    assertEditable(p);
    if (!(await q.deletePriceRows(tx, projectId))) throw new ApiError("NotFound", `Project ${projectId} has no price sensitivity set-up`);
    const pqs = await q.standardProjectQuestions(tx, projectId, [...PRICE_QUESTIONS]);
    await q
      .dropProjectQuestions(
        tx,
        pqs.map((x) => x.id),
      )
      .catch(dbError("ProjectQuestions"));
  });
}

export async function getPriceSensitivities(db: Db, ctx: RequestCtx, projectId: number): Promise<PriceSettings> {
  return enterTenant(db, ctx, async (tx) => {
    if (!(await pq.readableProject(tx, projectId))) throw new ApiError("NotFound", `Projects(${projectId}) not found`);
    const s = await priceSettings(tx, projectId);
    if (!s) throw new ApiError("NotFound", `Project ${projectId} has no price sensitivity set-up`);
    return s;
  });
}

// ---- market reach ----

export interface ReachInput {
  testOptionIds?: number[];
  questionId?: number;
  questionOptionIds?: number[];
  reachDepth?: number;
  maxCombinationSize?: number;
}

export interface ReachSettings {
  id: number;
  projectId: number;
  reachDepth: number;
  maxCombinationSize: number;
  itemSource: "testOptions" | "question";
  questionId: number | null;
  projectQuestionId: number | null;
  items: q.ReachItemRow[];
}

async function reachSettings(tx: Tx, projectId: number): Promise<ReachSettings | null> {
  const r = await q.reach(tx, projectId);
  if (!r) return null;
  return { ...r, itemSource: r.questionId !== null ? "question" : "testOptions", items: await q.reachItems(tx, r.id) };
}

/** Undoes a set-up: its market reach question (test options) or the question's flag. */
async function dropReach(tx: Tx, r: q.ReachRow): Promise<void> {
  await q.deleteReach(tx, r.id);
  if (r.questionId !== null) await q.setMarketReachEnabled(tx, r.questionId, false);
  const pqs = await q.standardProjectQuestions(tx, r.projectId, [MARKET_REACH_QUESTION]);
  await q.dropProjectQuestions(
    tx,
    pqs.map((x) => x.id),
  );
}

async function writeReach(tx: Tx, ctx: RequestCtx, projectId: number, input: ReachInput, mode: "create" | "update"): Promise<ReachSettings> {
  const p = await projectForWrite(tx, projectId);
  assertEditable(p);
  const had = await q.reach(tx, projectId);
  if (mode === "create" && had) throw new ApiError("Conflict", `Project ${projectId} already has a market reach set-up: use UpdateMarketReach`);
  if (mode === "update" && !had) throw new ApiError("NotFound", `Project ${projectId} has no market reach set-up: use CreateMarketReach`);

  const errors: FieldError[] = [];
  if (input.questionId !== undefined && input.testOptionIds !== undefined) errors.push({ path: "questionId", message: "Give test options or a question, not both" });
  if (input.questionId === undefined && input.questionOptionIds !== undefined) errors.push({ path: "questionOptionIds", message: "Options of which question? Give questionId" });
  let items: { testOptionId: number | null; questionOptionId: number | null; label: string }[] = [];
  let question: q.ChoiceQuestionRow | undefined;
  if (input.questionId !== undefined) {
    question = await q.projectQuestion(tx, projectId, input.questionId);
    if (!question) errors.push({ path: "questionId", message: `No question ${input.questionId} asked in project ${projectId}` });
    else if (question.questionTypeId !== 2) errors.push({ path: "questionId", message: "Market reach combines the options of a multiple-choice question" });
    else {
      // A "none of these" answer is never an item: its respondents stay in the base, reached by
      // nothing (docs/decisions.md "Market reach: none of these").
      const none = question.noneOptionIds;
      const ids = input.questionOptionIds ? unique(input.questionOptionIds) : question.optionIds.filter((id) => !none.includes(id));
      ids.forEach((id, i) => {
        if (!question!.optionIds.includes(id)) errors.push({ path: `questionOptionIds.${i}`, message: `Option ${id} is not an option of question ${question!.id}` });
        else if (none.includes(id))
          errors.push({ path: `questionOptionIds.${i}`, message: `Option ${id} is the question's "none" answer: it is not an item (those who choose it count in the base, reached by nothing)` });
      });
      items = ids.map((id) => ({ testOptionId: null, questionOptionId: id, label: "" }));
    }
  } else {
    const options = await q.testOptions(tx, projectId);
    const ids = input.testOptionIds ? unique(input.testOptionIds) : options.map((o) => o.id);
    ids.forEach((id, i) => {
      if (!options.some((o) => o.id === id)) errors.push({ path: `testOptionIds.${i}`, message: `No test option ${id} in project ${projectId}` });
    });
    items = ids.map((id) => ({ testOptionId: id, questionOptionId: null, label: options.find((o) => o.id === id)?.conceptText ?? "" }));
  }
  if (!errors.length && items.length < 2) errors.push({ path: input.questionId !== undefined ? "questionOptionIds" : "testOptionIds", message: "Market reach needs at least two items" });
  const maxCombinationSize = input.maxCombinationSize ?? Math.min(3, Math.max(items.length, 1));
  const reachDepth = input.reachDepth ?? 1;
  if (items.length >= 2 && maxCombinationSize > items.length) errors.push({ path: "maxCombinationSize", message: `At most the number of items (${items.length})` });
  if (reachDepth > maxCombinationSize) errors.push({ path: "reachDepth", message: "At most maxCombinationSize" });
  if (errors.length) fail(errors);

  if (had) await dropReach(tx, had).catch(dbError("MarketReach"));
  const userId = ctx.principal.userId;
  let projectQuestionId: number | null = null;
  const answerOf = new Map<number, number>();
  if (question) {
    await q.setMarketReachEnabled(tx, question.id, true);
  } else {
    const [sq] = await pq.standardQuestions(tx, [MARKET_REACH_QUESTION]);
    const questionId = await pq.copyStandardQuestion(tx, p.clientId, projectId, sq!, userId, { marketReach: true });
    for (const [i, it] of items.entries()) answerOf.set(it.testOptionId!, await q.insertAnswerOption(tx, p.clientId, projectId, questionId, it.label, i + 1));
    // "Which of these, if any, ...": the exclusive none answer after the items, not an item itself.
    await q.insertAnswerOption(tx, p.clientId, projectId, questionId, NONE_OF_THESE, items.length + 1, true);
    projectQuestionId = await pq.insertProjectQuestion(tx, {
      clientId: p.clientId,
      projectId,
      questionId,
      standardQuestionId: MARKET_REACH_QUESTION,
      questionPositionId: MARKET_REACH_POSITION,
      sortOrder: await pq.nextSortOrder(tx, projectId, MARKET_REACH_POSITION),
      testOptionId: null,
      routing: null,
    });
  }
  const reachId = await q.insertReach(tx, { clientId: p.clientId, projectId, reachDepth, maxCombinationSize, questionId: question?.id ?? null, projectQuestionId }).catch(dbError("MarketReach"));
  for (const [i, it] of items.entries()) {
    await q.insertReachItem(tx, p.clientId, reachId, {
      testOptionId: it.testOptionId,
      questionOptionId: it.questionOptionId,
      answerOptionId: it.testOptionId !== null ? (answerOf.get(it.testOptionId) ?? null) : null,
      sortOrder: i + 1,
    });
  }
  return (await reachSettings(tx, projectId))!;
}

export const createMarketReach = (db: Db, ctx: RequestCtx, projectId: number, input: ReachInput) => enterTenant(db, ctx, (tx) => writeReach(tx, ctx, projectId, input, "create"));

export const updateMarketReach = (db: Db, ctx: RequestCtx, projectId: number, input: ReachInput) => enterTenant(db, ctx, (tx) => writeReach(tx, ctx, projectId, input, "update"));

export async function deleteMarketReach(db: Db, ctx: RequestCtx, projectId: number): Promise<void> {
  await enterTenant(db, ctx, async (tx) => {
    const p = await projectForWrite(tx, projectId);
    assertEditable(p);
    const r = await q.reach(tx, projectId);
    if (!r) throw new ApiError("NotFound", `Project ${projectId} has no market reach set-up`);
    await dropReach(tx, r).catch(dbError("MarketReach"));
  });
}

export async function getMarketReach(db: Db, ctx: RequestCtx, projectId: number): Promise<ReachSettings> {
  return enterTenant(db, ctx, async (tx) => {
    if (!(await pq.readableProject(tx, projectId))) throw new ApiError("NotFound", `Projects(${projectId}) not found`);
    const s = await reachSettings(tx, projectId);
    if (!s) throw new ApiError("NotFound", `Project ${projectId} has no market reach set-up`);
    return s;
  });
}
