// The trash of the soft-delete sets: {Set}/GetTrashed and {Set}({key})/Undelete.
import { z } from "@hono/zod-openapi";
import type { App, AppDeps } from "../../app-types.ts";
import { access } from "../../access/policy.ts";
import { addRoute, commonErrors, errors } from "../../openapi.ts";
import { schemasFor } from "../../entities/schemas.ts";
import { keyOf, keyParam, rawJson } from "./common.ts";
import * as svc from "./trash.service.ts";

export function registerTrashRoutes(app: App, deps: AppDeps): void {
  const { db, registry: reg } = deps;
  const option = (name: string, description: string) =>
    z
      .string()
      .optional()
      .openapi({ param: { name, in: "query" }, description });
  const odata = z.object({
    $select: option("$select", "Properties to return"),
    $expand: option("$expand", "Navigation properties to include"),
    $filter: option("$filter", "Further filter (deletedAt ne null always applies)"),
    $orderby: option("$orderby", "Default deletedAt desc"),
    $top: option("$top", "Page size, at most 1000 (default 100)"),
    $skip: option("$skip", "Rows to skip"),
    $count: option("$count", "true adds @odata.count"),
  });

  for (const name of svc.TRASH_SETS) {
    const s = schemasFor(reg, reg.mustGet(name));
    addRoute(
      app,
      {
        access: access.viewer,
        method: "get",
        path: `/api/v1/${name}/GetTrashed`,
        tags: [name],
        operationId: `${name}_GetTrashed`,
        summary: `${name} in the trash (deleted, not yet restored) of the request's client`,
        request: { query: odata },
        responses: {
          200: {
            description: "The deleted rows, newest first",
            content: { "application/json": { schema: s.collection } },
          },
          ...commonErrors,
        },
      },
      // Query options go to the OData parser as sent (an unknown option is named, not dropped).
      async (c) => rawJson(await svc.getTrashed(db, reg, c.get("ctx"), name, c.req.query(), c.req.url), 200),
    );

    addRoute(
      app,
      {
        access: access.user,
        method: "post",
        path: `/api/v1/${name}/{key}/Undelete`,
        tags: [name],
        operationId: `${name}_Undelete`,
        summary: `Restore a ${name} row from the trash`,
        request: { params: keyParam(name) },
        responses: {
          200: { description: "The restored row", content: { "application/json": { schema: s.entity } } },
          ...commonErrors,
          404: errors[404],
          409: errors[409],
        },
      },
      async (c) => rawJson(await svc.undelete(db, reg, c.get("ctx"), name, keyOf(c)), 200),
    );
  }
}
