// `ideally clients use ID|NAME`: the client later commands act for (the clientId header).
import { readConfig, writeConfig } from "../../config.ts";
import { usageError } from "../../errors.ts";
import { printJson } from "../../output.ts";
import { ok, signedIn, type GlobalOptions } from "../../session.ts";

export async function runClientsUse(which: string, o: GlobalOptions): Promise<void> {
  const api = signedIn(o, { tenant: false });
  if (api.fromEnv) throw usageError("IDEALLY_TOKEN is set: choose the client with --client ID or IDEALLY_CLIENT (`clients use` changes the stored login, which is not used)");
  const filter = /^\d{1,9}$/.test(which) ? `id eq ${which}` : `tolower(name) eq '${which.toLowerCase().replaceAll("'", "''")}'`;
  const page = ok(await api.client.GET("/api/v1/Clients", { params: { query: { $filter: filter, $select: "id,name,tier", $top: 2 } } }), "finding the client");
  if (page.value.length === 0) throw usageError(`no client '${which}' among yours (see \`ideally clients list\`)`);
  if (page.value.length > 1) throw usageError(`more than one client is named '${which}': use its id`);
  const c = page.value[0]!;
  const cfg = readConfig();
  writeConfig({ ...cfg, session: { ...api.session, clientId: c.id! } });
  if (o.json) printJson({ id: c.id, name: c.name, tier: c.tier });
  else process.stdout.write(`Using client ${c.id} ${c.name} (${c.tier})\n`);
}
