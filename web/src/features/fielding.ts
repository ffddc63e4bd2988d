// What a run's field period says on the status pages (README "Field periods"): a Live run "closes
// at" its field end, or is "stalled" (no complete for 24 hours with its quota open: it still closes
// at its field end with the completes it has, and the shortfall is refunded); a closed run says why.
// And where a run's respondents come from, in words.
import type { Schemas } from "../api/client";

/** Where a run's respondents come from (SurveyRuns sampleSource; docs/decisions/0122). */
export type SampleSource = Schemas["SurveyRunState"]["sampleSource"];

/** A run's sample source in words, as the status page and the admin surveys page show it. */
export const SAMPLE_SOURCE_TEXT: Record<SampleSource, string> = {
  simulated: "Simulated panel",
  customer: "Customer list",
  supplier: "Sample supplier",
};

export interface FieldPeriodRun {
  surveyStatusId: number;
  fieldEndAt: string | null;
  stalledAt: string | null;
  closedReason?: string | null;
}

export interface FieldPeriodText {
  label: string;
  detail: string | null;
  tone: "neutral" | "blue" | "amber" | "green";
}

const LIVE = 50;
const TESTING = 10;
const CLOSED = 90;
const ERROR_PROCESSING = 1010;

/** A moment as the reader's clock says it (timeZone for tests: "UTC"), with the zone named. */
export function momentText(iso: string, timeZone?: string): string {
  return new Date(iso).toLocaleString("en-GB", { timeZone, day: "numeric", month: "short", year: "numeric", hour: "2-digit", minute: "2-digit", timeZoneName: "short" });
}

export function fieldPeriodText(r: FieldPeriodRun, timeZone?: string): FieldPeriodText {
  const open = r.surveyStatusId === LIVE || r.surveyStatusId === TESTING;
  const closes = r.fieldEndAt ? momentText(r.fieldEndAt, timeZone) : null;
  if (open && r.stalledAt && r.surveyStatusId === LIVE) {
    return {
      label: "Stalled",
      detail: `No complete for 24 hours (since ${momentText(new Date(new Date(r.stalledAt).getTime() - 86_400_000).toISOString(), timeZone)}).${closes ? ` Closes at ${closes} with the completes it has; the shortfall is refunded.` : ""}`,
      tone: "amber",
    };
  }
  if (open) return { label: closes ? `Closes at ${closes}` : "Open", detail: null, tone: "blue" };
  if (r.surveyStatusId === CLOSED || r.surveyStatusId === ERROR_PROCESSING) {
    const why = r.closedReason === "quota" ? "Closed: quota met" : r.closedReason === "field end" ? "Closed at its field end" : r.closedReason === "staff" ? "Closed by staff" : "Closed";
    return { label: why, detail: r.closedReason === "field end" || r.closedReason === "staff" ? "The shortfall, if any, is refunded." : null, tone: "green" };
  }
  return { label: "Not open yet", detail: null, tone: "neutral" };
}
