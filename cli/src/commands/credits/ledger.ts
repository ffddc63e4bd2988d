// `ideally credits ledger`: the client's credit log rows, newest first (the balance is their sum),
// a page at a time (--limit, --page, --all).
import { usageError } from "../../errors.ts";
import { printJson, table } from "../../output.ts";
import { pageHint, pagingOf, readPaged, type PageOptions } from "../../paging.ts";
import { needClient, ok, signedIn, type GlobalOptions } from "../../session.ts";

export const LEDGER_PAGE = 50;

export async function runLedger(o: GlobalOptions & PageOptions & { project?: string }): Promise<void> {
  const paging = pagingOf(o, LEDGER_PAGE);
  if (o.project !== undefined && !/^\d{1,9}$/.test(o.project)) throw usageError(`--project: expected a project id, got '${o.project}'`);
  const api = signedIn(o);
  const clientId = needClient(api);
  const { rows, total } = await readPaged(paging, async (top, skip) => {
    const r = ok(
      await api.client.GET("/api/v1/CreditLogs", {
        params: {
          query: {
            $filter: `clientId eq ${clientId}${o.project ? ` and projectId eq ${o.project}` : ""}`,
            $orderby: "createdAt desc,id desc",
            $top: top,
            $skip: skip,
            $count: true,
            $select: "id,type,creditAmount,projectId,description,transferId,relatedClientId,createdAt",
            $expand: "creditLogType($select=name)",
          },
        },
      }),
      "reading the ledger",
    );
    return { rows: r.value, total: r["@odata.count"] ?? null };
  });
  if (o.json) printJson(rows);
  else if (rows.length) {
    process.stdout.write(
      `${table(
        ["id", "date", "type", "amount", "project", "description"],
        rows.map((r) => [
          String(r!.id),
          (r!.createdAt ?? "").slice(0, 10),
          r!.creditLogType?.name ?? String(r!.type),
          String(r!.creditAmount),
          r!.projectId == null ? "" : String(r!.projectId),
          r!.description ?? "",
        ]),
      )}\n`,
    );
  } else if (paging.skip === 0) process.stdout.write("No credit log rows\n");
  pageHint(paging, rows.length, total);
}
