// Staff's sample suppliers (the redirect protocol; suppliers.ts): /api/v1/SampleSuppliers, a run's
// supplier (SurveyRuns SetSampleSupplier) or suppliers with their allocations (SampleAllocations,
// SetSampleAllocations; allocations.ts) and its reconciliation CSV (SurveyRuns ReconciliationCsv).
// Not a SPEC entity set: staff data with a secret that never leaves the server.
import { z } from "@hono/zod-openapi";
import type { App, AppDeps } from "../../app-types.ts";
import { access } from "../../access/policy.ts";
import { addRoute, commonErrors, errors, keyOf, keyParams } from "../../openapi.ts";
import * as s from "./suppliers.ts";
import { MAX_SUPPLIERS, readAllocations, setAllocations } from "./allocations.ts";
import { resendCallback } from "./supplier-resend.ts";
import { nudgeSupplierCallbacks } from "./suppliers.jobs.ts";

const code = z.string().regex(s.CALLBACK_CODE, "1 to 40 letters, digits, _ . ~ or -");
const Codes = z
  .strictObject({ complete: code.optional(), "screen-out": code.optional(), "over-quota": code.optional(), "quality-terminate": code.optional() })
  .openapi("SupplierCallbackCodes")
  .describe("The supplier's own code for each outcome, put in a callback's {outcome} (PureSpectrum: 21, 18, 17, 20); an outcome not named is sent as its own name");

const Supplier = z
  .object({
    id: z.number().int(),
    name: z.string(),
    entryParameter: z.string().describe("The query parameter of the entry link that carries the supplier's respondent id"),
    completeUrl: z.string(),
    screenOutUrl: z.string(),
    overQuotaUrl: z.string(),
    qualityTerminateUrl: z.string(),
    callbackUrl: z.string().nullable().describe("The server-to-server callback, with {rid} and {outcome}; null: redirects only"),
    callbackCodes: Codes,
    reversalUrl: z.string().nullable().describe("Where reversals of reported completes go, with {rid} and optionally {outcome}; null: the callback URL"),
    signatureParameter: z.string().describe("The query parameter that carries the signature (last in the link)"),
    signatureAlgorithm: z.enum(s.SIGNATURE_ALGORITHMS),
    signatureEncoding: z.enum(s.SIGNATURE_ENCODINGS),
    signedPart: z.enum(s.SIGNED_PARTS).describe("What is signed: the link before the signature parameter (url) or its query string only (query)"),
    hasSecret: z.boolean().describe("Whether entries, end links and callbacks are signed (the secret itself is never returned)"),
    isSimulated: z
      .boolean()
      .describe(
        "The simulated panel's own supplier: it answers the runs whose sample source is simulated through the same signed entry and end links; Ideally configures it (PATCH and DELETE answer 409), and SIMULATED_PANEL=off switches it off",
      ),
    createdAt: z.string(),
    updatedAt: z.string().nullable(),
  })
  .openapi("SampleSupplier");

const template = (what: string) => z.string().trim().min(8).max(2000).describe(`The ${what} link, with {rid} where the respondent id goes`);
const parameter = z.string().regex(/^[A-Za-z][A-Za-z0-9_]{0,39}$/, "letters, digits and _ (a query parameter name)");
const Body = z
  .strictObject({
    name: z.string().trim().min(1).max(200),
    entryParameter: parameter.optional().describe("The entry link's parameter carrying the respondent id. Default rid"),
    completeUrl: template("complete"),
    screenOutUrl: template("screen-out"),
    overQuotaUrl: template("over-quota"),
    qualityTerminateUrl: template("quality-terminate"),
    callbackUrl: z
      .string()
      .trim()
      .min(8)
      .max(2000)
      .nullable()
      .optional()
      .describe(
        "A server-to-server callback sent (POST, signed like the end links) for each outcome beside the redirect: {rid} and {outcome} (complete, screen-out, over-quota, quality-terminate, or the supplier's code for it from callbackCodes) are filled in. 2xx delivers it; 5xx, 408, 425, 429 and network errors are retried with backoff; any other answer fails it at once. null removes it",
      ),
    callbackCodes: Codes.nullable().optional().describe("The supplier's own code for each outcome in {outcome}; null: the outcomes' names"),
    reversalUrl: z
      .string()
      .trim()
      .min(8)
      .max(2000)
      .nullable()
      .optional()
      .describe(
        "Where a reversal goes when staff remove a complete already reported (signed and retried as callbacks are), with {rid} and optionally {outcome} (the final outcome, quality-terminate, in the supplier's code); null: the callback URL",
      ),
    secret: z.string().min(16).max(200).nullable().optional().describe("The shared secret of the signatures (write only; null removes it)"),
    signatureParameter: parameter.optional().describe("The parameter carrying the signature, last in the link (Cint: hash; PureSpectrum: ps_hash). Default sig"),
    signatureAlgorithm: z
      .enum(s.SIGNATURE_ALGORITHMS)
      .optional()
      .describe("HMAC-SHA256 (default) or HMAC-SHA1 keyed by the secret; SHA1-SECRET-SUFFIX or SHA256-SECRET-SUFFIX: the hash of the signed text followed by the secret (PureSpectrum's ps_hash)"),
    signatureEncoding: z.enum(s.SIGNATURE_ENCODINGS).optional().describe("hex (default, lower case) or base64url (RFC 4648, no padding)"),
    signedPart: z.enum(s.SIGNED_PARTS).optional().describe("url (default): the whole link before the signature parameter; query: its query string only"),
  })
  .openapi("SampleSupplierBody");
const json = <T extends z.ZodType>(schema: T) => ({ body: { required: true, content: { "application/json": { schema } } } });
/** A JSON response under its status; typed as a Record so that the status stays a literal key (a computed key widens to string). */
const ok = <T extends z.ZodType, S extends 200 | 201 = 200>(schema: T, description: string, status?: S) =>
  ({ [status ?? 200]: { description, content: { "application/json": { schema } } } }) as Record<S, { description: string; content: { "application/json": { schema: T } } }>;

export function registerSupplierRoutes(app: App, deps: AppDeps): void {
  registerSupplierCrud(app, deps);
  registerRunSupplier(app, deps);
  registerAllocations(app, deps);
  registerCallbacks(app, deps);
  registerReconciliation(app, deps);
}

/** SampleSuppliers list, create, read, update and delete. */
function registerSupplierCrud(app: App, deps: AppDeps): void {
  const db = deps.db;
  const tags = ["SampleSuppliers"];
  addRoute(
    app,
    {
      access: access.staff,
      method: "get",
      path: "/api/v1/SampleSuppliers",
      tags,
      operationId: "SampleSuppliers_List",
      summary: "Outside sample suppliers",
      responses: { ...ok(z.object({ value: z.array(Supplier) }), "The suppliers"), ...commonErrors },
    },
    async (c) => c.json({ value: await s.listSuppliers(db) }, 200),
  );
  addRoute(
    app,
    {
      access: access.staff,
      method: "post",
      path: "/api/v1/SampleSuppliers",
      tags,
      operationId: "SampleSuppliers_Create",
      summary: "Add a sample supplier",
      request: json(Body),
      responses: { ...ok(Supplier, "The supplier", 201), ...commonErrors },
    },
    async (c) => c.json(await s.createSupplier(db, c.req.valid("json")), 201),
  );
  addRoute(
    app,
    {
      access: access.staff,
      method: "get",
      path: "/api/v1/SampleSuppliers/{key}",
      tags,
      operationId: "SampleSuppliers_Get",
      summary: "A sample supplier",
      request: { params: keyParams("SampleSuppliers") },
      responses: { ...ok(Supplier, "The supplier"), ...commonErrors, 404: errors[404] },
    },
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
      responses: { ...ok(Supplier, "The supplier"), ...commonErrors, 404: errors[404], 409: errors[409] },
    },
    async (c) => c.json(await s.updateSupplier(db, keyOf(c), c.req.valid("json")), 200),
  );
  addRoute(
    app,
    {
      access: access.staff,
      method: "delete",
      path: "/api/v1/SampleSuppliers/{key}",
      tags,
      operationId: "SampleSuppliers_Delete",
      summary: "Remove a sample supplier",
      description: "409 for the simulated panel's own supplier (Ideally configures it; SIMULATED_PANEL=off switches it off).",
      request: { params: keyParams("SampleSuppliers") },
      responses: { 204: { description: "Removed" }, ...commonErrors, 404: errors[404], 409: errors[409] },
    },
    async (c) => {
      await s.deleteSupplier(db, keyOf(c));
      return c.body(null, 204);
    },
  );
}

/** SurveyRuns SetSampleSupplier. */
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
        "The run takes respondents from this supplier (null: from none) by the redirect protocol: entry `/s/{surveyLink}?supplier={id}&{entryParameter}={rid}` (and `&{signatureParameter}=` with a secret); at the end the respondent goes to the supplier's matching link, and with a callback URL the outcome is also posted to it. " +
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
}

const AllocationOut = z
  .object({
    sampleSupplierId: z.number().int(),
    supplierName: z.string(),
    share: z.number().describe("Percent of the run's completes"),
    cap: z.number().int().describe("The supplier's completes at most: its share of the run's target, by the largest remainder (the caps sum to the target)"),
    completes: z.number().int(),
    inProgress: z.number().int().describe("Its respondents answering now: they finish even once the cap is met"),
  })
  .openapi("SampleAllocation");
const Allocations = z.object({ surveyRunId: z.number().int(), value: z.array(AllocationOut) }).openapi("SampleAllocations");

/** SurveyRuns SampleAllocations and SetSampleAllocations (staff; record 0146). */
function registerAllocations(app: App, deps: AppDeps): void {
  const db = deps.db;
  addRoute(
    app,
    {
      access: access.staff,
      method: "get",
      path: "/api/v1/SurveyRuns/{key}/SampleAllocations",
      tags: ["SurveyRuns"],
      operationId: "SurveyRuns_SampleAllocations",
      summary: "A supplier run's suppliers, each with its share, cap and progress",
      description: "Empty for a run with one supplier (it takes that supplier's respondents up to the run's quota) or none.",
      request: { params: keyParams("SurveyRuns") },
      responses: { ...ok(Allocations, "The run's allocations, in the order staff gave them"), ...commonErrors, 404: errors[404] },
    },
    async (c) => c.json({ surveyRunId: keyOf(c), value: await readAllocations(db, keyOf(c)) }, 200),
  );
  addRoute(
    app,
    {
      access: access.staff,
      method: "post",
      path: "/api/v1/SurveyRuns/{key}/SetSampleAllocations",
      tags: ["SurveyRuns"],
      operationId: "SurveyRuns_SetSampleAllocations",
      summary: "Take a run's respondents from several suppliers, each up to its share",
      description:
        `From 1 to ${MAX_SUPPLIERS} suppliers, each with its share of the run's completes (percent, in hundredths, summing to 100); the first becomes the run's supplier (sampleSupplierId) and the run's source is \`supplier\`. Each supplier's entry link is the run's with its own \`supplier={id}\`. ` +
        "An entry of a supplier whose cap is met goes back to it over quota (signed, recorded, called back); its respondents already answering finish; the run closes at its quota as before. " +
        "Shares may change while the run is in the field (the caps follow). 409: a Closed run, a run without a number of completes, a run with simulated or customer-list respondents, dropping a supplier whose respondents are in the run, or the simulated panel's supplier; 404: an unknown supplier. SetSampleSupplier and SetSampleSource replace the allocations with their one supplier.",
      request: {
        params: keyParams("SurveyRuns"),
        ...json(
          z
            .strictObject({
              allocations: z.array(z.strictObject({ sampleSupplierId: z.number().int().positive(), share: z.number() })).max(MAX_SUPPLIERS * 10),
            })
            .openapi("SetSampleAllocations"),
        ),
      },
      responses: { ...ok(Allocations, "The run's allocations now"), ...commonErrors, 404: errors[404], 409: errors[409] },
    },
    async (c) => {
      const { allocations } = c.req.valid("json");
      return c.json({ surveyRunId: keyOf(c), value: await setAllocations(db, keyOf(c), allocations) }, 200);
    },
  );
}

const Attempt = z.object({
  attempt: z.number().int().describe("Numbered on across series: the first attempt of a callback sent again follows the last one before it"),
  series: z.number().int().describe("The series the attempt belongs to: 1, then one more each time staff sent the callback again"),
  url: z.string().describe("The signed URL called"),
  startedAt: z.string(),
  finishedAt: z.string(),
  httpStatus: z.number().int().nullable().describe("The supplier's answer; null when the call failed (see error)"),
  error: z.string().nullable(),
});
const Callback = z
  .object({
    id: z.number().int(),
    rid: z.string(),
    kind: z.enum(["outcome", "reversal"]).describe("outcome: what the rid was sent back with; reversal: a reported complete changed later (removed by staff) to `outcome`"),
    outcome: z.enum(["complete", "screen-out", "over-quota", "quality-terminate"]),
    reason: z.string().nullable().describe("Why a reversal was made (removed by staff); null for an outcome"),
    decidedAt: z.string(),
    state: z.enum(["pending", "delivered", "failed"]),
    nextAttemptAt: z.string().nullable(),
    deliveredAt: z.string().nullable(),
    series: z.number().int().describe("1, and one more each time staff sent it again (Resend): each series has its own attempts and backoff"),
    attempts: z.array(Attempt),
  })
  .openapi("SupplierCallback");

/** SurveyRuns SupplierCallbacks and the staff's Resend of one. */
function registerCallbacks(app: App, deps: AppDeps): void {
  const db = deps.db;
  addRoute(
    app,
    {
      access: access.staff,
      method: "get",
      path: "/api/v1/SurveyRuns/{key}/SupplierCallbacks",
      tags: ["SurveyRuns"],
      operationId: "SurveyRuns_SupplierCallbacks",
      summary: "The run's server-to-server supplier callbacks, each attempt recorded",
      description: `One callback per outcome of a supplier with a callback URL, and one per reversal (a reported complete removed by staff, sent after the complete's own callback): pending until a 2xx answer (delivered); after a 5xx, 408, 425, 429 or a network error it is tried again after 30 s, quadrupling up to 6 hours, and after ${s.CALLBACK_MAX_ATTEMPTS} attempts the callback is failed; any other answer (3xx, other 4xx) fails it at once.`,
      request: { params: keyParams("SurveyRuns") },
      responses: { ...ok(z.object({ value: z.array(Callback) }), "The callbacks"), ...commonErrors, 404: errors[404] },
    },
    async (c) => c.json({ value: await s.supplierCallbacks(db, keyOf(c)) }, 200),
  );
  addRoute(
    app,
    {
      access: access.staff,
      method: "post",
      path: "/api/v1/SurveyRuns/{key}/SupplierCallbacks/{callbackId}/Resend",
      tags: ["SurveyRuns"],
      operationId: "SurveyRuns_SupplierCallbackResend",
      summary: "Send a supplier callback again",
      description: `A failed callback (or a pending one waiting out its backoff) goes back to pending, due now, for a fresh series of attempts (${s.CALLBACK_MAX_ATTEMPTS} more, the backoff from 30 s again); the attempts so far are kept and listed, each with its series, and the callbacks job is nudged to send it at once. Re-sending the outcome of a reversed complete sends its reversal again after it (a reversal is never sent while its outcome is pending). Audited (SurveyRun, SupplierCallbackResent). 409 for a delivered callback, one being sent at this moment, or one whose supplier has no URL for it now; 404 for a callback of another run.`,
      request: {
        params: keyParams("SurveyRuns").extend({
          callbackId: z
            .string()
            .regex(/^\d{1,18}$/, "must be an integer")
            .openapi({ param: { name: "callbackId", in: "path" }, description: "The callback's id (SupplierCallbacks)" }),
        }),
      },
      responses: { ...ok(Callback, "The callback, pending again"), ...commonErrors, 404: errors[404], 409: errors[409] },
    },
    async (c) => {
      const callback = await resendCallback(db, c.get("ctx"), keyOf(c), Number(c.req.valid("param").callbackId));
      // After the commit: the job sends it now rather than at the next minute.
      if (deps.queue) await nudgeSupplierCallbacks(deps.queue).catch(() => {});
      return c.json(callback, 200);
    },
  );
}

/** SurveyRuns ReconciliationCsv. */
function registerReconciliation(app: App, deps: AppDeps): void {
  const db = deps.db;
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
        "Every rid of the run's suppliers with its final outcome: the one it was sent back with (the redirect and the callback carry the same one), late arrivals after the close included, or for a complete reversed later (removed by staff) the outcome it was reversed to. Columns: rid, status (complete, screen-out, over-quota, quality-terminate, or in-progress), start, end (when the outcome was decided; ISO 8601), quality_flags (;-separated), supplier, callback (delivered, pending, failed; empty without a callback URL), reported (for a reversed rid, the outcome first reported; else empty), reversed_at, reversal_callback (the reversal's callback state). A header row; CRLF line ends (RFC 4180).",
      request: { params: keyParams("SurveyRuns") },
      responses: { 200: { description: "The CSV file", content: { "text/csv": { schema: z.string() } } }, ...commonErrors, 404: errors[404] },
    },
    async (c) => {
      const id = keyOf(c);
      return c.body(await s.reconciliationCsv(db, id), 200, { "content-type": "text/csv; charset=utf-8", "content-disposition": `attachment; filename="survey-run-${id}-reconciliation.csv"` });
    },
  );
}
