// `ideally admin commands [NAME]`: the staff's command runner (/api/CommandRunner/*). Without a
// name, the commands the contract publishes; with one, it runs as a queued job followed on its
// websocket channel with a progress bar until it succeeds or fails. The body is checked against the
// command's schema in the contract first.
import openapi from "@ideally/contracts/openapi.json" with { type: "json" };
import type { paths } from "@ideally/contracts";
import { usageError, apiError } from "../../errors.ts";
import { followJob } from "../../jobs.ts";
import { printJson, progressBar, table } from "../../output.ts";
import { pageHint, pagingOf, slicePage, type PageOptions } from "../../paging.ts";
import { checkSchema, type SchemaIssue } from "../../schema-check.ts";
import { ok, signedIn, type GlobalOptions } from "../../session.ts";

const doc = openapi;
const PREFIX = "/api/CommandRunner/";
type CommandPath = Extract<keyof paths, `/api/CommandRunner/${string}`>;
/** The body of some command (each command's own is checked against its schema before the call). */
type CommandBody = NonNullable<paths[CommandPath]["post"]["requestBody"]>["content"]["application/json"];

/** A path the contract publishes as a command. */
function isCommandPath(p: string): p is CommandPath {
  return p.startsWith(PREFIX) && !!doc.paths[p]?.post;
}

/** A body is its command's when the command's schema (if any) found no issue in it. */
function fitsCommand(body: Record<string, unknown>, issues: SchemaIssue[]): body is CommandBody {
  return issues.length === 0;
}

export function commandList(): { name: string; description: string }[] {
  return Object.entries(doc.paths)
    .filter(([p, v]) => p.startsWith(PREFIX) && v.post)
    .map(([p, v]) => ({ name: p.slice(PREFIX.length), description: (v.post!.description ?? v.post!.summary ?? "").split(". ")[0] }));
}

/** --set key=value: numbers and booleans as such, else strings. */
function parseSets(sets: string[]): Record<string, unknown> {
  const body: Record<string, unknown> = {};
  for (const s of sets) {
    const m = /^([A-Za-z][A-Za-z0-9]*)=(.*)$/.exec(s);
    if (!m) throw usageError(`--set '${s}': expected field=value`);
    body[m[1]] = /^-?\d+(\.\d+)?$/.test(m[2]) ? Number(m[2]) : m[2] === "true" ? true : m[2] === "false" ? false : m[2];
  }
  return body;
}

export async function runCommands(name: string | undefined, o: GlobalOptions & PageOptions & { set?: string[]; timeout?: string }): Promise<void> {
  if (!name) {
    const paging = pagingOf(o, null);
    // The catalogue is provider staff's (the runner refuses everyone else): not shown to others.
    const api = signedIn(o, { tenant: false });
    const me = ok(await api.client.GET("/api/v1/Users/Me"), "reading the account");
    if (!me.isStaff) throw apiError(`the command runner is provider staff's; ${me.email} is not staff`);
    const { rows, total } = slicePage(paging, commandList());
    if (o.json) printJson(rows);
    else
      process.stdout.write(
        `${table(
          ["command", "what it does"],
          rows.map((c) => [c.name, c.description]),
        )}\n`,
      );
    return pageHint(paging, rows.length, total);
  }
  if (o.limit !== undefined || o.page !== undefined || o.all) throw usageError("--limit, --page and --all page the list of commands; running one takes none");
  const hit = commandList().find((c) => c.name.toLowerCase() === name.toLowerCase());
  if (!hit) throw usageError(`no command '${name}'; see \`ideally admin commands\``);
  const path = `${PREFIX}${hit.name}`;
  if (!isCommandPath(path)) throw usageError(`no command '${name}'; see \`ideally admin commands\``);
  const body = parseSets(o.set ?? []);
  const schema = doc.paths[path]?.post?.requestBody?.content["application/json"]?.schema;
  const issues = schema ? checkSchema(schema, body, (ref) => doc.components.schemas[ref.replace("#/components/schemas/", "")]) : [];
  if (!fitsCommand(body, issues)) {
    const issue = issues[0]!;
    throw usageError(`${hit.name}: ${issue.path.length ? `${issue.path.join(".")}: ` : ""}${issue.message}`);
  }
  const api = signedIn(o, { tenant: false });
  const bar = progressBar(hit.name);
  const done = await followJob(api, async () => ok(await api.client.POST(path, { body }), `running ${hit.name}`), bar, Number(o.timeout ?? 600) * 1000);
  bar.done();
  if (o.json) return printJson(done);
  process.stdout.write(`${hit.name} done (job ${done.jobId})${done.result != null ? `: ${JSON.stringify(done.result)}` : ""}\n`);
}
