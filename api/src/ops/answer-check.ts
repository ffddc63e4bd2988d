// Every answer checked against the published contract (issue 34): in the test suite (and wherever
// CHECK_ANSWERS=1), each response of an operation is compared with what the OpenAPI document
// declares for it: the status, the media type and, for JSON, the body against the status's schema.
// The document is generated from the same zod schemas (openapi.ts), so this is the document's check.
// A mismatch replaces the answer with a 500 naming what differs, so the test that caused it fails
// on its status or body, and is written to stderr.
import type { RouteConfig } from "@hono/zod-openapi";
import type { z } from "@hono/zod-openapi";

/**
 * Statuses any operation may answer without declaring them, always in the error shape: a body or
 * header too large (413, 431), a media type refused (415), a rate limit (429), a server error (500),
 * the database unavailable or over its budget (503). docs/testing.md lists them.
 */
export const SERVER_WIDE_STATUSES: ReadonlySet<number> = new Set([413, 415, 429, 431, 500, 503]);

interface Operation {
  method: string;
  pattern: RegExp;
  path: string;
  responses: RouteConfig["responses"];
}

/** The operations of an app in registration order (the first that matches a request is Hono's too). */
export class AnswerContract {
  private readonly ops: Operation[] = [];

  /** errorBody: the API's error shape (openapi.ts), the body of the shared error responses. */
  constructor(private readonly errorBody: z.ZodType) {}

  add(method: string, path: string, responses: RouteConfig["responses"]): void {
    const pattern = new RegExp(`^${path.replace(/[.*+?^$()|[\]\\]/g, "\\$&").replace(/\\?\{[^}]+\\?\}/g, "[^/]+")}$`);
    this.ops.push({ method: method.toUpperCase(), pattern, path, responses });
  }

  find(method: string, path: string): Operation | undefined {
    const m = method === "HEAD" ? "GET" : method;
    return this.ops.find((o) => o.method === m && o.pattern.test(path));
  }

  /**
   * What is wrong with `res` as the answer of `method path` (an empty list when it fits, or when
   * no operation has that path: the web app's files, /openapi.json). Reads a copy of the body.
   */
  async check(method: string, path: string, res: Response): Promise<string[]> {
    const op = this.find(method, path);
    if (!op) return [];
    const status = res.status;
    const declared = op.responses[status] ?? op.responses[String(status)] ?? op.responses[`${String(status)[0]}XX`] ?? op.responses.default;
    let media: Record<string, z.ZodType | null>;
    if (declared === undefined) {
      if (!SERVER_WIDE_STATUSES.has(status)) return [`status ${status} is not declared for ${op.method} ${op.path} (declared: ${Object.keys(op.responses).join(", ")})`];
      media = { "application/json": this.errorBody };
    } else if ("$ref" in declared) {
      // The shared error responses (openapi.ts): the error shape, as JSON.
      media = { "application/json": this.errorBody };
    } else {
      media = Object.fromEntries(Object.entries(declared.content ?? {}).map(([type, m]) => [type, m && "schema" in m && isZod(m.schema) ? m.schema : null]));
    }
    const types = Object.keys(media);
    const type = (res.headers.get("content-type") ?? "").split(";")[0]!.trim().toLowerCase();
    if (types.length === 0) {
      if (status === 204 || status === 304 || (status >= 300 && status < 400)) return [];
      // A status declared without content (a 202, say): a body of whatever kind is outside the document.
      const text = await bodyText(res);
      return text === "" ? [] : [`status ${status} of ${op.method} ${op.path} declares no content, but the answer has a ${type || "body"}`];
    }
    const key = types.find((t) => t.toLowerCase() === type) ?? types.find((t) => t.endsWith("/*") && type.startsWith(t.slice(0, -1)));
    if (key === undefined) return [`status ${status} of ${op.method} ${op.path} answered ${type || "no content type"}, declared ${types.join(", ")}`];
    const schema = media[key];
    if (!schema || !/json/.test(key) || method === "HEAD") return [];
    let body: unknown;
    try {
      body = JSON.parse(await bodyText(res));
    } catch {
      return [`status ${status} of ${op.method} ${op.path}: the body is not JSON`];
    }
    const parsed = schema.safeParse(body);
    if (parsed.success) return [];
    return parsed.error.issues.slice(0, 10).map((i) => `status ${status} of ${op.method} ${op.path}: ${i.path.join(".") || "(body)"}: ${i.message}`);
  }
}

function isZod(x: unknown): x is z.ZodType {
  return typeof x === "object" && x !== null && typeof (x as { safeParse?: unknown }).safeParse === "function";
}

/** A copy of the answer's body as text, decompressed when the answer is gzipped. */
async function bodyText(res: Response): Promise<string> {
  const copy = res.clone();
  if (!copy.body) return "";
  if ((res.headers.get("content-encoding") ?? "").toLowerCase() === "gzip") {
    return await new Response(copy.body.pipeThrough(new DecompressionStream("gzip"))).text();
  }
  return await copy.text();
}

/** The answer that replaces one outside the contract: a 500 in the error shape that says what differs. */
export function violationAnswer(problems: string[]): Response {
  const body = { typename: "ContractViolation", message: `The answer does not match the published OpenAPI document: ${problems.join("; ")}` };
  return new Response(JSON.stringify(body), { status: 500, headers: { "content-type": "application/json" } });
}
