// What a respondent's page is told (RespondentView), and the survey runs' status codes: shared by the
// fielding service and the test entries (test-entries.ts), here so neither imports the other.
import { pages, type Answers, type Page, type SurveyDefinition } from "./engine.ts";

export const SURVEY_STATUS = { Draft: 0, Testing: 10, Live: 50, Closed: 90, Dev: 130, ErrorXml: 1000, ErrorProcessing: 1010 } as const;

export interface RespondentView {
  surveyLink: string;
  respondentId: string;
  status: string;
  /** The page to answer, while InProgress. */
  page: (Page & { index: number; total: number }) | null;
  definition: SurveyDefinition;
  endReason: string | null;
  /** The respondent's answers so far (server side only: the page texts quote their own prices). */
  answers: Answers;
  /** A supplier's respondent at the end: the supplier's link to go to (signed with a secret). */
  redirectUrl: string | null;
}

/** What a session's view is built from: a run's session or a test entry's (test-entries.ts). */
export interface SessionState {
  respondentUuid: string;
  status: string;
  page: number;
  testOptionOrder: number[];
  endReason: string | null;
  answers: Answers;
}

/** A session's view: the page it is on (while InProgress), with the end link given for one that has ended. */
export function respondentView(run: { surveyLink: string; definition: SurveyDefinition }, s: SessionState, redirectUrl: string | null): RespondentView {
  const all = pages(run.definition, s.testOptionOrder);
  const page = s.status === "InProgress" ? all[s.page] : undefined;
  return {
    surveyLink: run.surveyLink,
    respondentId: s.respondentUuid,
    status: s.status,
    page: page ? { ...page, index: s.page, total: all.length } : null,
    definition: run.definition,
    endReason: s.endReason,
    answers: s.answers,
    redirectUrl,
  };
}
