// The credit ledger's calls (SPEC 7): Projects CreditCostNow and ProjectScheduleEstimates, CreditLogs
// POST/PATCH/DELETE (staff only; they replace the generic writes, which would take any type and
// amount without the ledger lock, the overdraft check or an audit row) and MakeCreditTransfer,
// Clients ExportTransactionListCsv and ClientSubStats.
import { z } from "@hono/zod-openapi";
import type { App, AppDeps } from "../../app-types.ts";
import { access } from "../../access/policy.ts";
import { addRoute, commonErrors, errorResponse, errors } from "../../openapi.ts";
import { schemasFor } from "../../entities/schemas.ts";
import * as svc from "./credits.service.ts";
import { MANUAL_TYPES } from "./ledger.ts";

const KeyParams = (set: string) =>
  z.object({
    key: z
      .string()
      .regex(/^-?\d{1,9}$/, "must be an integer")
      .openapi({ param: { name: "key", in: "path" }, description: `${set} key` }),
  });
const keyOf = (c: { req: { valid(target: "param"): { key: string } } }) => Number(c.req.valid("param").key);

const RegionCost = z.object({
  regionId: z.number().int(),
  regionName: z.string(),
  sampleSize: z.number().int().describe("Completes per wave"),
  isCustomerPanel: z.boolean(),
  rate: z.number().describe("Credits per complete"),
  standardCompletes: z.number().int().describe("Completes at the standard rate (up to 200)"),
  boostedCompletes: z.number().int().describe("Completes beyond 200, at 1.5x (boosted sample)"),
  cost: z.number().int().describe("This region's credits, rounded up"),
});

const CostNow = z
  .object({
    projectId: z.number().int(),
    clientId: z.number().int(),
    statusCode: z.number().int(),
    total: z.number().int().describe("What the next run costs now: exactly what Submit charges"),
    regions: z.array(RegionCost),
    cells: z.number().int().describe("Monadic cells: the live test options (at least 1)"),
    cellFactor: z.number().describe("1 + 0.25 x (cells - 1)"),
    addOns: z.object({
      priceSensitivity: z.boolean(),
      marketReach: z.boolean(),
      customQuestions: z.number().int(),
      includedCustomQuestions: z.number().int(),
      extraCustomQuestions: z.number().int(),
      rate: z.number().describe("The add-ons' share of the base: 0.20 price sensitivity + 0.15 market reach + 0.05 per extra custom question"),
    }),
    lastRunCost: z.number().nullable().describe("SPEC 9: minus the credit amounts of the latest charged schedule date; null before any"),
    balance: z.number(),
    overdraftLimit: z.number(),
    available: z.number().describe("balance + overdraftLimit"),
    affordable: z.boolean().describe("Whether Submit could charge total now"),
  })
  .openapi("CreditCostNow");

const EstimateBody = z
  .strictObject({
    regionIds: z.array(z.number().int()).min(1).max(60).describe("The regions, as POST Projects takes them"),
    sampleSize: z.number().int().min(1).max(100000).nullable().optional().describe("Completes per region per wave (200 when omitted, as POST Projects)"),
    frameworkId: z.number().int().optional().describe("1010 and 1020 carry the price sensitivity and market reach add-ons"),
    testOptions: z.number().int().min(0).max(1000).describe("Test options (monadic cells)"),
    priceSensitivity: z.boolean().optional(),
    marketReach: z.boolean().optional(),
    customQuestions: z.number().int().min(0).max(1000).optional().describe("Team-written questions"),
  })
  .openapi("CreditCostEstimateBody");

const CostEstimate = CostNow.omit({ projectId: true, statusCode: true, lastRunCost: true }).openapi("CreditCostEstimate");

const WaveEstimate = z.object({
  waveNumber: z.number().int(),
  scheduleDate: z.string(),
  estimatedCompletionDate: z.string().nullable(),
  scheduled: z.boolean().describe("The wave has schedule rows; false: projected from a Draft's settings"),
  charged: z.boolean(),
  scheduleTypeId: z.number().int().nullable().describe("1 Standard, 10 DelayCharge, 15 DelayChargeFuture"),
  cost: z.number(),
  regions: z.array(
    z.object({
      regionId: z.number().int(),
      scheduleId: z.number().int().nullable(),
      creditLogId: z.number().int().nullable(),
      charged: z.boolean(),
      cost: z.number(),
    }),
  ),
});

const ScheduleEstimates = z
  .object({
    projectId: z.number().int(),
    statusCode: z.number().int(),
    waveMode: z.boolean(),
    scheduleStartDate: z.string().nullable(),
    frequencyWeeks: z.number().int().nullable(),
    wavesRequired: z.number().int().nullable(),
    costPerWave: z.number(),
    lastRunCost: z.number().nullable(),
    estimatedDays: z.number().int().nullable(),
    waves: z.array(WaveEstimate),
    upcomingTotal: z.number(),
    uncharged: z.number(),
  })
  .openapi("ProjectScheduleEstimates");

const ManualType = z
  .union(MANUAL_TYPES.map((t) => z.literal(t)))
  .describe("1 HubspotDeal, 2 CBSubscription, 80-85 and 90 project adjustments, 86 Freebie");
const Amount = z
  .number()
  .finite()
  .refine((x) => x !== 0 && Math.abs(x) < 1e10 && Math.round(x * 100) === x * 100, "a non-zero amount with at most two decimals");

const NewCreditLog = z
  .strictObject({
    type: ManualType,
    creditAmount: Amount.describe("Positive adds credits, negative spends them"),
    clientId: z.number().int().positive().optional().describe("The client; default the project's, else the clientId header"),
    projectId: z.number().int().positive().nullable().optional().describe("Required for 80-85 and 90, refused otherwise"),
    description: z.string().max(1000).nullable().optional(),
    hubspotDealId: z.string().max(200).nullable().optional(),
  })
  .openapi("NewCreditLog");

const CreditLogPatch = z
  .strictObject({
    type: ManualType.optional(),
    creditAmount: Amount.optional(),
    projectId: z.number().int().positive().nullable().optional(),
    description: z.string().max(1000).nullable().optional(),
    hubspotDealId: z.string().max(200).nullable().optional(),
  })
  .refine((b) => Object.keys(b).length > 0, { message: "Name at least one field to change" })
  .openapi("CreditLogPatch");

const Transfer = z
  .strictObject({
    fromClientId: z.number().int().positive(),
    toClientId: z.number().int().positive(),
    amount: z
      .number()
      .positive()
      .finite()
      .refine((x) => x < 1e10 && Math.round(x * 100) === x * 100, "at most two decimals"),
    note: z.string().max(1000).nullable().optional(),
  })
  .openapi("MakeCreditTransfer");

const TransferSide = z.object({ clientId: z.number().int(), creditLogId: z.number().int(), balance: z.number() });
const TransferResult = z
  .object({ transferId: z.string().uuid(), amount: z.number(), from: TransferSide, to: TransferSide })
  .openapi("CreditTransferResult");

const StatusCount = z.object({ statusCode: z.number().int(), count: z.number().int() });
const ClientStats = z.object({
  clientId: z.number().int(),
  name: z.string(),
  tier: z.string(),
  parentId: z.number().int().nullable(),
  overdraftLimit: z.number(),
  isTrial: z.boolean(),
  trialEndsAt: z.string().nullable(),
  balance: z.number(),
  available: z.number(),
  pendingCharges: z.number().describe("Credits reserved for scheduled runs (PendingSurveyRun, net of refunds)"),
  spendThisMonth: z.number().describe("Net spend: runs and adjustments, less refunds (calendar periods, UTC)"),
  spendThisQuarter: z.number(),
  spendThisYear: z.number(),
  creditsAddedThisYear: z.number().describe("Purchases, subscriptions and freebies"),
  transfersInThisYear: z.number(),
  transfersOutThisYear: z.number(),
  runsThisMonth: z.number().int(),
  runsThisQuarter: z.number().int(),
  runsThisYear: z.number().int(),
  runsTotal: z.number().int(),
  lastPurchaseAt: z.string().nullable(),
  lastPurchaseAmount: z.number().nullable(),
  lastPurchaseType: z.number().int().nullable(),
  projectsByStatus: z.array(StatusCount),
  projectsTotal: z.number().int(),
});
const SubStats = z
  .object({
    client: ClientStats,
    children: z.array(ClientStats).describe("With requestscope descendants: each client beneath, with its own figures"),
    totals: z.object({
      balance: z.number(),
      pendingCharges: z.number(),
      spendThisMonth: z.number(),
      spendThisQuarter: z.number(),
      spendThisYear: z.number(),
      creditsAddedThisYear: z.number(),
      runsThisMonth: z.number().int(),
      runsThisQuarter: z.number().int(),
      runsThisYear: z.number().int(),
      runsTotal: z.number().int(),
      projectsByStatus: z.array(StatusCount),
      projectsTotal: z.number().int(),
    }),
  })
  .openapi("ClientSubStats");

export function registerCreditRoutes(app: App, deps: AppDeps): void {
  const db = deps.db;
  const logs = deps.registry.get("CreditLogs");
  const CreditLog = logs ? schemasFor(deps.registry, logs).entity : z.object({});

  addRoute(
    app,
    {
      access: access.viewer,
      method: "get",
      path: "/api/v1/Projects/{key}/CreditCostNow",
      tags: ["Projects"],
      operationId: "Projects_CreditCostNow",
      summary: "What the project's next run costs now, with the formula's parts and the client's balance",
      description: "The formula is docs/credits.md's; Submit charges exactly `total`. Also the last-run cost (SPEC 9).",
      request: { params: KeyParams("Projects") },
      responses: { 200: { description: "The cost", content: { "application/json": { schema: CostNow } } }, ...commonErrors, 404: errors[404] },
    },
    async (c) => c.json(await svc.creditCostNow(db, c.get("ctx"), { projectId: keyOf(c) }), 200),
  );

  // Literal path before /Projects/{key}.
  addRoute(
    app,
    {
      access: access.viewer,
      method: "post",
      path: "/api/v1/Projects/CreditCostEstimate",
      tags: ["Projects"],
      operationId: "Projects_CreditCostEstimate",
      summary: "What a draft with these settings would cost now, without creating it",
      description: "CreditCostNow's formula (docs/credits.md) on settings instead of a project's rows: the CLI's `projects create --dry-run`. Nothing is written.",
      request: { body: { required: true, content: { "application/json": { schema: EstimateBody } } } },
      responses: { 200: { description: "The cost", content: { "application/json": { schema: CostEstimate } } }, ...commonErrors },
    },
    async (c) => c.json(await svc.creditCostEstimate(db, c.get("ctx"), c.req.valid("json")), 200),
  );

  addRoute(
    app,
    {
      access: access.viewer,
      method: "get",
      path: "/api/v1/Projects/{key}/ProjectScheduleEstimates",
      tags: ["Projects"],
      operationId: "Projects_ProjectScheduleEstimates",
      summary: "The cost and dates of the project's upcoming waves",
      description: "A submitted project's unrun schedules (charged or not), or the waves a Draft's settings would schedule at Submit.",
      request: { params: KeyParams("Projects") },
      responses: {
        200: { description: "The upcoming waves", content: { "application/json": { schema: ScheduleEstimates } } },
        ...commonErrors,
        404: errors[404],
      },
    },
    async (c) => c.json(await svc.projectScheduleEstimates(db, c.get("ctx"), { projectId: keyOf(c) }), 200),
  );

  // Literal path before /CreditLogs/{key}.
  addRoute(
    app,
    {
      access: access.admin,
      method: "post",
      path: "/api/v1/CreditLogs/MakeCreditTransfer",
      tags: ["CreditLogs"],
      operationId: "CreditLogs_MakeCreditTransfer",
      summary: "Move credits between two clients of one enterprise",
      description:
        "Two Transfer (140) rows sharing a transferId, in one transaction under both ledgers' locks; never below the sender's overdraft limit. " +
        "Staff: any two clients of one enterprise. An Admin: clients within the request's client (name the enterprise or org in clientId).",
      request: { body: { required: true, content: { "application/json": { schema: Transfer } } } },
      responses: {
        200: { description: "The transfer", content: { "application/json": { schema: TransferResult } } },
        ...commonErrors,
        404: errorResponse("A client is not within the request's scope"),
        409: errorResponse("Not the same enterprise, or not enough credits"),
      },
    },
    async (c) => c.json(await svc.makeCreditTransfer(db, c.get("ctx"), c.req.valid("json")), 200),
  );

  addRoute(
    app,
    {
      access: access.staff,
      method: "post",
      path: "/api/v1/CreditLogs",
      tags: ["CreditLogs"],
      operationId: "CreditLogs_create",
      summary: "Add a purchase, freebie or adjustment to a client's ledger (staff)",
      description: "Types 1, 2, 86, and 80-85 and 90 (project adjustments, projectId required). Audited in DataEventsLog. Replaces the generic POST.",
      request: { body: { required: true, content: { "application/json": { schema: NewCreditLog } } } },
      responses: {
        201: { description: "The ledger row", content: { "application/json": { schema: CreditLog } } },
        ...commonErrors,
        404: errors[404],
        409: errorResponse("The balance would go below minus the overdraft limit"),
      },
    },
    async (c) => c.json(await svc.createAdjustment(db, c.get("ctx"), c.req.valid("json")), 201),
  );

  addRoute(
    app,
    {
      access: access.staff,
      method: "patch",
      path: "/api/v1/CreditLogs/{key}",
      tags: ["CreditLogs"],
      operationId: "CreditLogs_update",
      summary: "Correct a ledger row (staff, audited)",
      description: "Rows the system writes (30, 40, 130, 140) change only their description and hubspotDealId. Replaces the generic PATCH.",
      request: { params: KeyParams("CreditLogs"), body: { required: true, content: { "application/json": { schema: CreditLogPatch } } } },
      responses: {
        200: { description: "The row after", content: { "application/json": { schema: CreditLog } } },
        ...commonErrors,
        404: errors[404],
        409: errorResponse("A system row's amount, or the balance would go below minus the overdraft limit"),
      },
    },
    async (c) => c.json(await svc.updateAdjustment(db, c.get("ctx"), keyOf(c), c.req.valid("json")), 200),
  );

  addRoute(
    app,
    {
      access: access.staff,
      method: "delete",
      path: "/api/v1/CreditLogs/{key}",
      tags: ["CreditLogs"],
      operationId: "CreditLogs_delete",
      summary: "Delete a ledger row staff wrote (staff, audited)",
      description: "Purchases, freebies and adjustments only; the row is kept in DataEventsLog. Replaces the generic DELETE.",
      request: { params: KeyParams("CreditLogs") },
      responses: {
        204: { description: "Deleted" },
        ...commonErrors,
        404: errors[404],
        409: errorResponse("A system row, or the balance would go below minus the overdraft limit"),
      },
    },
    async (c) => {
      await svc.deleteAdjustment(db, c.get("ctx"), keyOf(c));
      return c.body(null, 204);
    },
  );

  addRoute(
    app,
    {
      access: access.admin,
      method: "get",
      path: "/api/v1/Clients/{key}/ExportTransactionListCsv",
      tags: ["Clients"],
      operationId: "Clients_ExportTransactionListCsv",
      summary: "The client's credit ledger as CSV (streamed), oldest first with a running balance",
      description: `Columns: ${svc.CSV_COLUMNS.join(", ")}. A header row first; CRLF line ends (RFC 4180).`,
      request: { params: KeyParams("Clients") },
      responses: {
        200: {
          description: "The CSV file",
          content: { "text/csv": { schema: z.string() } },
          headers: z.object({ "content-disposition": z.string() }),
        },
        ...commonErrors,
        404: errors[404],
      },
    },
    async (c) => {
      const clientId = keyOf(c);
      const stream = await svc.exportTransactionListCsv(db, c.get("ctx"), { clientId });
      return c.body(stream, 200, {
        "content-type": "text/csv; charset=utf-8",
        "content-disposition": `attachment; filename="transactions-${clientId}.csv"`,
      });
    },
  );

  addRoute(
    app,
    {
      access: access.admin,
      method: "get",
      path: "/api/v1/Clients/{key}/ClientSubStats",
      tags: ["Clients"],
      operationId: "Clients_ClientSubStats",
      summary: "Subscription and usage figures for the management dashboards",
      description:
        "Balance, pending charges, spend this month/quarter/year, runs, projects by status; with requestscope descendants, each client beneath " +
        "with its own figures, and totals.",
      request: { params: KeyParams("Clients") },
      responses: { 200: { description: "The figures", content: { "application/json": { schema: SubStats } } }, ...commonErrors, 404: errors[404] },
    },
    async (c) => c.json(await svc.clientSubStats(db, c.get("ctx"), { clientId: keyOf(c) }), 200),
  );
}
