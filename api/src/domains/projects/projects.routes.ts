// Project authoring (SPEC.md section 7): creating a project, its questions and options, regions
// and targets, price sensitivity and market reach set-ups, objectives, the trash, and files. Thin
// routes: validate, call one service, answer. Registered before the generic entity routes, so
// POST /Projects, POST and PATCH /Questions and POST/DELETE /ProjectObjectives replace the
// generic operations of the same method and path (openapi.ts addRoute: the first one wins).
import type { z } from "@hono/zod-openapi";
import type { App, AppDeps } from "../../app-types.ts";
import { access } from "../../access/policy.ts";
import type { RequestCtx } from "../../access/principal.ts";
import { addRoute, commonErrors, errors, type TypedHandler } from "../../openapi.ts";
import { schemasFor } from "../../entities/schemas.ts";
import { keyOf, keyParam, rawJson } from "./common.ts";
import * as S from "./schemas.ts";
import * as svc from "./projects.service.ts";
import * as setup from "./setup.service.ts";
import { registerQuestionRoutes } from "./questions.routes.ts";
import { registerTrashRoutes } from "./trash.routes.ts";
import { registerFileRoutes } from "./files.routes.ts";

const ok = <T extends z.ZodType>(description: string, schema: T) => ({ description, content: { "application/json": { schema } } });

export function registerProjectRoutes(app: App, deps: AppDeps): void {
  registerProjectAuthoring(app, deps);
  registerPriceAndReachSetup(app, deps);
  registerSetupReadsAndObjectives(app, deps);
}

/** Projects POST, DeleteRegions and ChangeTargets. */
function registerProjectAuthoring(app: App, deps: AppDeps): void {
  const { db, registry: reg } = deps;
  const entity = (set: string) => schemasFor(reg, reg.mustGet(set)).entity;
  const collection = (set: string) => schemasFor(reg, reg.mustGet(set)).collection;
  addRoute(
    app,
    {
      access: access.user,
      method: "post",
      path: "/api/v1/Projects",
      tags: ["Projects"],
      operationId: "Projects_create",
      summary: "Create a project (a Draft of the request's team) with its framework's standard questions",
      description:
        "The framework must fit the project type. The project starts as a Draft (status 0) owned by the caller, with the " +
        "framework's standard questions at position 5 in SPEC 9's order (5, 1, 4, 3, 2, 6, then the rest; the price questions " +
        "and the market reach question come with their set-up calls), the default objective active, and its regions. " +
        "Answers the project with its regions, objective and questions.",
      request: { body: { required: true, content: { "application/json": { schema: S.CreateProject } } } },
      responses: { 201: ok("The new project", entity("Projects")), ...commonErrors, 404: errors[404], 409: errors[409] },
    },
    async (c) => rawJson(await svc.createProject(db, reg, c.get("ctx"), c.req.valid("json")), 201),
  );

  addRoute(
    app,
    {
      access: access.user,
      method: "post",
      path: "/api/v1/Projects/{key}/DeleteRegions",
      tags: ["Projects"],
      operationId: "Projects_DeleteRegions",
      summary: "Remove regions from a draft project (and the targets that applied to them)",
      request: { params: keyParam("Projects"), body: { required: true, content: { "application/json": { schema: S.RegionIdsBody } } } },
      responses: { 200: ok("The project's remaining regions", collection("ProjectsRegions")), ...commonErrors, 404: errors[404], 409: errors[409] },
    },
    async (c) => rawJson(`{"value":${await svc.deleteRegions(db, reg, c.get("ctx"), keyOf(c), c.req.valid("json"))}}`, 200),
  );

  addRoute(
    app,
    {
      access: access.user,
      method: "post",
      path: "/api/v1/Projects/{key}/ChangeTargets",
      tags: ["Projects"],
      operationId: "Projects_ChangeTargets",
      summary: "Replace a draft project's targets (demographic options or screener answers), optionally its regions too",
      request: { params: keyParam("Projects"), body: { required: true, content: { "application/json": { schema: S.ChangeTargetsBody } } } },
      responses: { 200: ok("The project's targets", collection("Targets")), ...commonErrors, 404: errors[404], 409: errors[409] },
    },
    async (c) => rawJson(`{"value":${await svc.changeTargets(db, reg, c.get("ctx"), keyOf(c), c.req.valid("json"))}}`, 200),
  );
}

/** The price sensitivity and market reach set-ups' create, update and delete. */
function registerPriceAndReachSetup(app: App, deps: AppDeps): void {
  const { db } = deps;
  // ---- price sensitivity and market reach ----
  const setupConfig = (name: string, summary: string) => ({
    access: access.user,
    method: "post" as const,
    path: `/api/v1/Projects/{key}/${name}`,
    tags: ["Projects"],
    operationId: `Projects_${name}`,
    summary,
  });
  /** A set-up call: its body (schema B) in, the set-up (schema R) out. */
  const setupRoute = <B extends z.ZodType, R extends z.ZodType>(
    name: string,
    summary: string,
    schema: B,
    response: R,
    run: TypedHandler<{
      method: "post";
      path: string;
      request: { params: ReturnType<typeof keyParam>; body: { required: true; content: { "application/json": { schema: B } } } };
      responses: { 200: ReturnType<typeof ok<R>> };
    }>,
  ) =>
    addRoute(
      app,
      {
        ...setupConfig(name, summary),
        request: { params: keyParam("Projects"), body: { required: true, content: { "application/json": { schema } } } },
        responses: { 200: ok("The set-up", response), ...commonErrors, 404: errors[404], 409: errors[409] },
      },
      (c) => run(c),
    );
  /** Removing a set-up: no body, 204. */
  const removeRoute = (name: string, summary: string, run: (ctx: RequestCtx, projectId: number) => Promise<void>) =>
    addRoute(
      app,
      {
        ...setupConfig(name, summary),
        request: { params: keyParam("Projects") },
        responses: { 204: { description: "Removed" }, ...commonErrors, 404: errors[404], 409: errors[409] },
      },
      async (c) => {
        await run(c.get("ctx"), keyOf(c));
        return c.body(null, 204);
      },
    );

  setupRoute("CreatePriceSensitivities", "Set up Van Westendorp price questions (standard questions 19-22) for the test options", S.PriceBody, S.PriceSettings, async (c) =>
    c.json(await setup.createPriceSensitivities(db, c.get("ctx"), keyOf(c), c.req.valid("json")), 200),
  );
  setupRoute("UpdatePriceSensitivities", "Change the price sensitivity set-up (test options, price range, purchase intent)", S.PriceBody, S.PriceSettings, async (c) =>
    c.json(await setup.updatePriceSensitivities(db, c.get("ctx"), keyOf(c), c.req.valid("json")), 200),
  );
  removeRoute("DeletePriceSensitivities", "Remove the price sensitivity set-up and its price questions", (ctx, id) => setup.deletePriceSensitivities(db, ctx, id));
  setupRoute("CreateMarketReach", "Set up market reach (TURF): the items (test options, or a question's options) and the market reach question 25", S.ReachBody, S.ReachSettings, async (c) =>
    c.json(await setup.createMarketReach(db, c.get("ctx"), keyOf(c), c.req.valid("json")), 200),
  );
  setupRoute("UpdateMarketReach", "Change the market reach set-up", S.ReachBody, S.ReachSettings, async (c) =>
    c.json(await setup.updateMarketReach(db, c.get("ctx"), keyOf(c), c.req.valid("json")), 200),
  );
  removeRoute("DeleteMarketReach", "Remove the market reach set-up (and its market reach question)", (ctx, id) => setup.deleteMarketReach(db, ctx, id));
}

/** Projects PriceSensitivities and MarketReach, ProjectObjectives POST and DELETE; then the questions, trash and file routes. */
function registerSetupReadsAndObjectives(app: App, deps: AppDeps): void {
  const { db, registry: reg } = deps;
  const entity = (set: string) => schemasFor(reg, reg.mustGet(set)).entity;
  addRoute(
    app,
    {
      access: access.viewer,
      method: "get",
      path: "/api/v1/Projects/{key}/PriceSensitivities",
      tags: ["Projects"],
      operationId: "Projects_PriceSensitivities",
      summary: "The project's price sensitivity set-up",
      request: { params: keyParam("Projects") },
      responses: { 200: ok("The set-up", S.PriceSettings), ...commonErrors, 404: errors[404] },
    },
    async (c) => c.json(await setup.getPriceSensitivities(db, c.get("ctx"), keyOf(c)), 200),
  );

  addRoute(
    app,
    {
      access: access.viewer,
      method: "get",
      path: "/api/v1/Projects/{key}/MarketReach",
      tags: ["Projects"],
      operationId: "Projects_MarketReach",
      summary: "The project's market reach set-up",
      request: { params: keyParam("Projects") },
      responses: { 200: ok("The set-up", S.ReachSettings), ...commonErrors, 404: errors[404] },
    },
    async (c) => c.json(await setup.getMarketReach(db, c.get("ctx"), keyOf(c)), 200),
  );

  // ---- objectives ----
  addRoute(
    app,
    {
      access: access.user,
      method: "post",
      path: "/api/v1/ProjectObjectives",
      tags: ["ProjectObjectives"],
      operationId: "ProjectObjectives_create",
      summary: "Save an objective for a project; it becomes the project's active objective",
      request: { body: { required: true, content: { "application/json": { schema: S.CreateObjective } } } },
      responses: { 201: ok("The objective", entity("ProjectObjectives")), ...commonErrors, 404: errors[404], 409: errors[409] },
    },
    async (c) => rawJson(await svc.createObjective(db, reg, c.get("ctx"), c.req.valid("json"), deps.queue), 201),
  );

  addRoute(
    app,
    {
      access: access.user,
      method: "delete",
      path: "/api/v1/ProjectObjectives/{key}",
      tags: ["ProjectObjectives"],
      operationId: "ProjectObjectives_delete",
      summary: "Delete a custom objective; the default objective becomes active again if it was the active one",
      request: { params: keyParam("ProjectObjectives") },
      responses: { 204: { description: "Deleted" }, ...commonErrors, 404: errors[404], 409: errors[409] },
    },
    async (c) => {
      await svc.deleteObjective(db, c.get("ctx"), keyOf(c));
      return c.body(null, 204);
    },
  );

  registerQuestionRoutes(app, deps);
  registerTrashRoutes(app, deps);
  registerFileRoutes(app, deps);
}
