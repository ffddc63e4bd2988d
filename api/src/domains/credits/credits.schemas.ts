// The credit ledger calls' schemas (moved from credits.routes.ts, issue 34): shared by
// credits.routes.ts and credit-logs.routes.ts.
import { z } from "@hono/zod-openapi";
import { MANUAL_TYPES } from "./ledger.ts";

export const KeyParams = (set: string) =>
  z.object({
    key: z
      .string()
      .regex(/^-?\d{1,9}$/, "must be an integer")
      .openapi({ param: { name: "key", in: "path" }, description: `${set} key` }),
  });
export const keyOf = (c: { req: { valid(target: "param"): { key: string } } }) => Number(c.req.valid("param").key);

export const RegionCost = z.object({
  regionId: z.number().int(),
  regionName: z.string(),
  sampleSize: z.number().int().describe("Completes per wave"),
  isCustomerPanel: z.boolean(),
  rate: z.number().describe("Credits per complete"),
  standardCompletes: z.number().int().describe("Completes at the standard rate (up to 200)"),
  boostedCompletes: z.number().int().describe("Completes beyond 200, at 1.5x (boosted sample)"),
  cost: z.number().int().describe("This region's credits, rounded up"),
});

export const CostNow = z
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

export const EstimateBody = z
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

export const CostEstimate = CostNow.omit({ projectId: true, statusCode: true, lastRunCost: true }).openapi("CreditCostEstimate");

export const WaveEstimate = z.object({
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

export const ScheduleEstimates = z
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

export const ManualType = z.union(MANUAL_TYPES.map((t) => z.literal(t))).describe("1 HubspotDeal, 2 CBSubscription, 80-85 and 90 project adjustments, 86 Freebie");
export const Amount = z
  .number()
  .finite()
  .refine((x) => x !== 0 && Math.abs(x) < 1e10 && Math.round(x * 100) === x * 100, "a non-zero amount with at most two decimals");

export const NewCreditLog = z
  .strictObject({
    type: ManualType,
    creditAmount: Amount.describe("Positive adds credits, negative spends them"),
    clientId: z.number().int().positive().optional().describe("The client; default the project's, else the clientId header"),
    projectId: z.number().int().positive().nullable().optional().describe("Required for 80-85 and 90, refused otherwise"),
    description: z.string().max(1000).nullable().optional(),
    hubspotDealId: z.string().max(200).nullable().optional(),
  })
  .openapi("NewCreditLog");

export const CreditLogPatch = z
  .strictObject({
    type: ManualType.optional(),
    creditAmount: Amount.optional(),
    projectId: z.number().int().positive().nullable().optional(),
    description: z.string().max(1000).nullable().optional(),
    hubspotDealId: z.string().max(200).nullable().optional(),
  })
  .refine((b) => Object.keys(b).length > 0, { message: "Name at least one field to change" })
  .openapi("CreditLogPatch");

export const Transfer = z
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

export const TransferSide = z.object({ clientId: z.number().int(), creditLogId: z.number().int(), balance: z.number() });
export const TransferResult = z.object({ transferId: z.string().uuid(), amount: z.number(), from: TransferSide, to: TransferSide }).openapi("CreditTransferResult");

export const StatusCount = z.object({ statusCode: z.number().int(), count: z.number().int() });
export const ClientStats = z.object({
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
export const SubStats = z
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
