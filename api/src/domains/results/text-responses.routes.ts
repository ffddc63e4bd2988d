// TextResponses functions (SPEC 7): the open answers of one question, with their themes and
// sentiment (moved from results.routes.ts, issue 34).
import { z } from "@hono/zod-openapi";
import type { App, AppDeps } from "../../app-types.ts";
import { access } from "../../access/policy.ts";
import { addRoute, commonErrors, errors, type TypedHandler } from "../../openapi.ts";
import { parseFilters } from "./filters.ts";
import * as verbatims from "./verbatims.service.ts";
import { FiltersParam, int } from "./params.ts";
import { VerbatimPage, VerbatimShortPage, VerbatimCount, ok } from "./results.schemas.ts";

/** TextResponses Verbatim, VerbatimCount, VerbatimShort and VerbatimShortCount. */
export function registerTextResponseRoutes(app: App, deps: AppDeps): void {
  // Every route here only reads: from the replica when one is configured and keeping up.
  const db = deps.readDb ?? deps.db;
  const verbatimQuery = z.object({
    projectId: int("projectId", "The project"),
    projectQuestionId: int("projectQuestionId", "The open question"),
    filters: FiltersParam,
    testOptionId: int("testOptionId", "One test option's answers").optional(),
    search: z
      .string()
      .max(200)
      .optional()
      .openapi({ param: { name: "search", in: "query" }, description: "Words the answer contains (case-insensitive)" }),
    themeId: int("themeId", "Answers coded with this theme").optional(),
    sentiment: z
      .enum(["Positive", "Neutral", "Negative", "Mixed"])
      .optional()
      .openapi({ param: { name: "sentiment", in: "query" }, description: "Answers with this sentiment" }),
    page: int("page", "From 1, default 1").optional(),
    pageSize: int("pageSize", `Default ${verbatims.VERBATIM_PAGE_SIZE}, at most ${verbatims.VERBATIM_MAX_PAGE_SIZE}`).optional(),
  });
  const vq = (c: { req: { valid(t: "query"): z.output<typeof verbatimQuery> } }): verbatims.VerbatimQuery => {
    const x = c.req.valid("query");
    return {
      projectId: Number(x.projectId),
      projectQuestionId: Number(x.projectQuestionId),
      filters: parseFilters(x.filters),
      testOptionId: x.testOptionId ? Number(x.testOptionId) : null,
      search: x.search ?? null,
      themeId: x.themeId ? Number(x.themeId) : null,
      sentiment: x.sentiment ?? null,
      page: x.page ? Number(x.page) : undefined,
      pageSize: x.pageSize ? Number(x.pageSize) : undefined,
    };
  };
  /** A TextResponses function: the verbatim query in, schema T out. */
  const text = <T extends z.ZodType>(
    name: string,
    summary: string,
    schema: T,
    run: TypedHandler<{ method: "get"; path: string; request: { query: typeof verbatimQuery }; responses: ReturnType<typeof ok<T>> }>,
  ) =>
    addRoute(
      app,
      {
        access: access.viewer,
        method: "get",
        path: `/api/v1/TextResponses/${name}`,
        tags: ["TextResponses"],
        operationId: `TextResponses_${name}`,
        summary,
        description: `${summary}: the filtered respondents' answers to one open question, newest first.`,
        request: { query: verbatimQuery },
        responses: { ...ok(schema, summary), ...commonErrors, 404: errors[404] },
      },
      (c) => run(c),
    );
  text("Verbatim", "Open answers with their themes and sentiment", VerbatimPage, async (c) => c.json(await verbatims.verbatim(db, c.get("ctx"), vq(c)), 200));
  text("VerbatimCount", "How many open answers", VerbatimCount, async (c) => c.json(await verbatims.verbatimCount(db, c.get("ctx"), vq(c)), 200));
  text("VerbatimShort", "Open answers, short form", VerbatimShortPage, async (c) => c.json(await verbatims.verbatimShort(db, c.get("ctx"), vq(c)), 200));
  text("VerbatimShortCount", "How many open answers (short list)", VerbatimCount, async (c) => c.json(await verbatims.verbatimCount(db, c.get("ctx"), vq(c)), 200));
}
