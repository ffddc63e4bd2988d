// Staff's sample suppliers (the redirect protocol; suppliers.ts): /api/v1/SampleSuppliers, a run's
// supplier (SurveyRuns SetSampleSupplier) and its reconciliation CSV (SurveyRuns ReconciliationCsv).
// Not a SPEC entity set: staff data with a secret that never leaves the server.
import { z } from "@hono/zod-openapi";
import type { App, AppDeps } from "../../app-types.ts";
import { access } from "../../access/policy.ts";
import { addRoute, commonErrors, errors, keyOf, keyParams } from "../../openapi.ts";
import * as s from "./suppliers.ts";

const Supplier = z
  .object({
    id: z.number().int(),
    name: z.string(),
    entryParameter: z.string().describe("The query parameter of the entry link that carries the supplier's respondent id"),
    completeUrl: z.string(),
    screenOutUrl: z.string(),
    overQuotaUrl: z.string(),
    qualityTerminateUrl: z.string(),
    hasSecret: z.boolean().describe("Whether entries and end links are signed (the secret itself is never returned)"),
    createdAt: z.string(),
    updatedAt: z.string().nullable(),
  })
  .openapi("SampleSupplier");

const template = (what: string) => z.string().trim().min(8).max(2000).describe(`The ${what} link, with {rid} where the respondent id goes`);
const Body = z
  .strictObject({
    name: z.string().trim().min(1).max(200),
    entryParameter: z.string().regex(/^[A-Za-z][A-Za-z0-9_]{0,39}$/, "letters, digits and _ (a query parameter name)").optional().describe("Default rid"),
    completeUrl: template("complete"),
    screenOutUrl: template("screen-out"),
    overQuotaUrl: template("over-quota"),
    qualityTerminateUrl: template("quality-terminate"),
    secret: z.string().min(16).max(200).nullable().optional().describe("The shared secret of the HMAC-SHA256 signatures (write only; null removes it)"),
  })
  .openapi("SampleSupplierBody");
const json = <T extends z.ZodType>(schema: T) => ({ body: { required: true, content: { "application/json": { schema } } } });
/** A JSON response under its status; typed as a Record so that the status stays a literal key (a computed key widens to string). */
const ok = <T extends z.ZodType, S extends 200 | 201 = 200>(schema: T, description: string, status?: S) =>
  ({ [status ?? 200]: { description, content: { "application/json": { schema } } } }) as Record<S, { description: string; content: { "application/json": { schema: T } } }>;

export function registerSupplierRoutes(app: App, deps: AppDeps): void {
  registerSupplierCrud(app, deps);
  registerRunSupplier(app, deps);
}

/** SampleSuppliers list, create, read, update and delete. */
function registerSupplierCrud(app: App, deps: AppDeps): void {
  const db = deps.db;
  const tags = ["SampleSuppliers"];
  addRoute(
    app,
    { access: access.staff, method: "get", path: "/api/v1/SampleSuppliers", tags, operationId: "SampleSuppliers_List", summary: "Outside sample suppliers", responses: { ...ok(z.object({ value: z.array(Supplier) }), "The suppliers"), ...commonErrors } },
    async (c) => c.json({ value: await s.listSuppliers(db) }, 200),
  );
  addRoute(
    app,
    { access: access.staff, method: "post", path: "/api/v1/SampleSuppliers", tags, operationId: "SampleSuppliers_Create", summary: "Add a sample supplier", request: json(Body), responses: { ...ok(Supplier, "The supplier", 201), ...commonErrors } },
    async (c) => c.json(await s.createSupplier(db, c.req.valid("json")), 201),
  );
  addRoute(
    app,
    { access: access.staff, method: "get", path: "/api/v1/SampleSuppliers/{key}", tags, operationId: "SampleSuppliers_Get", summary: "A sample supplier", request: { params: keyParams("SampleSuppliers") }, responses: { ...ok(Supplier, "The supplier"), ...commonErrors, 404: errors[404] } },
    async (c) => c.json(await s.getSupplier(db, keyOf(c)), 200),
  );
  addRoute(
    app,
    {
      access: access.staff,
      method: "patch",
      path: "/api/v1/SampleSuppliers/{key}",
      tags,
      operationId: "SampleSuppliers_Update",
      summary: "Change a sample supplier",
      request: { params: keyParams("SampleSuppliers"), ...json(Body.partial().openapi("SampleSupplierPatch")) },
      responses: { ...ok(Supplier, "The supplier"), ...commonErrors, 404: errors[404] },
    },
    async (c) => c.json(await s.updateSupplier(db, keyOf(c), c.req.valid("json")), 200),
  );
  addRoute(
    app,
    { access: access.staff, method: "delete", path: "/api/v1/SampleSuppliers/{key}", tags, operationId: "SampleSuppliers_Delete", summary: "Remove a sample supplier", request: { params: keyParams("SampleSuppliers") }, responses: { 204: { description: "Removed" }, ...commonErrors, 404: errors[404] } },
    async (c) => {
      await s.deleteSupplier(db, keyOf(c));
      return c.body(null, 204);
    },
  );
}

/** SurveyRuns SetSampleSupplier and ReconciliationCsv. */
function registerRunSupplier(app: App, deps: AppDeps): void {
  const db = deps.db;
  addRoute(
    app,
    {
      access: access.staff,
      method: "post",
      path: "/api/v1/SurveyRuns/{key}/SetSampleSupplier",
      tags: ["SurveyRuns"],
      operationId: "SurveyRuns_SetSampleSupplier",
      summary: "Take a run's respondents from an outside supplier",
      description:
        "The run takes respondents from this supplier (null: from none) by the redirect protocol: entry `/s/{surveyLink}?supplier={id}&{entryParameter}={rid}` (and `&sig=` with a secret); at the end the respondent goes to the supplier's matching link. " +
        "A supplier's run takes no simulated respondent: the simulated panel never answers it, and a run it has already answered is refused (409), as is a Closed run.",
      request: { params: keyParams("SurveyRuns"), ...json(z.strictObject({ sampleSupplierId: z.number().int().positive().nullable() }).openapi("SetSampleSupplier")) },
      responses: { ...ok(z.object({ surveyRunId: z.number().int(), sampleSupplierId: z.number().int().nullable() }), "The run's supplier"), ...commonErrors, 404: errors[404], 409: errors[409] },
    },
    async (c) => {
      const { sampleSupplierId } = c.req.valid("json");
      await s.setRunSupplier(db, keyOf(c), sampleSupplierId);
      return c.json({ surveyRunId: keyOf(c), sampleSupplierId }, 200);
    },
  );
  addRoute(
    app,
    {
      access: access.staff,
      method: "get",
      path: "/api/v1/SurveyRuns/{key}/ReconciliationCsv",
      tags: ["SurveyRuns"],
      operationId: "SurveyRuns_ReconciliationCsv",
      summary: "The run's supplier respondents as CSV (what suppliers invoice from)",
      description:
        "Columns: rid, status (complete, screen-out, over-quota, quality-terminate, in-progress, removed), start, end (ISO 8601), quality_flags (;-separated), supplier. A header row; CRLF line ends (RFC 4180).",
      request: { params: keyParams("SurveyRuns") },
      responses: { 200: { description: "The CSV file", content: { "text/csv": { schema: z.string() } } }, ...commonErrors, 404: errors[404] },
    },
    async (c) => {
      const id = keyOf(c);
      return c.body(await s.reconciliationCsv(db, id), 200, { "content-type": "text/csv; charset=utf-8", "content-disposition": `attachment; filename="survey-run-${id}-reconciliation.csv"` });
    },
  );
}
