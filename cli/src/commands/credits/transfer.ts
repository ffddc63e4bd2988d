// `ideally credits transfer`: MakeCreditTransfer between two clients of one enterprise.
import { usageError } from "../../errors.ts";
import { printJson } from "../../output.ts";
import { ok, signedIn, type GlobalOptions } from "../../session.ts";

export async function runTransfer(o: GlobalOptions & { from?: string; to?: string; amount?: string; note?: string }): Promise<void> {
  const id = (v: string | undefined, flag: string) => {
    if (v === undefined || !/^\d{1,9}$/.test(v)) throw usageError(`${flag}: expected a client id, got '${v ?? ""}'`);
    return Number(v);
  };
  const fromClientId = id(o.from, "--from");
  const toClientId = id(o.to, "--to");
  const amount = Number(o.amount);
  if (!o.amount || !Number.isFinite(amount) || amount <= 0) throw usageError(`--amount: expected a positive number, got '${o.amount ?? ""}'`);
  const api = signedIn(o);
  const r = ok(
    await api.client.POST("/api/v1/CreditLogs/MakeCreditTransfer", { body: { fromClientId, toClientId, amount, ...(o.note ? { note: o.note } : {}) } }),
    "transferring credits",
  );
  if (o.json) return printJson(r);
  process.stdout.write(`Transferred ${r.amount} credits from client ${r.from.clientId} (balance ${r.from.balance}) to client ${r.to.clientId} (balance ${r.to.balance}); transfer ${r.transferId}\n`);
}
