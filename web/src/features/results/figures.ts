// Where a figure an AI answer cites comes from, as a results page (the chat links each [F1] there).
import type { Schemas } from "../../../../contracts/client";

/** A cited figure (ResultsAiMessages referencesData.figures). */
export type Figure = NonNullable<NonNullable<Schemas["ResultsAiMessages"]["referencesData"]>["figures"]>[number];

/** The results page a cited figure comes from. */
export function figureRoute(f: Figure, all: Figure[] = []): string {
  const s = f.source;
  switch (s.fn) {
    case "QualResults":
      return s.testOptionId ? `grow-ideas/${s.testOptionId}` : "summary";
    case "PriceSensitivityResults":
      return "price-sensitivity";
    case "MarketReachResults":
      return "market-reach";
    case "QuestionResults":
      return `qual/${s.projectQuestionId}`;
    case "VerbatimCount":
      return `text/${s.projectQuestionId}/themes`;
    case "Difference": {
      const a = all.find((x) => x.ref === s.a);
      return a && a.source.fn !== "Difference" ? figureRoute(a, all) : "summary";
    }
  }
}
