// What a respondent's page is told (RespondentView), and the survey runs' status codes: shared by the
// fielding service and the test entries (test-entries.ts), here so neither imports the other.
import type { Answers, Page, SurveyDefinition } from "./engine.ts";

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
