// The credit ledger's calls (SPEC 7): Projects CreditCostNow, CreditCostEstimate and
// ProjectScheduleEstimates here; the ledger's rows (CreditLogs, MakeCreditTransfer, Clients
// ExportTransactionListCsv and ClientSubStats) in credit-logs.routes.ts; schemas in credits.schemas.ts.
import type { App, AppDeps } from "../../app-types.ts";
import { access } from "../../access/policy.ts";
import { addRoute, commonErrors, errors } from "../../openapi.ts";
import * as svc from "./credits.service.ts";
import { registerTransferAndCreate, registerLogEdits, registerClientLedgerReads } from "./credit-logs.routes.ts";
import { KeyParams, keyOf, CostNow, EstimateBody, CostEstimate, ScheduleEstimates } from "./credits.schemas.ts";

export function registerCreditRoutes(app: App, deps: AppDeps): void {
  registerCostRoutes(app, deps);
  registerTransferAndCreate(app, deps);
  registerLogEdits(app, deps);
  registerClientLedgerReads(app, deps);
}

/** Projects CreditCostNow, CreditCostEstimate and ProjectScheduleEstimates. */
function registerCostRoutes(app: App, deps: AppDeps): void {
  const db = deps.db;
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
}
