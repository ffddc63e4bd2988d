// The Summary page's verdict in words (pure: the tests read it). The verdicts themselves come from
// Responses/Scorecard (api/src/domains/results/verdict.ts).
import type { Scorecard } from "./queries";

/** The page's one-line verdict: which concepts pass the standard, or that none does. */
export function headline(sc: Pick<Scorecard, "rows">, name: (id: number | null) => string): string {
  const go = sc.rows.filter((r) => r.verdict === "go").map((r) => name(r.testOptionId));
  const consider = sc.rows.filter((r) => r.verdict === "consider").map((r) => name(r.testOptionId));
  const list = (xs: string[]) => (xs.length < 2 ? xs.join("") : `${xs.slice(0, -1).join(", ")} and ${xs.at(-1)}`);
  if (go.length) return `Go: ${list(go)} ${go.length === 1 ? "meets" : "meet"} the action standard.`;
  if (consider.length) return `No concept clearly meets the action standard; consider ${list(consider)}.`;
  return "No-go: no concept meets the action standard.";
}

