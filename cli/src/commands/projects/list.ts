// `ideally projects list`: the client's projects, newest first.
import { usageError } from "../../errors.ts";
import { printJson, table } from "../../output.ts";
import { needClient, ok, signedIn, type GlobalOptions } from "../../session.ts";
import { statusName } from "../../../../contracts/labels.ts";

export interface ListOptions extends GlobalOptions {
  status?: string;
  search?: string;
  top?: string;
  deleted?: boolean;
}

export async function runList(o: ListOptions): Promise<void> {
  const api = signedIn(o);
  needClient(api);
  const top = o.top ?? "50";
  if (!/^\d{1,4}$/.test(top) || Number(top) < 1 || Number(top) > 1000) throw usageError(`--top: expected 1 to 1000, got '${top}'`);
  let rows: { id: number; projectName: string; projectType: string | null; statusCode: number; createdAt: string }[];
  if (o.deleted) {
    const r = ok(await api.client.GET("/api/v1/Projects/GetTrashed"), "listing deleted projects");
    rows = (r.value ?? []).map((p) => ({ id: p!.id!, projectName: p!.projectName!, projectType: p!.projectType ?? null, statusCode: p!.statusCode!, createdAt: p!.createdAt! }));
  } else {
    const filters: string[] = [];
    if (o.status !== undefined) {
      if (!/^\d{1,3}(,\d{1,3})*$/.test(o.status)) throw usageError(`--status: expected status codes like 0 or 800,900, got '${o.status}'`);
      filters.push(`statusCode in (${o.status})`);
    }
    if (o.search) filters.push(`contains(tolower(projectName), '${o.search.toLowerCase().replaceAll("'", "''")}')`);
    const r = ok(
      await api.client.GET("/api/v1/Projects", {
        params: { query: { $select: "id,projectName,projectType,statusCode,createdAt", $orderby: "id desc", $top: Number(top), ...(filters.length ? { $filter: filters.join(" and ") } : {}) } },
      }),
      "listing projects",
    );
    rows = r.value.map((p) => ({ id: p!.id!, projectName: p!.projectName!, projectType: p!.projectType ?? null, statusCode: p!.statusCode!, createdAt: p!.createdAt! }));
  }
  if (o.json) return printJson(rows);
  if (rows.length === 0) return void process.stdout.write("No projects\n");
  process.stdout.write(
    `${table(["id", "name", "type", "status", "created"], rows.map((p) => [String(p.id), p.projectName, p.projectType ?? "", `${p.statusCode} ${statusName(p.statusCode)}`, p.createdAt.slice(0, 10)]))}\n`,
  );
}
