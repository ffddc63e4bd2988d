// Hostile bytes, refused in one place for every operation (the anonymous public survey included),
// before any handler or validator sees the request: a NUL character (U+0000) anywhere in a JSON
// body (values and keys) or a query string (PostgreSQL text cannot hold one), and an integer
// outside int4 in a JSON body or in an id-like query value (every integer field of the API is an
// int4 column: tests/api/hostile-input.test.ts checks the contract has no int64 field). Each is a
// 400 ValidationError listing the failing fields; before, they reached the database and were 500s.
import type { MiddlewareHandler } from "hono";
import { ApiError, type FieldError } from "../errors.ts";
import { targetOf } from "../web/paths.ts";

export const INT4_MIN = -2147483648;
export const INT4_MAX = 2147483647;

const NUL_MESSAGE = "must not contain a NUL character (\\u0000)";
const INT4_MESSAGE = `must be an integer from ${INT4_MIN} to ${INT4_MAX}`;

/**
 * The longest request target (path and query) served, in characters: Bun's own limit on the
 * header block (16 KiB by default) answered a bare 431 with no body or trace id, so the server
 * is started with a larger one (--max-http-header-size, package.json) and this check answers
 * the error shape instead.
 */
export const MAX_URL_LENGTH = 16 * 1024;

/** Query parameters whose values are integers bound to int4 columns or limits: ids, paging, sizes. */
const INT_QUERY = /^(id|.*Ids?|\$?top|\$?skip|page|pageSize|fileSize|questionPosition)$/;

/**
 * The deepest nesting of arrays and objects a JSON body may have. No body of the API nests beyond
 * about ten levels (a survey definition); a deeper one is refused before it is parsed, because
 * parsing and every recursive walk of it (this module's, the validators') would otherwise run out
 * of stack on a few kilobytes of brackets (issue 38: 10,000 levels, under 30 KB, answered 500).
 */
export const MAX_JSON_DEPTH = 64;

/** The deepest nesting of `[` and `{` in a JSON text (outside its strings), scanning no further than one level past `limit`. */
export function jsonDepth(text: string, limit = MAX_JSON_DEPTH): number {
  let depth = 0;
  let max = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const ch = text.charCodeAt(i);
    if (inString) {
      if (ch === 92 /* \ */) i++;
      else if (ch === 34 /* " */) inString = false;
    } else if (ch === 34) inString = true;
    else if (ch === 91 /* [ */ || ch === 123 /* { */) {
      depth++;
      if (depth > max) {
        max = depth;
        if (max > limit) return max;
      }
    } else if (ch === 93 /* ] */ || ch === 125 /* } */) depth--;
  }
  return max;
}

const outsideInt4 = (n: number) => Number.isInteger(n) && (n < INT4_MIN || n > INT4_MAX);

/** The failing fields of a parsed JSON value, by dotted path. */
export function hostileJson(value: unknown, path = "", out: FieldError[] = []): FieldError[] {
  if (out.length >= 50) return out;
  const at = path || "(body)";
  if (typeof value === "string") {
    if (value.includes("\u0000")) out.push({ path: at, message: NUL_MESSAGE });
  } else if (typeof value === "number") {
    if (outsideInt4(value)) out.push({ path: at, message: INT4_MESSAGE });
  } else if (Array.isArray(value)) {
    value.forEach((v, i) => {
      hostileJson(v, path ? `${path}.${i}` : String(i), out);
    });
  } else if (value !== null && typeof value === "object") {
    for (const [k, v] of Object.entries(value)) {
      const p = path ? `${path}.${k}` : k;
      if (k.includes("\u0000")) out.push({ path: p.replaceAll("\u0000", "\\u0000"), message: `name ${NUL_MESSAGE}` });
      hostileJson(v, p, out);
    }
  }
  return out;
}

/** The failing parameters of a query string (each name and value as decoded). */
export function hostileQuery(params: URLSearchParams): FieldError[] {
  const out: FieldError[] = [];
  for (const [k, v] of params) {
    const name = k.replaceAll("\u0000", "\\u0000");
    if (k.includes("\u0000") || v.includes("\u0000")) out.push({ path: `query.${name}`, message: NUL_MESSAGE });
    else if (INT_QUERY.test(k) && v.split(",").some((part) => /^\s*[+-]?\d+\s*$/.test(part) && outsideInt4(Number(part)))) {
      out.push({ path: `query.${name}`, message: INT4_MESSAGE });
    }
  }
  return out;
}

/**
 * The request target's refusals: longer than MAX_URL_LENGTH (431, thrown), and the failing fields
 * of its query and path (returned, with the path, for the body's check to add to).
 */
export function hostileTarget(url: string): { pathname: string; errors: FieldError[] } {
  const { pathname, search } = targetOf(url);
  if (pathname.length + search.length > MAX_URL_LENGTH) {
    throw new ApiError("RequestHeaderFieldsTooLarge", `The URL is longer than ${MAX_URL_LENGTH} characters: shorten the query (fewer or shorter options, an in-list split over several calls)`);
  }
  const errors = search ? hostileQuery(new URLSearchParams(search)) : [];
  if (pathname.includes("%00")) errors.push({ path: "path", message: NUL_MESSAGE });
  return { pathname, errors };
}

/** The refusal of a request whose target or body holds hostile bytes. */
export const hostileInputError = (errors: FieldError[]) => new ApiError("ValidationError", "Invalid input: a NUL character or an integer out of range", undefined, errors);

/** The middleware: refuses the request with 400 when its query or JSON body holds hostile bytes. */
export function hostileInputMiddleware(opts: { uploadPath: string }): MiddlewareHandler {
  return async (c, next) => {
    const { pathname, errors } = hostileTarget(c.req.url);
    // The upload route streams its body to storage: never read it here.
    const json = /json/i.test(c.req.header("content-type") ?? "") && pathname !== opts.uploadPath;
    if (c.req.method !== "GET" && c.req.method !== "HEAD" && json) {
      // The text first, for its depth: c.req.json() then parses it from Hono's body cache, and
      // caches the value for the route's own validator; malformed JSON is left to it (a 400
      // "Malformed JSON body").
      const text = await c.req.text();
      if (jsonDepth(text) > MAX_JSON_DEPTH) {
        throw new ApiError("ValidationError", `The JSON body is nested more than ${MAX_JSON_DEPTH} levels deep`, undefined, [
          { path: "(body)", message: `must not nest arrays and objects more than ${MAX_JSON_DEPTH} levels deep` },
        ]);
      }
      const body = await c.req.json().catch(() => undefined);
      if (body !== undefined) hostileJson(body, "", errors);
    }
    if (errors.length) throw hostileInputError(errors);
    await next();
  };
}
