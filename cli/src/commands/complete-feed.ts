// `ideally __complete projects|clients|markets|commands [--describe]`: the words the completion
// scripts offer at TAB time, one per line ("word<TAB>description" with --describe, for fish).
// Hidden from --help. Never an error: signed out, offline or refused, it prints nothing (exit 0),
// so a TAB never shows a message in the middle of the command line.
import { readMarkets } from "../lookups.ts";
import { ok, signedIn, type GlobalOptions } from "../session.ts";
import { commandList } from "./admin/commands.ts";

const KINDS = ["projects", "clients", "markets", "commands"] as const;

async function words(kind: string, o: GlobalOptions): Promise<[string, string][]> {
  if (kind === "commands") return commandList().map((c) => [c.name, c.description]);
  const api = signedIn(o, { tenant: false });
  if (kind === "markets") return (await readMarkets(api.client)).filter((m) => !m.isUsState).map((m) => [m.code, m.name]);
  if (kind === "clients") {
    const r = ok(await api.client.GET("/api/v1/Clients", { params: { query: { $select: "id,name", $orderby: "name,id", $top: 1000 } } }), "clients");
    return r.value.map((c) => [String(c!.id), c!.name ?? ""]);
  }
  if (api.clientId === null) return [];
  const r = ok(await api.client.GET("/api/v1/Projects", { params: { query: { $select: "id,projectName", $orderby: "id desc", $top: 1000 } } }), "projects");
  return r.value.map((p) => [String(p!.id), p!.projectName ?? ""]);
}

export async function runCompleteFeed(kind: string, o: GlobalOptions & { describe?: boolean }): Promise<void> {
  if (!(KINDS as readonly string[]).includes(kind)) return;
  try {
    const list = await words(kind, o);
    process.stdout.write(list.map(([w, d]) => (o.describe ? `${w}\t${d.replace(/\s+/g, " ")}` : w)).join("\n") + (list.length ? "\n" : ""));
  } catch {
    /* signed out, offline, refused: nothing to offer */
  }
}
