// SPEC 9's constants, in one place.
export const APP_VERSION = "v139";
export const TOKEN_NEAR_EXPIRY_MS = 10 * 60_000;
export const NAV_HISTORY_SIZE = 10;
export const LOGOUT_REDIRECT_DELAY_MS = 500;
export const WEBSOCKET_PING_MS = 30_000;
export const RESPONSE_COUNT_DEBOUNCE_MS = 400;
export const TOAST_LIFE_MS = 3000;
export const SUPPORT_EMAIL = "support@ideally.test";

/** localStorage keys. Logout clears all of them but client_id (SPEC 4). */
export const STORAGE = {
  token: "token",
  clientId: "client_id",
  lastVisitedUrl: "lastVisitedUrl",
  benchmarkId: "benchmarkId",
  betaEnabled: "beta-enabled",
} as const;

import { PROJECT_TYPES as PROJECT_TYPE_NAMES } from "@ideally/contracts/labels";
export { PROJECT_STATUSES, QUESTION_TYPES } from "@ideally/contracts/labels";
/** Project types as people read them: SPEC's code name Npd is written NPD (SPEC 1's own abbreviation). */
export const PROJECT_TYPES: Record<number, string> = { ...PROJECT_TYPE_NAMES, 4: "NPD" };

export const FRAMEWORKS: Record<number, string> = {
  1000: "Idea (default)",
  1010: "Price sensitivity",
  1020: "Market reach",
  2000: "Message comprehension",
  3000: "Ad hoc",
  4000: "NPD",
  3998: "Usage and attitude seeding",
  1003: "Execution A/B test",
  2003: "Message A/B test",
};

export const INDUSTRIES = ["telecommunications", "energy", "broadcast", "qsr", "agency", "financial", "government", "other", "retail", "insurance", "fmcg", "tech", "health", "hospitality"] as const;

export const ROLES: Record<number, string> = { 1: "Admin", 2: "User", 3: "Viewer" };

// In the order respondents meet them (the fielding engine's pages): audience and screener, each
// test option with its test and framework questions, then the follow-ups (after all test options),
// custom and the group questions. SPEC 3 names the groups; the editor lists them as asked.
export const QUESTION_DISPLAY_GROUPS: { name: string; positions: number[] }[] = [
  { name: "Audience", positions: [1, 4, 7] },
  { name: "Test", positions: [8, 2] },
  { name: "Framework", positions: [5] },
  { name: "Follow-up", positions: [3] },
  { name: "Custom", positions: [6] },
  { name: "Segmentation", positions: [9] },
  { name: "Occasions", positions: [10] },
  { name: "Needs", positions: [11] },
  { name: "Usage & attitude", positions: [12] },
];

/** SPEC 9: position (7 counts as 1) times 1,000,000 plus sortOrder. */
export function questionSortKey(q: { questionPositionId: number; sortOrder: number | null }): number {
  const pos = q.questionPositionId === 7 ? 1 : q.questionPositionId;
  return pos * 1_000_000 + (q.sortOrder ?? 0);
}

/** An internal code name in words: "FullTestSummary" -> "Full test summary". */
export function codeInWords(code: string): string {
  const words = code
    .replace(/([a-z0-9])([A-Z])/g, "$1 $2")
    .replace(/([A-Z]+)([A-Z][a-z])/g, "$1 $2")
    .split(" ");
  return words.map((w, i) => (i === 0 ? w : /^[A-Z]{2,}$/.test(w) ? w : w.toLowerCase())).join(" ");
}
