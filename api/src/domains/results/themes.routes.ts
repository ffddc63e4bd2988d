// Themes and drivers under the response filter (issue 23): TextResponses/ThemeResults counts an
// open question's themes over the filtered respondents' answers (per test option and by
// sentiment); Responses/DriverResults recomputes the driver analysis for the filtered respondents
// where the base allows, and says when it does not. GET functions; `filters` is the response
// filter object as JSON (results/filters.ts).
import { z } from "@hono/zod-openapi";
import type { App, AppDeps } from "../../app-types.ts";
import { access } from "../../access/policy.ts";
import { addRoute, commonErrors, errors } from "../../openapi.ts";
import { parseFilters } from "./filters.ts";
import { themeResults } from "./verbatims.service.ts";
import { driverResults } from "./drivers.service.ts";
import { FiltersParam, int } from "./params.ts";

const Sentiments = z
  .object({ Positive: z.number().int(), Neutral: z.number().int(), Mixed: z.number().int(), Negative: z.number().int(), None: z.number().int().describe("Answers not coded yet") })
  .openapi("SentimentCounts");
const ThemeResults = z
  .object({
    projectId: z.number().int(),
    projectQuestionId: z.number().int(),
    answers: z.number().int().describe("The filtered respondents' answers to the question"),
    bySentiment: Sentiments,
    testOptions: z.array(z.object({ testOptionId: z.number().int().nullable(), answers: z.number().int() })),
    themes: z.array(
      z.object({
        id: z.number().int(),
        name: z.string(),
        sentiment: z.string().nullable().describe("The theme's own sentiment (its answers' majority when coded)"),
        count: z.number().int().describe("Filtered answers coded with the theme"),
        share: z.number().describe("count / answers (unweighted)"),
        bySentiment: Sentiments,
        byTestOption: z.array(z.object({ testOptionId: z.number().int().nullable(), count: z.number().int(), share: z.number().describe("Of that option's answers") })),
      }),
    ),
  })
  .openapi("ThemeResults");

const DriverResults = z
  .object({
    projectId: z.number().int(),
    outcome: z.object({ standardQuestionId: z.number().int(), title: z.string() }),
    minimumBase: z.number().int().describe("The smallest filtered base a group's drivers are recomputed for (Green 1991: 104 + predictors)"),
    groups: z.array(
      z.object({
        testOptionId: z.number().int().nullable().describe("null: all test options pooled"),
        filtered: z.boolean().describe("true: computed for the filtered respondents; false: the filter leaves too small a base, these are all respondents'"),
        filteredBase: z.number().int().describe("Ratings with the outcome and every measure among the filtered respondents"),
        n: z.number().int().describe("The base the drivers shown are computed on"),
        rSquared: z.number().nullable(),
        modelPValue: z.number().nullable().describe("The overall F-test of R² = 0 on Kish's effective base (docs/statistics.md 'Key drivers'); null without a model"),
        fits: z.boolean().describe("R² at least 1% and the F-test significant at 5%: only then are importances given"),
        note: z.string().nullable().describe("Why these drivers are not the filtered respondents' own, or why no importances are given"),
        drivers: z.array(
          z.object({
            standardQuestionId: z.number().int(),
            title: z.string(),
            coefficient: z.number().describe("Standardised coefficient"),
            importance: z.number().nullable().describe("Pratt share of the explained variance; null when the model does not fit (fits false)"),
          }),
        ),
      }),
    ),
  })
  .openapi("DriverResults");

const ok = <T extends z.ZodType>(schema: T, description: string) => ({ 200: { description, content: { "application/json": { schema } } } });

export function registerThemeRoutes(app: App, deps: AppDeps): void {
  const { db } = deps;
  addRoute(
    app,
    {
      access: access.viewer,
      method: "get",
      path: "/api/v1/TextResponses/ThemeResults",
      tags: ["TextResponses"],
      operationId: "TextResponses_ThemeResults",
      summary: "Themes of an open question for the filtered respondents",
      description:
        "Each theme of the question counted over the filtered respondents' answers (the answers Verbatim lists): answers, share of the answers, the answers by sentiment, and per test option its count and share of that option's answers. Unweighted counts of answers.",
      request: {
        query: z.object({
          projectId: int("projectId", "The project"),
          projectQuestionId: int("projectQuestionId", "The open question"),
          filters: FiltersParam,
          testOptionId: int("testOptionId", "One test option's answers").optional(),
        }),
      },
      responses: { ...ok(ThemeResults, "The themes"), ...commonErrors, 404: errors[404] },
    },
    async (c) => {
      const x = c.req.valid("query");
      const r = await themeResults(db, c.get("ctx"), {
        projectId: Number(x.projectId),
        projectQuestionId: Number(x.projectQuestionId),
        filters: parseFilters(x.filters),
        testOptionId: x.testOptionId ? Number(x.testOptionId) : null,
      });
      return c.json(r, 200);
    },
  );
  addRoute(
    app,
    {
      access: access.viewer,
      method: "get",
      path: "/api/v1/Responses/DriverResults",
      tags: ["Responses"],
      operationId: "Responses_DriverResults",
      summary: "Drivers of purchase intent for the filtered respondents",
      description:
        "The key-driver analysis (weighted regression on standardised scores, Pratt importance) per group (all test options pooled, then each option), recomputed for the filtered respondents where a group's filtered base reaches minimumBase (Green 1991: 104 + the number of predictors); below it the group shows all its respondents' drivers, with filtered false and a note.",
      request: { query: z.object({ projectId: int("projectId", "The project"), filters: FiltersParam }) },
      responses: { ...ok(DriverResults, "The drivers"), ...commonErrors, 404: errors[404] },
    },
    async (c) => {
      const x = c.req.valid("query");
      return c.json(await driverResults(db, c.get("ctx"), Number(x.projectId), parseFilters(x.filters)), 200);
    },
  );
}
