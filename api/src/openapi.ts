// Shared pieces of the OpenAPI document: the error shape, the common error responses, and the
// one way routes are added (with their access rule).
import { createRoute, z, type RouteConfig, type RouteHandler } from "@hono/zod-openapi";
import type { MiddlewareHandler, TypedResponse } from "hono";
import type { StatusCode } from "hono/utils/http-status";
import type { JSONParsed } from "hono/utils/types";
import type { App, AppEnv } from "./app-types.ts";
import type { RequestCtx } from "./access/principal.ts";
import { ApiError } from "./errors.ts";
import { AnswerContract } from "./ops/answer-check.ts";
import { accessLabel, checkBeforeDb, checkRoleEarly, type Access } from "./access/policy.ts";

export const ErrorBody = z
  .object({
    typename: z.string().describe("Error class, e.g. ValidationError, NotFound, AuthFailureDto"),
    message: z.string(),
    detail: z.string().optional(),
    errors: z.array(z.object({ path: z.string(), message: z.string() })).optional(),
  })
  .openapi("Error");

export const errorResponse = (description: string) => ({
  description,
  content: { "application/json": { schema: ErrorBody } },
  headers: z.object({ "x-error-trace-id": z.string().describe("Trace id to quote to support") }),
});

/** Error responses shared by many operations: published once under components/responses. */
const SHARED_ERRORS = {
  BadRequest: "Bad request: an invalid query option, parameter or body (errors lists the fields)",
  Unauthorized: "Not signed in, or the session has ended",
  Forbidden: "Not allowed for this caller (see docs/permissions.md)",
  NotFound: "No such row, or not visible to the caller",
  Conflict: "Conflicts with existing data or the current state",
} as const;

const ref = (name: keyof typeof SHARED_ERRORS) => ({ $ref: `#/components/responses/${name}` });

export function registerSharedResponses(app: App): void {
  app.openAPIRegistry.register("Error", ErrorBody);
  for (const [name, description] of Object.entries(SHARED_ERRORS)) {
    app.openAPIRegistry.registerComponent("responses", name, {
      description,
      headers: { "x-error-trace-id": { description: "Trace id to quote to support", schema: { type: "string" } } },
      content: { "application/json": { schema: { $ref: "#/components/schemas/Error" } } },
    });
  }
}

export const errors = {
  400: ref("BadRequest"),
  401: ref("Unauthorized"),
  403: ref("Forbidden"),
  404: ref("NotFound"),
  409: ref("Conflict"),
};

export const commonErrors = { 400: errors[400], 401: errors[401], 403: errors[403] };

/**
 * What a handler of route R may answer: for each declared status, `c.json(body, status)` with the
 * body its JSON schema describes, `c.body(...)`/`c.text(...)` for its other media types, and any
 * answer for a status declared without content (a shared error's `$ref`, a 204, a redirect).
 * Stricter than Hono's own RouteConfigToTypedResponse, which admits any `Response` beside a
 * non-JSON media type or a `$ref`, so a wrong JSON body would pass there.
 */
type StatusOf<K> = K extends StatusCode ? K : K extends `${infer N extends number}` ? Extract<N, StatusCode> : never;
type ContentAnswer<C, S extends StatusCode> = {
  [M in keyof C]: M extends `application/${string}json${string}`
    ? C[M] extends { schema: infer Z extends z.ZodType }
      ? Response & TypedResponse<JSONParsed<z.output<Z>>, S, "json">
      : never
    : Response & TypedResponse<unknown, S, "body" | "text">;
}[keyof C];
export type RouteAnswer<R extends RouteConfig> = {
  [K in keyof R["responses"]]: R["responses"][K] extends { content: infer C } ? ContentAnswer<C, StatusOf<K>> : Response & TypedResponse<unknown, StatusOf<K>>;
}[keyof R["responses"]];

/** A handler of route R: its context's `c.req.valid(...)` is typed by R's request schemas, its answer by R's responses. */
export type TypedHandler<R extends RouteConfig> = (c: Parameters<RouteHandler<R, AppEnv>>[0]) => Promise<RouteAnswer<R>> | RouteAnswer<R>;

/** Each app's operations with their declared responses, for checking answers (ops/answer-check.ts). */
const contracts = new WeakMap<App, AnswerContract>();
export function answerContract(app: App): AnswerContract {
  return contracts.get(app) ?? contracts.set(app, new AnswerContract(ErrorBody)).get(app)!;
}

/** The operations added to each app, by "METHOD path". */
const added = new WeakMap<App, Set<string>>();

/**
 * Registers an operation: its OpenAPI entry (with `x-access`, from which docs/permissions.md is
 * generated) and the access check. Every route of the API goes through here. Returns whether it
 * was added (not when an operation of the same method and path was added first).
 */
export function addRoute<R extends RouteConfig>(app: App, config: R & { access: Access }, handler: TypedHandler<R>): boolean {
  // The first registration of a method and path wins, as it does in Hono's routing: a domain
  // route registered before the generic ones (e.g. POST /Teams) replaces the generic operation in
  // the document too (the generator would otherwise publish the later one).
  const seen = added.get(app) ?? added.set(app, new Set()).get(app)!;
  const id = `${config.method.toUpperCase()} ${config.path}`;
  if (seen.has(id)) return false;
  seen.add(id);
  const a = config.access;
  const route = createRoute({
    ...operationOf(config),
    ...(a.kind === "anonymous" ? { security: [] } : {}),
    "x-access": accessLabel(a),
    middleware: [accessMiddleware(a)],
  });
  app.openapi<R>(route, handler);
  answerContract(app).add(config.method, config.path, config.responses);
  return true;
}

/** The operation of a route declaration: the declaration without its access rule (which the document carries as `x-access`). */
function operationOf<R extends RouteConfig>(config: R & { access: Access }): R {
  const copy: R & { access?: Access } = { ...config };
  delete copy.access;
  return copy;
}

function accessMiddleware(a: Access): MiddlewareHandler<AppEnv> {
  return async (c, next) => {
    const ctx = c.get("ctx") as RequestCtx | undefined;
    checkBeforeDb(a, ctx);
    if (ctx) {
      await checkRoleEarly(c.get("db"), a, ctx);
      c.set("ctx", { ...ctx, access: a });
    }
    await next();
  };
}

/** The `{key}` path parameter of a bound function or action on `set` (an int4 id). */
export const keyParams = (set: string) =>
  z.object({
    key: z
      .string()
      .regex(/^-?\d{1,9}$/, "must be an integer")
      .openapi({ param: { name: "key", in: "path" }, description: `${set} key` }),
  });

/** The route's `{key}` as a number (keyParams checked its form). */
export function keyOf(c: { req: { valid: (t: "param") => { key: string } } }): number {
  const n = Number(c.req.valid("param").key);
  if (!Number.isSafeInteger(n)) throw new ApiError("BadRequest", "The key must be an integer");
  return n;
}
