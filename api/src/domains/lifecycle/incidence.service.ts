// Incidence actions: IncidenceEstimate (the estimate of estimate.ts, stored on the project and read by
// EstimatedProjectDuration, published as IncidenceEstimateUpdated) and the incidence of each
// screening question (GenerateQuestionIr, a document). Method in docs/project-lifecycle.md
// ("Incidence") and estimate.ts.
import type { Db } from "../../db/client.ts";
import type { RequestCtx } from "../../access/principal.ts";
import { clientChannel, publish } from "../../jobs/channel.ts";
import * as q from "./incidence.sql.ts";
import { setIncidence } from "./lifecycle.sql.ts";
import { withProjectAction } from "./lifecycle.service.ts";
import { estimateIn, round4, type Basis, type IncidenceEstimate } from "./estimate.ts";

/** IncidenceEstimate: estimates, stores it on the project, and publishes IncidenceEstimateUpdated. */
export async function incidenceEstimate(db: Db, ctx: RequestCtx, input: { projectId: number }): Promise<IncidenceEstimate> {
  return withProjectAction(db, ctx, "IncidenceEstimate", input.projectId, async (tx, p) => {
    const est = await estimateIn(tx, p.id);
    await setIncidence(tx, p.id, est.incidenceEstimate);
    await publish(tx, {
      channel: clientChannel(p.clientId),
      event: "IncidenceEstimateUpdated",
      data: { projectId: p.id, incidenceEstimate: est.incidenceEstimate, previous: p.incidenceEstimate },
      clientId: p.clientId,
    });
    return est;
  });
}

export interface QuestionIr {
  projectQuestionId: number | null;
  questionId: number;
  questionText: string;
  questionTitle: string | null;
  questionPositionId: number | null;
  options: number;
  targetedOptionIds: number[];
  /** Past respondents to the question, and those among them who gave a targeted answer. */
  respondents: number;
  qualified: number;
  incidence: number;
  basis: Basis;
}

export interface QuestionIrDocument {
  projectId: number;
  generatedAt: string;
  /** The screeners together (independent): the product of their incidences. */
  combinedIncidence: number;
  questions: QuestionIr[];
}

/**
 * GenerateQuestionIr: the incidence rate of each screening question. Not stored: the document is
 * the answer (a results-based one once the project has answers, else the uniform prior).
 */
export async function generateQuestionIr(db: Db, ctx: RequestCtx, input: { projectId: number }): Promise<QuestionIrDocument> {
  return withProjectAction(db, ctx, "GenerateQuestionIr", input.projectId, async (tx, p) => {
    const questions: QuestionIr[] = [];
    for (const sq of await q.screenerQuestions(tx, p.id)) {
      const counts = sq.targetedOptionIds.length ? await q.questionAnswerCounts(tx, sq.questionId, sq.targetedOptionIds) : { answered: 0, qualified: 0 };
      let incidence = 1;
      let basis: Basis = "noTargets";
      if (sq.targetedOptionIds.length) {
        basis = counts.answered > 0 ? "responses" : "prior";
        incidence = counts.answered > 0 ? counts.qualified / counts.answered : sq.targetedOptionIds.length / Math.max(1, sq.options);
      }
      questions.push({
        projectQuestionId: sq.projectQuestionId,
        questionId: sq.questionId,
        questionText: sq.questionText,
        questionTitle: sq.questionTitle,
        questionPositionId: sq.questionPositionId,
        options: sq.options,
        targetedOptionIds: sq.targetedOptionIds,
        respondents: counts.answered,
        qualified: counts.qualified,
        incidence: round4(Math.min(1, incidence)),
        basis,
      });
    }
    const combined = questions.reduce((x, qq) => x * qq.incidence, 1);
    return { projectId: p.id, generatedAt: new Date().toISOString(), combinedIncidence: round4(combined), questions };
  });
}
