// Watchers (SPEC 7): Projects({key})/UpdateWatchers, StartWatching, StopWatching and
// Teams({key})/UpdateAutoProjectWatch. Thin: validate, call the service, answer.
import { z } from "@hono/zod-openapi";
import type { App, AppDeps } from "../../app-types.ts";
import { access, type Access } from "../../access/policy.ts";
import { addRoute, commonErrors, errorResponse, errors, type TypedHandler } from "../../openapi.ts";
import { ApiError } from "../../errors.ts";
import * as svc from "./watchers.service.ts";

const KeyParams = (set: string) =>
  z.object({
    key: z
      .string()
      .regex(/^-?\d{1,9}$/, "must be an integer")
      .openapi({ param: { name: "key", in: "path" }, description: `${set} key` }),
  });
const keyOf = (c: { req: { valid(t: "param"): { key: string } } }) => {
  const k = Number(c.req.valid("param").key);
  if (!Number.isSafeInteger(k)) throw new ApiError("BadRequest", "The key must be an integer");
  return k;
};

const WatchersResult = z
  .object({
    projectId: z.number().int(),
    userIds: z.array(z.number().int()).describe("The project's watchers now"),
    added: z.array(z.number().int()),
    removed: z.array(z.number().int()),
  })
  .openapi("ProjectWatchersResult");
const UpdateWatchers = z.strictObject({ userIds: z.array(z.number().int().positive()).max(500).describe("Every watcher the project should have: members of its team") }).openapi("UpdateWatchers");
const AutoWatch = z.strictObject({ enabled: z.boolean() }).openapi("UpdateAutoProjectWatch");
const AutoWatchResult = z.object({ teamId: z.number().int(), autoProjectWatch: z.boolean() }).openapi("UpdateAutoProjectWatchResult");
const Empty = z.strictObject({}).openapi("EmptyBody");

export function registerWatcherRoutes(app: App, deps: AppDeps): void {
  const db = deps.db;
  /** A Projects action on its watchers: its body (schema B) in, the watchers out. */
  const project = <B extends z.ZodType>(
    action: string,
    a: Access,
    summary: string,
    description: string,
    body: B,
    required: boolean,
    run: (
      c: Parameters<
        TypedHandler<{
          method: "post";
          path: string;
          request: { params: ReturnType<typeof KeyParams>; body: { required: boolean; content: { "application/json": { schema: B } } } };
          responses: Record<never, never>;
        }>
      >[0],
    ) => Promise<svc.WatchersResult>,
  ) =>
    addRoute(
      app,
      {
        access: a,
        method: "post",
        path: `/api/v1/Projects/{key}/${action}`,
        tags: ["Projects"],
        operationId: `Projects_${action}`,
        summary,
        description,
        request: { params: KeyParams("Projects"), body: { required, content: { "application/json": { schema: body } } } },
        responses: {
          200: { description: "The project's watchers", content: { "application/json": { schema: WatchersResult } } },
          ...commonErrors,
          404: errors[404],
        },
      },
      async (c) => c.json(await run(c), 200),
    );

  project(
    "UpdateWatchers",
    access.user,
    "Set who watches a project",
    "Replaces the watchers with userIds (members of the project's team only; 400 names the others). Watchers are notified of the project's status changes.",
    UpdateWatchers,
    true,
    (c) => svc.updateWatchers(db, c.get("ctx"), keyOf(c), c.req.valid("json").userIds),
  );
  project("StartWatching", access.viewer, "Watch a project (the caller)", "The caller is notified of the project's status changes. Idempotent.", Empty, false, (c) =>
    svc.startWatching(db, c.get("ctx"), keyOf(c)),
  );
  project("StopWatching", access.viewer, "Stop watching a project (the caller)", "Idempotent.", Empty, false, (c) => svc.stopWatching(db, c.get("ctx"), keyOf(c)));

  addRoute(
    app,
    {
      access: access.admin,
      method: "post",
      path: "/api/v1/Teams/{key}/UpdateAutoProjectWatch",
      tags: ["Teams"],
      operationId: "Teams_UpdateAutoProjectWatch",
      summary: "Turn automatic watching of new projects on or off for a team",
      description: "When on, every member of the team becomes a watcher of each project created in it (existing projects are unchanged).",
      request: { params: KeyParams("Teams"), body: { required: true, content: { "application/json": { schema: AutoWatch } } } },
      responses: {
        200: { description: "The setting", content: { "application/json": { schema: AutoWatchResult } } },
        ...commonErrors,
        404: errorResponse("No such team in the request's scope"),
      },
    },
    async (c) => c.json(await svc.updateAutoProjectWatch(db, c.get("ctx"), keyOf(c), c.req.valid("json").enabled), 200),
  );
}
