// `ideally credits`: the client's balance and spend (Clients ClientSubStats).
import { bold, printJson, summary } from "../../output.ts";
import { needClient, ok, signedIn, type GlobalOptions } from "../../session.ts";

export async function runBalance(o: GlobalOptions): Promise<void> {
  const api = signedIn(o);
  const clientId = needClient(api);
  const s = ok(await api.client.GET("/api/v1/Clients({key})/ClientSubStats", { params: { path: { key: String(clientId) } } }), "reading the credits").client;
  if (o.json) return printJson(s);
  process.stdout.write(
    `${summary([
      ["client", `${s.clientId} ${s.name} (${s.tier})`],
      ["balance", bold(String(s.balance))],
      ["available", `${s.available} (overdraft limit ${s.overdraftLimit})`],
      ["pending charges", String(s.pendingCharges)],
      ["spent", `${s.spendThisMonth} this month, ${s.spendThisQuarter} this quarter, ${s.spendThisYear} this year`],
      ["runs", `${s.runsThisMonth} this month, ${s.runsThisYear} this year, ${s.runsTotal} in all`],
      ["transfers this year", `${s.transfersInThisYear} in, ${s.transfersOutThisYear} out`],
    ])}\n`,
  );
}
