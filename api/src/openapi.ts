// Shared pieces of the OpenAPI document: the error shape, the common error responses, and the
// one way routes are added (with their access rule).
import { createRoute, z, type RouteConfig } from "@hono/zod-openapi";
import type { Context, MiddlewareHandler } from "hono";
import type { App, AppEnv } from "./app.ts";
import type { RequestCtx } from "./access/principal.ts";
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

export const commonErrors = {
  400: errorResponse("Bad request: invalid query option or body"),
  401: errorResponse("Not signed in"),
  403: errorResponse("Not allowed"),
};

/**
 * Registers an operation: its OpenAPI entry (with `x-access`, from which docs/permissions.md is
 * generated) and the access check. Every route of the API goes through here.
 */
/** A handler's context: the route's validated input is typed by its zod schemas at the call site. */
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export type RouteContext = Context<AppEnv, any, any>;

export function addRoute(app: App, config: RouteConfig & { access: Access }, handler: (c: RouteContext) => Promise<Response> | Response): void {
  const { access: a, ...rest } = config;
  const route = createRoute({
    ...rest,
    ...(a.kind === "anonymous" ? { security: [] } : {}),
    "x-access": accessLabel(a),
    middleware: [accessMiddleware(a)],
  } as RouteConfig);
  app.openapi(route, handler as never);
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
