// `ideally clients list`: the clients the account can act for (Clients, by name), a page at a time.
import { printJson, table } from "../../output.ts";
import { pageHint, pagingOf, readPaged, type PageOptions } from "../../paging.ts";
import { ok, signedIn, type GlobalOptions } from "../../session.ts";

export const CLIENTS_PAGE = 50;

export async function runClientsList(o: GlobalOptions & PageOptions): Promise<void> {
  const paging = pagingOf(o, CLIENTS_PAGE);
  const api = signedIn(o, { tenant: false });
  // A staff account sees every client: the server pages them.
  const { rows: found, total } = await readPaged(paging, async (top, skip) => {
    const page = ok(await api.client.GET("/api/v1/Clients", { params: { query: { $select: "id,name,tier,parentId", $orderby: "name,id", $top: top, $skip: skip, $count: true } } }), "listing clients");
    return { rows: page.value, total: page["@odata.count"] ?? null };
  });
  // Entity rows are typed loosely ($select may drop fields); these four were selected.
  const rows = found.map((c) => ({ id: c!.id!, name: c!.name!, tier: c!.tier!, parentId: c!.parentId ?? null }));
  if (o.json) printJson(rows.map((c) => ({ ...c, current: c.id === api.clientId })));
  else
    process.stdout.write(
      `${table(
        ["", "id", "name", "tier", "parent"],
        rows.map((c) => [c.id === api.clientId ? "*" : "", String(c.id), c.name, c.tier, c.parentId == null ? "" : String(c.parentId)]),
      )}\n`,
    );
  pageHint(paging, rows.length, total);
}
