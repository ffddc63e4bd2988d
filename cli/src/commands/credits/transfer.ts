// `ideally credits transfer`: MakeCreditTransfer between two clients of one enterprise.
import { apiError, usageError } from "../../errors.ts";
import { printJson } from "../../output.ts";
import { confirm, unattended } from "../../prompt.ts";
import { describeError, ok, signedIn, type GlobalOptions } from "../../session.ts";

export async function runTransfer(o: GlobalOptions & { from?: string; to?: string; amount?: string; note?: string; yes?: boolean }): Promise<void> {
  const id = (v: string | undefined, flag: string) => {
    if (v === undefined || !/^\d{1,9}$/.test(v)) throw usageError(`${flag}: expected a client id, got '${v ?? ""}'`);
    return Number(v);
  };
  const fromClientId = id(o.from, "--from");
  const toClientId = id(o.to, "--to");
  const amount = Number(o.amount);
  if (!o.amount || !Number.isFinite(amount) || amount <= 0) throw usageError(`--amount: expected a positive number, got '${o.amount ?? ""}'`);
  unattended(o, "credits transfer");
  const api = signedIn(o);
  await confirm(o, `Transfer ${amount} credits from client ${fromClientId} to client ${toClientId}?`, "credits transfer");
  const res = await api.client.POST("/api/v1/CreditLogs/MakeCreditTransfer", { body: { fromClientId, toClientId, amount, ...(o.note ? { note: o.note } : {}) } });
  // A client outside the one acted for is "not found": say which client the transfer must act for.
  if (res.response.status === 404) {
    throw apiError(
      `transferring credits: ${describeError(res.error, res.response)}; an Admin transfers within the client acted for: pass --client with the org or enterprise above both (acting for ${api.clientId ?? "no client"})`,
    );
  }
  const r = ok(res, "transferring credits");
  if (o.json) return printJson(r);
  process.stdout.write(`Transferred ${r.amount} credits from client ${r.from.clientId} (balance ${r.from.balance}) to client ${r.to.clientId} (balance ${r.to.balance}); transfer ${r.transferId}\n`);
}
