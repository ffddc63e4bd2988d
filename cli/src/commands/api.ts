// `ideally api PATH`: an authenticated request to any API path, as `gh api` has it (issue 38), for
// what no command covers. The session's token and the tenant header go with it as with every
// command; `-f`/`-F` fields make a JSON body (or the query of a GET); `--paginate` follows the OData
// `@odata.nextLink` and joins the pages' `value`; `--jq` filters the answer (jq.ts). Every option
// is checked before the request; the request never leaves the API's own origin.
import { readFileSync } from "node:fs";
import { apiError, authError, usageError } from "../errors.ts";
import { jsonShape } from "../json-shape.ts";
import { printJson } from "../output.ts";
import { readStdin } from "../prompt.ts";
import { describeError, signedIn, type GlobalOptions } from "../session.ts";
import { isApiPath } from "@ideally/contracts/paths";

export interface ApiOptions extends GlobalOptions {
  method?: string;
  field: string[];
  rawField: string[];
  header: string[];
  input?: string;
  paginate?: boolean;
  jq?: string;
  tenant?: boolean;
}

const METHODS = ["GET", "POST", "PUT", "PATCH", "DELETE", "HEAD"];
/** A page cap for --paginate: a link that never ends is a server fault, not a reason to loop forever. */
const MAX_PAGES = 10_000;

/** `-F` values are typed as gh types them: true, false, null and numbers as JSON; `@FILE` (`@-` stdin) is the file's text. */
async function typed(v: string, stdin: { used: boolean }): Promise<unknown> {
  if (v === "true" || v === "false") return v === "true";
  if (v === "null") return null;
  if (/^-?(0|[1-9]\d*)(\.\d+)?([eE][-+]?\d+)?$/.test(v)) return Number(v);
  if (v.startsWith("@")) return readSource(v.slice(1), stdin, "-F");
  return v;
}

async function readSource(path: string, stdin: { used: boolean }, what: string): Promise<string> {
  if (path === "-") {
    if (stdin.used) throw usageError(`${what}: stdin can be read once`);
    stdin.used = true;
    return readStdin();
  }
  try {
    return readFileSync(path, "utf8");
  } catch (e) {
    throw usageError(`${what}: cannot read ${path} (${(e as NodeJS.ErrnoException).code ?? "unreadable"})`);
  }
}

function splitField(spec: string, flag: string): [string, string] {
  const i = spec.indexOf("=");
  if (i <= 0) throw usageError(`${flag} '${spec}': expected KEY=VALUE`);
  return [spec.slice(0, i), spec.slice(i + 1)];
}

/**
 * The URL of PATH on the API: a path the API answers (`/api/…`, `/openapi.json`, `/healthz`: the
 * contract's table) as given, anything else under /api/v1/, with or without its leading slash as
 * with gh api (`/Projects` would be the web app's page); never another origin.
 */
export function apiUrl(base: string, path: string): URL {
  if (/^[a-z][a-z0-9+.-]*:/i.test(path) || path.startsWith("//") || path.includes("\\")) throw usageError(`'${path}': expected a path on the API, like /api/v1/Users/Me or Projects`);
  const asGiven = path.startsWith("/") && isApiPath(path.replace(/[?#].*$/s, ""));
  let url: URL;
  try {
    url = new URL(`${base}${asGiven ? path : `/api/v1/${path.replace(/^\/+/, "")}`}`);
  } catch {
    throw usageError(`'${path}': expected a path on the API, like /api/v1/Users/Me or Projects`);
  }
  if (url.origin !== new URL(base).origin) throw usageError(`'${path}': expected a path on the API, like /api/v1/Users/Me or Projects`);
  return url;
}

export async function runApi(path: string, o: ApiOptions): Promise<void> {
  // Everything checked before the request.
  const hasFields = o.field.length > 0 || o.rawField.length > 0;
  const method = (o.method ?? (hasFields || o.input !== undefined ? "POST" : "GET")).toUpperCase();
  if (!METHODS.includes(method)) throw usageError(`--method: expected one of ${METHODS.join(", ")}, got '${o.method}'`);
  const bodyless = method === "GET" || method === "HEAD" || method === "DELETE";
  if (o.input !== undefined && bodyless) throw usageError(`--input: a ${method} request has no body`);
  if (o.input !== undefined && hasFields) throw usageError("--input is the whole body: it does not go with -f or -F");
  if (o.paginate && method !== "GET") throw usageError("--paginate follows the pages of a GET");
  const shape = o.jq !== undefined ? jsonShape(undefined, o.jq, []) : null;
  const headers = new Headers();
  for (const h of o.header) {
    const m = /^([A-Za-z0-9!#$%&'*+.^_`|~-]+):\s*(.*)$/.exec(h);
    if (!m) throw usageError(`--header '${h}': expected 'Name: value'`);
    headers.set(m[1]!, m[2]!);
  }
  const stdin = { used: false };
  const fields: Record<string, unknown> = {};
  for (const spec of o.rawField) {
    const [k, v] = splitField(spec, "-f");
    fields[k] = v;
  }
  for (const spec of o.field) {
    const [k, v] = splitField(spec, "-F");
    fields[k] = await typed(v, stdin);
  }
  const body = o.input !== undefined ? await readSource(o.input, stdin, "--input") : !bodyless && hasFields ? JSON.stringify(fields) : undefined;
  if (body !== undefined && !headers.has("content-type")) headers.set("content-type", "application/json");

  const api = signedIn(o, { tenant: o.tenant !== false });
  let url = apiUrl(api.base, path);
  if (bodyless) for (const [k, v] of Object.entries(fields)) url.searchParams.append(k, typeof v === "string" ? v : JSON.stringify(v));

  const pages: Record<string, unknown>[] = [];
  for (let page = 1; ; page++) {
    const res = await api.send(new Request(url, { method, headers, body }));
    const text = method === "HEAD" ? "" : await res.text();
    const json = /\bjson\b/i.test(res.headers.get("content-type") ?? "") && text !== "" ? parseJson(text) : undefined;
    if (!res.ok) {
      // As gh: the API's answer on stdout for a script to read, one line on stderr.
      if (text) process.stdout.write(json !== undefined ? `${JSON.stringify(json, null, 2)}\n` : text.endsWith("\n") ? text : `${text}\n`);
      const line = `${method} ${url.pathname}: ${describeError(json, res)}`;
      throw res.status === 401 ? authError(`${line}; run \`ideally login\``) : apiError(line);
    }
    if (json === undefined) {
      if (shape) throw apiError(`--jq: the answer is not JSON (${res.headers.get("content-type") ?? "no content type"})`);
      if (method === "HEAD") process.stdout.write(`HTTP ${res.status}\n`);
      else process.stdout.write(text);
      return;
    }
    const obj = isObject(json) ? json : null;
    const next = o.paginate && obj ? obj["@odata.nextLink"] : undefined;
    if (o.paginate && obj) pages.push(obj);
    if (typeof next === "string" && next !== "" && page < MAX_PAGES) {
      url = apiUrl(api.base, next);
      continue;
    }
    // The pages joined: the first page's object, every page's value, no next link.
    const first = Object.fromEntries(Object.entries(pages[0] ?? {}).filter(([k]) => k !== "@odata.nextLink"));
    const out = pages.length ? { ...first, value: pages.flatMap((p) => (Array.isArray(p.value) ? p.value : [])) } : json;
    if (shape?.jq) process.stdout.write(shape.jq(out));
    else printJson(out);
    return;
  }
}

const isObject = (v: unknown): v is Record<string, unknown> => v !== null && typeof v === "object" && !Array.isArray(v);

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}
