// `ideally clients list`: the clients the account can act for (Clients, by name).
import { printJson, table } from "../../output.ts";
import { ok, signedIn, type GlobalOptions } from "../../session.ts";

export async function runClientsList(o: GlobalOptions): Promise<void> {
  const api = signedIn(o, { tenant: false });
  const rows: { id: number; name: string; tier: string; parentId: number | null }[] = [];
  // Follow the server's pages (a staff account sees every client).
  for (let skip = 0; ; skip += 1000) {
    const page = ok(
      await api.client.GET("/api/v1/Clients", { params: { query: { $select: "id,name,tier,parentId", $orderby: "name,id", $top: 1000, $skip: skip } } }),
      "listing clients",
    );
    // Entity rows are typed loosely ($select may drop fields); these four were selected.
    for (const c of page.value) rows.push({ id: c!.id!, name: c!.name!, tier: c!.tier!, parentId: c!.parentId ?? null });
    if (page.value.length < 1000) break;
  }
  if (o.json) return printJson(rows.map((c) => ({ ...c, current: c.id === api.clientId })));
  process.stdout.write(`${table(["", "id", "name", "tier", "parent"], rows.map((c) => [c.id === api.clientId ? "*" : "", String(c.id), c.name, c.tier, c.parentId == null ? "" : String(c.parentId)]))}\n`);
}
