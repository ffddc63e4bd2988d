// Projects({key})/SurveyPreview: the respondent preview (preview.service.ts). Thin.
import { z } from "@hono/zod-openapi";
import type { App, AppDeps } from "../../app-types.ts";
import { access } from "../../access/policy.ts";
import { addRoute, commonErrors, errors } from "../../openapi.ts";
import { ProjectKeyParams, projectKeyOf } from "../lifecycle/lifecycle.schemas.ts";
import { preview } from "./preview.service.ts";
import { present, View } from "./respondent.routes.ts";

const Answer = z.union([z.number(), z.array(z.number()), z.string().max(10000)]);
const Body = z
  .strictObject({
    regionId: z.number().int().positive().optional().describe("The market to preview (default: the project's first)"),
    pageId: z.string().max(100).optional().describe("The page being answered; absent: the first page"),
    input: z.record(z.string().max(100), z.unknown()).optional().describe("This page's answers, as a respondent's page sends them"),
    answers: z.record(z.string().max(100), Answer).optional().describe("The answers so far, as the previous call returned them"),
  })
  .openapi("SurveyPreviewRequest");
const Result = View.extend({ answers: z.record(z.string(), Answer).describe("The answers so far: send them back with the next page") }).openapi("SurveyPreview");

export function registerPreviewRoutes(app: App, deps: AppDeps): void {
  addRoute(
    app,
    {
      access: access.viewer,
      method: "post",
      path: "/api/v1/Projects/{key}/SurveyPreview",
      tags: ["Projects"],
      operationId: "Projects_SurveyPreview",
      summary: "Walk the project's survey as a respondent would, storing nothing",
      description:
        "The pages respondents meet (demographics, screener, each test option's concept and price pages, the attention check, follow-ups), built from the project as it is now, " +
        "with the same validation (400 with the failing answers) and rules (screen-out, attention). Nothing is stored: the caller keeps `answers` and sends them back. " +
        "A POST because it carries answers; it changes nothing.",
      request: { params: ProjectKeyParams, body: { required: true, content: { "application/json": { schema: Body } } } },
      responses: { 200: { description: "The next page, or the end", content: { "application/json": { schema: Result } } }, ...commonErrors, 404: errors[404], 409: errors[409] },
    },
    async (c) => {
      const v = await preview(deps.db, c.get("ctx"), projectKeyOf(c), c.req.valid("json"));
      const imageUrl = async (key: string, fileType: string | null) =>
        deps.storage ? (await deps.storage.downloadUrl({ key, contentType: fileType ?? undefined, baseUrl: deps.publicUrl ?? new URL(c.req.url).origin, expiresIn: 3600 })).url : null;
      return c.json({ ...(await present(v, imageUrl)), answers: v.answers }, 200);
    },
  );
}
