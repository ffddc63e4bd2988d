// `ideally credits ledger`: the client's credit log rows, newest first (the balance is their sum).
import { usageError } from "../../errors.ts";
import { printJson, table } from "../../output.ts";
import { needClient, ok, signedIn, type GlobalOptions } from "../../session.ts";

export async function runLedger(o: GlobalOptions & { top?: string; project?: string }): Promise<void> {
  const top = o.top ?? "50";
  if (!/^\d{1,4}$/.test(top) || Number(top) < 1 || Number(top) > 1000) throw usageError(`--top: expected 1 to 1000, got '${top}'`);
  if (o.project !== undefined && !/^\d{1,9}$/.test(o.project)) throw usageError(`--project: expected a project id, got '${o.project}'`);
  const api = signedIn(o);
  const clientId = needClient(api);
  const rows = ok(
    await api.client.GET("/api/v1/CreditLogs", {
      params: {
        query: {
          $filter: `clientId eq ${clientId}${o.project ? ` and projectId eq ${o.project}` : ""}`,
          $orderby: "createdAt desc,id desc",
          $top: Number(top),
          $select: "id,type,creditAmount,projectId,description,transferId,relatedClientId,createdAt",
          $expand: "creditLogType($select=name)",
        },
      },
    }),
    "reading the ledger",
  ).value;
  if (o.json) return printJson(rows);
  process.stdout.write(
    `${table(
      ["id", "date", "type", "amount", "project", "description"],
      rows.map((r) => [String(r!.id), (r!.createdAt ?? "").slice(0, 10), r!.creditLogType?.name ?? String(r!.type), String(r!.creditAmount), r!.projectId == null ? "" : String(r!.projectId), r!.description ?? ""]),
    )}\n`,
  );
}
