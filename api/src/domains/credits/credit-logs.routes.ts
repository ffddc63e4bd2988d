// The ledger's rows (SPEC 7): CreditLogs POST/PATCH/DELETE (staff only; they replace the generic
// writes, which would take any type and amount without the ledger lock, the overdraft check or an
// audit row) and MakeCreditTransfer; Clients ExportTransactionListCsv and ClientSubStats. Moved
// from credits.routes.ts (issue 34).
import { z } from "@hono/zod-openapi";
import type { App, AppDeps } from "../../app-types.ts";
import { access } from "../../access/policy.ts";
import { addRoute, commonErrors, errorResponse, errors } from "../../openapi.ts";
import { schemasFor } from "../../entities/schemas.ts";
import * as svc from "./credits.service.ts";
import { KeyParams, keyOf, NewCreditLog, CreditLogPatch, Transfer, TransferResult, SubStats } from "./credits.schemas.ts";
import { LEDGER_EXPORT_MAX_ROWS } from "../../config.ts";

/** CreditLogs MakeCreditTransfer and the staff POST. */
export function registerTransferAndCreate(app: App, deps: AppDeps): void {
  const db = deps.db;
  const logs = deps.registry.get("CreditLogs");
  const CreditLog = logs ? schemasFor(deps.registry, logs).entity : z.object({});
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
        "Staff: two clients of one enterprise. An Admin: clients within the request's client (name the enterprise or org in clientId).",
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
}

/** CreditLogs PATCH and DELETE (staff). */
export function registerLogEdits(app: App, deps: AppDeps): void {
  const db = deps.db;
  const logs = deps.registry.get("CreditLogs");
  const CreditLog = logs ? schemasFor(deps.registry, logs).entity : z.object({});
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
}

/** Clients ExportTransactionListCsv and ClientSubStats. */
export function registerClientLedgerReads(app: App, deps: AppDeps): void {
  const db = deps.db;
  addRoute(
    app,
    {
      access: access.admin,
      method: "get",
      path: "/api/v1/Clients/{key}/ExportTransactionListCsv",
      tags: ["Clients"],
      operationId: "Clients_ExportTransactionListCsv",
      summary: "The client's credit ledger as CSV (streamed), oldest first with a running balance",
      description: `Columns: ${svc.CSV_COLUMNS.join(", ")}. A header row first; CRLF line ends (RFC 4180). A ledger of more than ${LEDGER_EXPORT_MAX_ROWS.toLocaleString("en")} entries is refused (400) before the first byte.`,
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
      description: "Balance, pending charges, spend this month/quarter/year, runs, projects by status; with requestscope descendants, each client beneath " + "with its own figures, and totals.",
      request: { params: KeyParams("Clients") },
      responses: { 200: { description: "The figures", content: { "application/json": { schema: SubStats } } }, ...commonErrors, 404: errors[404] },
    },
    async (c) => c.json(await svc.clientSubStats(db, c.get("ctx"), { clientId: keyOf(c) }), 200),
  );
}
