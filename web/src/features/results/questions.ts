// Which page a project question's results live on.
import type { ResultsQuestion } from "./context";

export const TEXT_TYPE = 3;
/** Price sensitivity questions are standard questions 19 to 22 (SPEC 3). */
export const isPriceQuestion = (sq: number | null) => sq !== null && sq >= 19 && sq <= 22;

export function questionRoute(q: ResultsQuestion, projectTypeId: number): string | null {
  const text = q.question?.questionTypeId === TEXT_TYPE;
  if (isPriceQuestion(q.standardQuestionId) || q.standardQuestionId === 25) return null; // on price-sensitivity and market-reach
  if (q.questionPositionId === 9) return `segment-question/${q.id}`;
  if ([1, 4, 7].includes(q.questionPositionId) && !q.standardQuestionId) return `profile-question/${q.id}`;
  if (q.standardQuestionId && !text) return null; // a framework measure: on the summary and overview
  if (projectTypeId === 4) return text ? `npd-text/${q.id}` : `npd-qual/${q.id}`;
  return text ? `text/${q.id}` : `qual/${q.id}`;
}

export function questionLabel(q: ResultsQuestion): string {
  return q.question?.questionTitle || q.question?.questionText || `Question ${q.id}`;
}

/** A framework measure on the 4-point scale (top-2-box, benchmarks): a standard question below the price ones, not open text. */
export function isScaledMeasure(q: Pick<ResultsQuestion, "standardQuestionId" | "question">): boolean {
  return q.standardQuestionId !== null && q.standardQuestionId < 19 && q.question?.questionTypeId !== TEXT_TYPE;
}

/** The Advertising page's measures: brand recognition (6) and in-store visibility (11), and the advertisement outtake (10) when scaled. */
export const AD_MEASURES = [6, 10, 11];

/** The Advertising entry is offered where its measures exist: an open-text Advertisement Outtake alone has its own text page instead. */
export function hasAdvertisingMeasures(questions: Pick<ResultsQuestion, "standardQuestionId" | "question">[]): boolean {
  return questions.some((q) => isScaledMeasure(q) && AD_MEASURES.includes(q.standardQuestionId!));
}
