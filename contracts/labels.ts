// SPEC's names for the codes the API sends (project status, project type), for people reading a
// page or a table. Shared by the web app and the CLI; scripts and the API use the codes.

export const PROJECT_STATUSES: Record<number, string> = {
  0: "Draft",
  50: "Awaiting Approval",
  100: "Submitted",
  200: "Reviewing Questions",
  300: "Awaiting Survey",
  400: "Processing results",
  800: "Completed Wave",
  900: "Complete",
  950: "Demo",
};

export const PROJECT_TYPES: Record<number, string> = { 1: "Idea", 2: "Message", 3: "Question", 4: "Npd" };

/** A status code's name; an unknown code as itself, none as a dash. */
export const statusName = (code: number | null | undefined) => (code == null ? "–" : (PROJECT_STATUSES[code] ?? String(code)));

/** Question types (questionTypeId), as the question editor and the template lists name them. */
export const QUESTION_TYPES: Record<number, string> = { 1: "Single choice", 2: "Multiple choice", 3: "Text", 4: "Dropdown" };

/**
 * SPEC 1's industry options: the code a project's productType and a client's industry carry, and
 * its name (the industries reference table, api/src/db/reference-data.sql, holds the same rows).
 */
export const INDUSTRIES: Record<string, string> = {
  telecommunications: "Telecommunications",
  energy: "Energy",
  broadcast: "Broadcast",
  qsr: "Quick service restaurants",
  agency: "Agency",
  financial: "Financial services",
  government: "Government",
  other: "Other",
  retail: "Retail",
  insurance: "Insurance",
  fmcg: "FMCG",
  tech: "Technology",
  health: "Health",
  hospitality: "Hospitality",
};
