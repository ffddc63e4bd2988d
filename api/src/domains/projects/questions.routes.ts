// Questions, their options and their places in projects; templates; targeting; TestOptions
// SuperAdminUpdate. POST and PATCH /Questions replace the generic operations (options are written
// with their question, never on their own).
import { z } from "@hono/zod-openapi";
import type { App, AppDeps } from "../../app-types.ts";
import { access } from "../../access/policy.ts";
import { addRoute, commonErrors, errors } from "../../openapi.ts";
import { schemasFor } from "../../entities/schemas.ts";
import { ApiError } from "../../errors.ts";
import { keyOf, keyParam, rawJson } from "./common.ts";
import * as S from "./schemas.ts";
import * as svc from "./questions.service.ts";

const ok = <T extends z.ZodType>(description: string, schema: T) => ({ description, content: { "application/json": { schema } } });

const json = <T extends z.ZodType>(schema: T) => ({ required: true as const, content: { "application/json": { schema } } });

export function registerQuestionRoutes(app: App, deps: AppDeps): void {
  registerQuestionReads(app, deps);
  registerQuestionWrites(app, deps);
  registerTemplateAndOrder(app, deps);
}

/** Questions OrgTemplatesQuestions, OrgTemplatesQuestion and TargetQuestionsWithCounts. */
function registerQuestionReads(app: App, deps: AppDeps): void {
  const { db } = deps;
  // Literal paths before /Questions/{key}.
  addRoute(
    app,
    {
      access: access.viewer,
      method: "get",
      path: "/api/v1/Questions/OrgTemplatesQuestions",
      tags: ["Questions"],
      operationId: "Questions_OrgTemplatesQuestions",
      summary: "Template questions of the clients above the request's team (its org and enterprise)",
      responses: { 200: ok("The templates, nearest client first", z.object({ value: z.array(S.OrgTemplate) })), ...commonErrors },
    },
    async (c) => c.json({ value: await svc.orgTemplates(db, c.get("ctx"), null) }, 200),
  );

  addRoute(
    app,
    {
      access: access.viewer,
      method: "get",
      path: "/api/v1/Questions/{key}/OrgTemplatesQuestion",
      tags: ["Questions"],
      operationId: "Questions_OrgTemplatesQuestion",
      summary: "One template question of the clients above the request's team (by question key)",
      request: { params: keyParam("Questions") },
      responses: { 200: ok("The template with its question and options", S.OrgTemplate), ...commonErrors, 404: errors[404] },
    },
    async (c) => {
      const [t] = await svc.orgTemplates(db, c.get("ctx"), keyOf(c));
      if (!t) throw new ApiError("NotFound", `No template question ${keyOf(c)} above this client`);
      return c.json(t, 200);
    },
  );

  addRoute(
    app,
    {
      access: access.viewer,
      method: "get",
      path: "/api/v1/Questions/TargetQuestionsWithCounts",
      tags: ["Questions"],
      operationId: "Questions_TargetQuestionsWithCounts",
      summary: "What a project can target: demographic questions of its regions and its screener questions, with respondent counts per option",
      request: {
        query: z.object({
          projectId: z
            .string()
            .regex(/^-?\d+$/)
            .openapi({ param: { name: "projectId", in: "query" } }),
          questionPosition: z
            .string()
            .regex(/^\d{1,2}$/)
            .optional()
            .openapi({ param: { name: "questionPosition", in: "query" }, description: "The project's questions at this position (default: 1, 4 and 7)" }),
          filters: z
            .string()
            .max(10000)
            .optional()
            .openapi({ param: { name: "filters", in: "query" }, description: "JSON: {regionIds, filterIds, dateFrom, dateTo, panelType}" }),
        }),
      },
      responses: { 200: ok("The targetable questions", z.object({ value: z.array(S.TargetQuestion) })), ...commonErrors, 404: errors[404] },
    },
    async (c) => {
      const query = c.req.valid("query");
      const filters = parseFilters(query.filters);
      const value = await svc.targetQuestionsWithCounts(db, c.get("ctx"), {
        projectId: Number(query.projectId),
        questionPosition: query.questionPosition === undefined ? undefined : Number(query.questionPosition),
        filters,
      });
      return c.json({ value }, 200);
    },
  );
}

/** Questions POST, PATCH and SuperAdminUpdate; TestOptions SuperAdminUpdate. */
function registerQuestionWrites(app: App, deps: AppDeps): void {
  const { db, registry: reg } = deps;
  const entity = (set: string) => schemasFor(reg, reg.mustGet(set)).entity;
  addRoute(
    app,
    {
      access: access.user,
      method: "post",
      path: "/api/v1/Questions",
      tags: ["Questions"],
      operationId: "Questions_create",
      summary: "Create a question with its options: in a draft project at a position, or a template question of the client",
      request: { body: json(S.CreateQuestion) },
      responses: { 201: ok("The question with its options and project question", entity("Questions")), ...commonErrors, 404: errors[404], 409: errors[409] },
    },
    async (c) => rawJson(await svc.createQuestion(db, reg, c.get("ctx"), c.req.valid("json")), 201),
  );

  addRoute(
    app,
    {
      access: access.user,
      method: "patch",
      path: "/api/v1/Questions/{key}",
      tags: ["Questions"],
      operationId: "Questions_update",
      summary: "Update a question of a draft project (or a template question): fields, options, position, test option, routing",
      request: { params: keyParam("Questions"), body: json(S.UpdateQuestion) },
      responses: { 200: ok("The question", entity("Questions")), ...commonErrors, 404: errors[404], 409: errors[409] },
    },
    async (c) => rawJson(await svc.updateQuestion(db, reg, c.get("ctx"), keyOf(c), c.req.valid("json")), 200),
  );

  addRoute(
    app,
    {
      access: access.superAdmin,
      method: "post",
      path: "/api/v1/Questions/{key}/SuperAdminUpdate",
      tags: ["Questions"],
      operationId: "Questions_SuperAdminUpdate",
      summary: "A super admin's update of a question, also after the project was submitted",
      request: { params: keyParam("Questions"), body: json(S.UpdateQuestion) },
      responses: { 200: ok("The question", entity("Questions")), ...commonErrors, 404: errors[404], 409: errors[409] },
    },
    async (c) => rawJson(await svc.updateQuestion(db, reg, c.get("ctx"), keyOf(c), c.req.valid("json"), { superAdmin: true }), 200),
  );

  addRoute(
    app,
    {
      access: access.superAdmin,
      method: "post",
      path: "/api/v1/TestOptions/{key}/SuperAdminUpdate",
      tags: ["TestOptions"],
      operationId: "TestOptions_SuperAdminUpdate",
      summary: "A super admin's update of a test option, also after the project was submitted",
      request: { params: keyParam("TestOptions"), body: json(S.SuperAdminTestOptionUpdate) },
      responses: { 200: ok("The test option", entity("TestOptions")), ...commonErrors, 404: errors[404], 409: errors[409] },
    },
    async (c) => rawJson(await svc.superAdminUpdateTestOption(db, reg, c.get("ctx"), keyOf(c), c.req.valid("json")), 200),
  );
}

/** Questions DeleteTemplateQuestion, ProjectQuestions SortOrderChange and ProcessSynthQuestion. */
function registerTemplateAndOrder(app: App, deps: AppDeps): void {
  const { db, registry: reg } = deps;
  const entity = (set: string) => schemasFor(reg, reg.mustGet(set)).entity;
  addRoute(
    app,
    {
      access: access.user,
      method: "post",
      path: "/api/v1/Questions/{key}/DeleteTemplateQuestion",
      tags: ["Questions"],
      operationId: "Questions_DeleteTemplateQuestion",
      summary: "Move a template question of the client, and its templates, to the trash",
      request: { params: keyParam("Questions") },
      responses: { 204: { description: "Deleted" }, ...commonErrors, 404: errors[404], 409: errors[409] },
    },
    async (c) => {
      await svc.deleteTemplateQuestion(db, c.get("ctx"), keyOf(c));
      return c.body(null, 204);
    },
  );

  addRoute(
    app,
    {
      access: access.user,
      method: "post",
      path: "/api/v1/ProjectQuestions/SortOrderChange",
      tags: ["ProjectQuestions"],
      operationId: "ProjectQuestions_SortOrderChange",
      summary: "Reorder the questions of one position group of a draft project",
      request: { body: json(S.SortOrderChange) },
      responses: { 200: ok("The group in its new order", z.object({ value: z.array(S.SortedQuestion) })), ...commonErrors, 404: errors[404], 409: errors[409] },
    },
    async (c) => c.json({ value: await svc.changeSortOrder(db, c.get("ctx"), c.req.valid("json")) }, 200),
  );

  addRoute(
    app,
    {
      access: access.user,
      method: "post",
      path: "/api/v1/ProjectQuestions/ProcessSynthQuestion",
      tags: ["ProjectQuestions"],
      operationId: "ProjectQuestions_ProcessSynthQuestion",
      summary: "Turn a free-text idea for a question ('Which do you prefer? A / B / C') into a structured question of the project",
      request: { body: json(S.SynthQuestionBody) },
      responses: { 201: ok("The new project question with its question and options", entity("ProjectQuestions")), ...commonErrors, 404: errors[404], 409: errors[409] },
    },
    async (c) => rawJson(await svc.processSynthQuestion(db, reg, c.get("ctx"), c.req.valid("json")), 201),
  );
}

function parseFilters(text: string | undefined): svc.TargetFilters {
  if (!text) return {};
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch {
    throw new ApiError("ValidationError", "filters must be JSON", undefined, [{ path: "filters", message: "Not JSON" }]);
  }
  const r = S.TargetFilters.safeParse(raw);
  if (!r.success) {
    const errs = r.error.issues.map((i) => ({ path: ["filters", ...i.path.map(String)].join("."), message: i.message }));
    throw new ApiError("ValidationError", "Invalid filters", undefined, errs);
  }
  return r.data as svc.TargetFilters;
}
