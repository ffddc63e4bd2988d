// Generic OData routes for every entity set of the registry: GET list / by key / $count, and POST,
// PATCH, DELETE exactly where the registry (SPEC.md section 7 "Generic") allows them; the other
// verbs answer 405. Routes are thin: they parse and call the entity service.
import { z } from "@hono/zod-openapi";
import type { TypedResponse } from "hono";
import { getQueryParam } from "hono/utils/url";
import type { JSONValue } from "hono/utils/types";
import type { App } from "../app-types.ts";
import type { Db } from "../db/client.ts";
import type { RequestCtx } from "../access/principal.ts";
import { ApiError } from "../errors.ts";
import type { Registry } from "./registry.ts";
import type { EntitySetDef } from "./types.ts";
import { schemasFor } from "./schemas.ts";
import { addRoute, commonErrors, errors } from "../openapi.ts";
import { access, type Access } from "../access/policy.ts";
import * as svc from "./service.ts";

/** The OData query options, each published once under components/parameters. */
function odataOptions(app: App) {
  const option = (id: string, name: string, description: string, schema: z.ZodType = z.string()) =>
    app.openAPIRegistry.registerParameter(id, schema.optional().openapi({ param: { name, in: "query" }, description }));
  const all = z.object({
    $select: option("select", "$select", "Comma-separated properties to return, e.g. id,projectName"),
    $expand: option("expand", "$expand", "Navigation properties to include, with nested options: projectsRegions($expand=region;$orderby=id)"),
    $filter: option("filter", "$filter", "Filter expression: eq ne gt ge lt le, and or not, in (...), contains/startswith/endswith/tolower, navigation paths, any/all"),
    $orderby: option("orderby", "$orderby", "Properties (or navigation paths) with asc/desc, comma-separated"),
    // A query string is text: these validate as text (the OData parser checks the values and
    // answers 400 itself) but are published with their real types, so a typed client sends
    // numbers and booleans (openapi-fetch writes them into the query string).
    $top: option("top", "$top", "Page size, at most 1000 (default 100)", z.string().openapi({ type: "integer", minimum: 0 })),
    $skip: option("skip", "$skip", "Rows to skip", z.string().openapi({ type: "integer", minimum: 0 })),
    $count: option("count", "$count", "true adds @odata.count, the number of matching rows", z.enum(["true", "false"]).openapi({ type: "boolean", enum: undefined })),
    $apply: option("apply", "$apply", "Aggregation: filter(...)/groupby((a,b),aggregate(x with sum as total))"),
  });
  return { all, entity: all.pick({ $select: true, $expand: true }), count: all.pick({ $filter: true, $apply: true }) };
}

function keyParam(set: EntitySetDef) {
  const kf = set.fields[set.key];
  const schema = kf?.type === "int" || kf?.type === "bigint" ? z.string().regex(/^-?\d+$/, "must be an integer") : z.string();
  return z.object({ key: schema.openapi({ param: { name: "key", in: "path" }, description: `${set.name} key` }) });
}

// The JSON text comes straight from PostgreSQL (see odata/compile.ts); the route's declared
// schema documents it. Query options go to the OData parser unfiltered (c.req.query()), so an
// unknown option is reported rather than silently dropped by the documenting schema.
/** The content type of the entity routes' JSON answers. */
export const JSON_TYPE = "application/json; charset=utf-8";
/**
 * A JSON text answered as is, typed as the c.json answer of a T: the registry's schemas have no
 * static shape (T a JSONValue; a count's digits: a number). The one trusted step: the compiler
 * cannot see a JSON text's value, so the Response is narrowed (a plain downcast) to its TypedResponse.
 */
const json = <S extends 200 | 201, T extends JSONValue = JSONValue>(raw: string, status: S) =>
  new Response(raw, { status, headers: { "content-type": JSON_TYPE } }) as Response & TypedResponse<T, S, "json">;

const keyOf = (c: { req: { valid(t: "param"): { key: string } } }) => c.req.valid("param").key;

/** Who may write a set: staff for reference data, any member for their own rows, else Users and Admins. */
function writeAccessOf(set: EntitySetDef): Access {
  if (set.writeAccess === "staff" || set.scope === "global") return access.staff;
  if (set.writeAccess === "admin") return access.admin;
  if (set.scope === "user") return access.viewer;
  return access.user;
}

/** The JSON text of a page of a set's rows, in pieces (entities/service.ts list): the body of GET /api/v1/{Set} (the route's, and the lean read's in app.ts). */
export const listText = (db: Db, reg: Registry, set: EntitySetDef, ctx: RequestCtx, url: string): Promise<readonly string[]> =>
  svc.list(db, reg, set, ctx, getQueryParam(url) as Record<string, string>, url);

/** What the app needs of the generic list routes to answer them without the framework (app.ts). */
export interface EntityLists {
  /** The sets whose GET /api/v1/{Set} is the generic list route (no domain route replaced it), by name. */
  sets: Map<string, EntitySetDef>;
  /** The route's query schema (its validator's). */
  query: z.ZodType;
}

export function registerEntityRoutes(app: App, db: Db, reg: Registry): EntityLists {
  const odata = odataOptions(app);
  const lists = new Map<string, EntitySetDef>();
  // Literal paths ($count) first, or /{key} swallows them.
  for (const set of reg.sets.values()) {
    const s = schemasFor(reg, set);
    const base = `/api/v1/${set.name}`;
    const tags = [set.name];
    const writeAccess = writeAccessOf(set);

    addRoute(
      app,
      {
        access: access.signedIn,
        method: "get",
        path: `${base}/$count`,
        tags,
        summary: `Count ${set.name}`,
        operationId: `${set.name}_count`,
        request: { query: odata.count },
        responses: {
          200: { description: "The number of matching rows", content: { "application/json": { schema: z.number().int() } } },
          ...commonErrors,
        },
      },
      async (c) => json<200, number>(String(await svc.count(db, reg, set, c.get("ctx"), c.req.query())), 200),
    );

    const listed = addRoute(
      app,
      {
        access: access.signedIn,
        method: "get",
        path: base,
        tags,
        summary: `List ${set.name}`,
        description: set.description,
        operationId: `${set.name}_list`,
        request: { query: odata.all },
        responses: {
          200: { description: "A page of rows", content: { "application/json": { schema: s.collection } } },
          ...commonErrors,
        },
      },
      async (c) => json((await listText(db, reg, set, c.get("ctx"), c.req.url)).join(""), 200),
    );
    if (listed) lists.set(set.name, set);

    addRoute(
      app,
      {
        access: access.signedIn,
        method: "get",
        path: `${base}/{key}`,
        tags,
        summary: `Get one ${set.name} row by key`,
        operationId: `${set.name}_get`,
        request: { params: keyParam(set), query: odata.entity },
        responses: {
          200: { description: "The row", content: { "application/json": { schema: s.entity } } },
          ...commonErrors,
          404: errors[404],
        },
      },
      async (c) => json(await svc.getByKey(db, reg, set, c.get("ctx"), keyOf(c), c.req.query()), 200),
    );

    if (set.verbs.includes("post")) {
      addRoute(
        app,
        {
          access: writeAccess,
          method: "post",
          path: base,
          tags,
          summary: `Create a ${set.name} row`,
          operationId: `${set.name}_create`,
          request: { body: { required: true, content: { "application/json": { schema: s.create } } } },
          responses: {
            201: { description: "Created", content: { "application/json": { schema: s.entity } } },
            ...commonErrors,
            409: errors[409],
          },
        },
        async (c) => json(await svc.create(db, reg, set, c.get("ctx"), c.req.valid("json")), 201),
      );
    }
    if (set.verbs.includes("patch")) {
      addRoute(
        app,
        {
          access: writeAccess,
          method: "patch",
          path: `${base}/{key}`,
          tags,
          summary: `Update a ${set.name} row (partial)`,
          operationId: `${set.name}_update`,
          request: {
            params: keyParam(set),
            body: { required: true, content: { "application/json": { schema: s.update } } },
          },
          responses: {
            200: { description: "Updated", content: { "application/json": { schema: s.entity } } },
            ...commonErrors,
            404: errors[404],
            409: errors[409],
          },
        },
        async (c) => json(await svc.update(db, reg, set, c.get("ctx"), keyOf(c), c.req.valid("json")), 200),
      );
    }
    if (set.verbs.includes("delete")) {
      addRoute(
        app,
        {
          access: writeAccess,
          method: "delete",
          path: `${base}/{key}`,
          tags,
          summary: set.softDelete ? `Delete a ${set.name} row (to the trash; can be undeleted)` : `Delete a ${set.name} row`,
          operationId: `${set.name}_delete`,
          request: { params: keyParam(set) },
          responses: {
            204: { description: "Deleted" },
            ...commonErrors,
            404: errors[404],
            409: errors[409],
          },
        },
        async (c) => {
          await svc.remove(db, reg, set, c.get("ctx"), keyOf(c));
          return c.body(null, 204);
        },
      );
    }
  }
  // Verbs the spec does not list for a set: 405, after the real routes so they never shadow them.
  for (const set of reg.sets.values()) {
    const base = `/api/v1/${set.name}`;
    const refuse = (method: string) => () => {
      throw new ApiError("MethodNotAllowed", `${method} is not allowed on ${set.name}`);
    };
    for (const m of ["POST", "PUT", "PATCH", "DELETE"] as const) {
      const onCollection = m === "POST" ? !set.verbs.includes("post") : true;
      const onKey = m === "PATCH" ? !set.verbs.includes("patch") : m === "DELETE" ? !set.verbs.includes("delete") : true;
      if (onCollection) app.on(m, base, refuse(m));
      if (onKey) app.on(m, `${base}/:key`, refuse(m));
    }
  }
  return { sets: lists, query: odata.all };
}
