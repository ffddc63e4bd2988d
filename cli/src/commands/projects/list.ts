// `ideally projects list`: the client's projects, newest first, a page at a time (--limit, --page, --all).
import { usageError } from "../../errors.ts";
import { printJson, table } from "../../output.ts";
import { pageHint, pagingOf, readPaged, type PageOptions } from "../../paging.ts";
import { needClient, ok, signedIn, type GlobalOptions } from "../../session.ts";
import { statusName } from "@ideally/contracts/labels";

export interface ListOptions extends GlobalOptions, PageOptions {
  status?: string;
  search?: string;
  deleted?: boolean;
}

export const PROJECTS_PAGE = 50;

export async function runList(o: ListOptions): Promise<void> {
  const paging = pagingOf(o, PROJECTS_PAGE);
  if (o.status !== undefined && !/^\d{1,3}(,\d{1,3})*$/.test(o.status)) throw usageError(`--status: expected status codes like 0 or 800,900, got '${o.status}'`);
  const api = signedIn(o);
  needClient(api);
  const filters: string[] = [];
  if (o.status !== undefined) filters.push(`statusCode in (${o.status})`);
  if (o.search) filters.push(`contains(tolower(projectName), '${o.search.toLowerCase().replaceAll("'", "''")}')`);
  const $filter = filters.length ? { $filter: filters.join(" and ") } : {};
  const $select = "id,projectName,projectType,statusCode,createdAt";
  const { rows: found, total } = await readPaged(paging, async (top, skip) => {
    const r = o.deleted
      ? ok(await api.client.GET("/api/v1/Projects/GetTrashed", { params: { query: { $select, $top: String(top), $skip: String(skip), $count: "true", ...$filter } } }), "listing deleted projects")
      : ok(await api.client.GET("/api/v1/Projects", { params: { query: { $select, $orderby: "id desc", $top: top, $skip: skip, $count: true, ...$filter } } }), "listing projects");
    return { rows: r.value ?? [], total: r["@odata.count"] ?? null };
  });
  const rows = found.map((p) => ({ id: p!.id!, projectName: p!.projectName!, projectType: p!.projectType ?? null, statusCode: p!.statusCode!, createdAt: p!.createdAt! }));
  if (o.json) printJson(rows);
  else if (rows.length === 0 && paging.skip === 0) process.stdout.write("No projects\n");
  else if (rows.length) {
    process.stdout.write(
      `${table(
        ["id", "name", "type", "status", "created"],
        rows.map((p) => [String(p.id), p.projectName, p.projectType ?? "", `${p.statusCode} ${statusName(p.statusCode)}`, p.createdAt.slice(0, 10)]),
      )}\n`,
    );
  }
  pageHint(paging, rows.length, total);
}
