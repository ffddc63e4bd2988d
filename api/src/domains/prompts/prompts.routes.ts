// Prompts and prompt versions (SPEC 7): PromptVersions Publish, Run, DownloadToYml, ImportFromYml;
// DataEventsLog GetPromptVersionHistory; Prompts PlaybookPluginOptions. Staff's.
import { z } from "@hono/zod-openapi";
import type { App, AppDeps } from "../../app-types.ts";
import { access } from "../../access/policy.ts";
import { addRoute, commonErrors, errors, keyOf, keyParams } from "../../openapi.ts";
import * as svc from "./prompts.service.ts";

const Key = keyParams("PromptVersions");
const ok = <T extends z.ZodType>(schema: T, description: string) => ({ 200: { description, content: { "application/json": { schema } } } });

const Version = z
  .object({
    id: z.number().int(),
    promptId: z.number().int(),
    versionNumber: z.number().int(),
    systemPrompt: z.string().nullable(),
    template: z.string(),
    model: z.string().nullable(),
    temperature: z.number().nullable(),
    settings: z.record(z.string(), z.unknown()),
    notes: z.string().nullable(),
    isPublished: z.boolean(),
    publishedAt: z.string().nullable(),
    promptName: z.string(),
    promptType: z.string(),
  })
  .openapi("PromptVersionState");
const Run = z
  .object({
    promptVersionId: z.number().int(),
    projectId: z.number().int(),
    provider: z.string(),
    output: z.string(),
    unknownPlaceholders: z.array(z.string()),
    facts: z.record(z.string(), z.string()).describe("The figures the output was written from"),
  })
  .openapi("PromptVersionRunResult");
const History = z
  .object({
    promptId: z.number().int(),
    value: z.array(
      z.object({
        at: z.string(),
        event: z.string(),
        promptVersionId: z.number().int().nullable(),
        versionNumber: z.number().int().nullable(),
        userId: z.number().int().nullable(),
        data: z.record(z.string(), z.unknown()),
      }),
    ),
  })
  .openapi("PromptVersionHistory");
const Options = z
  .object({
    variables: z.array(z.object({ name: z.string(), placeholder: z.string(), description: z.string() })),
    promptTypes: z.array(z.string()),
    providers: z.array(z.object({ name: z.string(), description: z.string() })),
  })
  .openapi("PlaybookPluginOptions");

export function registerPromptRoutes(app: App, deps: AppDeps): void {
  registerPromptVersionActions(app, deps);
  registerPromptImportAndHistory(app, deps);
}

/** PromptVersions Publish, Run and DownloadToYml. */
function registerPromptVersionActions(app: App, deps: AppDeps): void {
  const db = deps.db;
  addRoute(
    app,
    {
      access: access.staff,
      method: "post",
      path: "/api/v1/PromptVersions/{key}/Publish",
      tags: ["PromptVersions"],
      operationId: "PromptVersions_Publish",
      summary: "Publish a prompt version",
      description: "This version becomes the prompt's one published version (the previous one is unpublished); the change is in the prompt's history.",
      request: { params: Key },
      responses: { ...ok(Version, "The published version"), ...commonErrors, 404: errors[404] },
    },
    async (c) => c.json(await svc.publish(db, c.get("ctx"), keyOf(c)), 200),
  );
  addRoute(
    app,
    {
      access: access.staff,
      method: "post",
      path: "/api/v1/PromptVersions/{key}/Run",
      tags: ["PromptVersions"],
      operationId: "PromptVersions_Run",
      summary: "Try a prompt version on a project",
      description:
        "The version's template with its placeholders ({{projectName}}, {{testOptions}}, {{respondents}}, {{leaders}}, {{measures}}) filled from the project's computed results by the built-in local provider; the facts used are returned, and placeholders it does not know are listed.",
      request: { params: Key, body: { required: true, content: { "application/json": { schema: z.strictObject({ projectId: z.number().int().positive() }).openapi("PromptVersionRun") } } } },
      responses: { ...ok(Run, "The output"), ...commonErrors, 404: errors[404] },
    },
    async (c) => c.json(await svc.run(db, c.get("ctx"), keyOf(c), c.req.valid("json").projectId), 200),
  );
  addRoute(
    app,
    {
      access: access.staff,
      method: "post",
      path: "/api/v1/PromptVersions/{key}/DownloadToYml",
      tags: ["PromptVersions"],
      operationId: "PromptVersions_DownloadToYml",
      summary: "A prompt version as YAML",
      description: "The version (with its prompt's name and type) as a YAML document that ImportFromYml reads back.",
      request: { params: Key },
      responses: { 200: { description: "The YAML file", content: { "application/yaml": { schema: z.string() } } }, ...commonErrors, 404: errors[404] },
    },
    async (c) => {
      const r = await svc.downloadToYml(db, c.get("ctx"), keyOf(c));
      return c.body(r.yml, 200, { "content-type": "application/yaml; charset=utf-8", "content-disposition": `attachment; filename="${r.fileName}"` });
    },
  );
}

/** PromptVersions ImportFromYml, DataEventsLog GetPromptVersionHistory, Prompts PlaybookPluginOptions. */
function registerPromptImportAndHistory(app: App, deps: AppDeps): void {
  const db = deps.db;
  addRoute(
    app,
    {
      access: access.staff,
      method: "post",
      path: "/api/v1/PromptVersions/ImportFromYml",
      tags: ["PromptVersions"],
      operationId: "PromptVersions_ImportFromYml",
      summary: "Import a prompt version from YAML",
      description:
        "A new, unpublished version (the next number) of the prompt the document names (created when missing, then `prompt.type` is required). Errors name the field, or the line for YAML that does not parse.",
      request: { body: { required: true, content: { "application/json": { schema: z.strictObject({ yml: z.string().min(1).max(200_000) }).openapi("ImportFromYml") } } } },
      responses: { ...ok(Version, "The new version"), ...commonErrors },
    },
    async (c) => c.json(await svc.importFromYml(db, c.get("ctx"), c.req.valid("json").yml), 200),
  );
  addRoute(
    app,
    {
      access: access.staff,
      method: "get",
      path: "/api/v1/DataEventsLog/GetPromptVersionHistory",
      tags: ["DataEventsLog"],
      operationId: "DataEventsLog_GetPromptVersionHistory",
      summary: "A prompt's version history",
      description: "Each version created, imported, published and run, with who and when, oldest first.",
      request: {
        query: z.object({
          promptId: z
            .string()
            .regex(/^\d{1,9}$/)
            .openapi({ param: { name: "promptId", in: "query" }, description: "The prompt" }),
        }),
      },
      responses: { ...ok(History, "The history"), ...commonErrors, 404: errors[404] },
    },
    async (c) => c.json(await svc.history(db, c.get("ctx"), Number(c.req.valid("query").promptId)), 200),
  );
  addRoute(
    app,
    {
      access: access.staff,
      method: "get",
      path: "/api/v1/Prompts/PlaybookPluginOptions",
      tags: ["Prompts"],
      operationId: "Prompts_PlaybookPluginOptions",
      summary: "What prompt templates can use",
      description: "The placeholders Run fills from a project's results, the prompt types, and the providers.",
      request: {},
      responses: { ...ok(Options, "The options"), ...commonErrors },
    },
    async (c) => c.json(svc.playbookPluginOptions(), 200),
  );
}
