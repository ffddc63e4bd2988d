// Response security headers and request body limits, for every response the app gives (and for
// the web app's HTML, which the server adapter serves: wrap it with secureResponse()).
//
// Every response: X-Content-Type-Options nosniff, Referrer-Policy no-referrer, and HSTS when the
// product is reached over https. HTML responses (the SPA, the respondent page, the API reference)
// also get a strict Content-Security-Policy: scripts, styles, fonts and frames from our own origin
// only, no inline code except the exact inline blocks the page ships (allowed by their SHA-256
// hashes, computed from the page itself), no plugins, no framing, no <base> changes; plus
// X-Frame-Options DENY, Cross-Origin-Opener-Policy same-origin and a Permissions-Policy that turns
// off the powerful features the product never uses. CORS stays closed: nothing here (or anywhere
// in the app) sends Access-Control-Allow-Origin, so browsers on other origins cannot read answers.
import type { MiddlewareHandler } from "hono";
import { bodyLimit } from "hono/body-limit";
import { ApiError } from "../errors.ts";

/** The largest request body outside the file upload route (which enforces its file type's limit). */
export const REQUEST_BODY_LIMIT = 4 * 1024 * 1024;

export interface SecurityOptions {
  /** Where users reach the product: https turns on HSTS. */
  publicUrl?: string;
  /** Origins images may come from besides our own (the S3 endpoint of presigned image URLs). */
  imageOrigins?: string[];
  /**
   * Pages whose third-party code inserts <style> elements at run time (the Scalar API reference
   * at /docs): their style-src allows inline styles. Scripts stay strict everywhere.
   */
  inlineStylePaths?: string[];
}

const INLINE = /<(script|style)\b([^>]*)>([\s\S]*?)<\/\1>/gi;

async function sha256(text: string): Promise<string> {
  const d = new Uint8Array(await crypto.subtle.digest("SHA-256", new TextEncoder().encode(text)));
  let bin = "";
  for (const b of d) bin += String.fromCharCode(b);
  return `'sha256-${btoa(bin)}'`;
}

/** The Content-Security-Policy of an HTML page: our origin only, plus the page's own inline blocks by hash. */
export async function contentSecurityPolicy(html: string, opts: SecurityOptions = {}, inlineStyles = false): Promise<string> {
  const scripts: string[] = [];
  const styles: string[] = [];
  for (const m of html.matchAll(INLINE)) {
    const [, tag, attrs, body] = m;
    if (tag!.toLowerCase() === "script" && /\bsrc\s*=/.test(attrs!)) continue;
    if (!body!.trim() && tag!.toLowerCase() === "script") continue;
    if (tag!.toLowerCase() === "script" && /type\s*=\s*["']?application\/(ld\+)?json/i.test(attrs!)) continue; // data, never run
    (tag!.toLowerCase() === "script" ? scripts : styles).push(await sha256(body!));
  }
  const img = ["'self'", "data:", "blob:", ...(opts.imageOrigins ?? [])].join(" ");
  return [
    "default-src 'self'",
    `script-src 'self'${scripts.length ? ` ${[...new Set(scripts)].join(" ")}` : ""}`,
    // With a hash in the list browsers ignore 'unsafe-inline', so it goes alone.
    inlineStyles ? "style-src 'self' 'unsafe-inline'" : `style-src 'self'${styles.length ? ` ${[...new Set(styles)].join(" ")}` : ""}`,
    `img-src ${img}`,
    "font-src 'self'",
    "connect-src 'self'",
    "object-src 'none'",
    "base-uri 'none'",
    "form-action 'self'",
    "frame-ancestors 'none'",
  ].join("; ");
}

/** The headers every response gets. */
export function setCommonHeaders(headers: Headers, opts: SecurityOptions): void {
  headers.set("x-content-type-options", "nosniff");
  if (!headers.has("referrer-policy")) headers.set("referrer-policy", "no-referrer");
  if (opts.publicUrl?.startsWith("https://")) headers.set("strict-transport-security", "max-age=31536000; includeSubDomains");
}

/** Adds the security headers to a response (reading and re-sending an HTML body to hash its inline blocks). */
export async function secureResponse(res: Response, opts: SecurityOptions = {}, path = ""): Promise<Response> {
  const headers = new Headers(res.headers);
  setCommonHeaders(headers, opts);
  const type = headers.get("content-type") ?? "";
  if (!type.startsWith("text/html")) return new Response(res.body, { status: res.status, statusText: res.statusText, headers });
  const html = await res.text();
  if (!headers.has("content-security-policy")) headers.set("content-security-policy", await contentSecurityPolicy(html, opts, (opts.inlineStylePaths ?? []).includes(path)));
  headers.set("x-frame-options", "DENY");
  headers.set("cross-origin-opener-policy", "same-origin");
  headers.set("permissions-policy", "camera=(), microphone=(), geolocation=(), payment=(), usb=()");
  return new Response(html, { status: res.status, statusText: res.statusText, headers });
}

/** The app's middleware: security headers on every response, the body limit on every request but uploads. */
export function securityMiddleware(opts: SecurityOptions & { uploadPath: string }): MiddlewareHandler {
  const limit = bodyLimit({
    maxSize: REQUEST_BODY_LIMIT,
    onError: () => {
      throw new ApiError("PayloadTooLarge", `Request body too large (at most ${REQUEST_BODY_LIMIT / 1024 / 1024} MB)`);
    },
  });
  return async (c, next) => {
    if (c.req.path === opts.uploadPath) await next();
    else await limit(c, next);
    // Not HTML: the headers are set on the response itself. A copy (a new Response over the old
    // one's body) turned a body the app made from a string into a stream, which the compression
    // middleware then had to read back chunk by chunk: tens of microseconds per API answer.
    // A response whose headers cannot change (one passed through from fetch) is copied instead.
    const res = c.res;
    if (!(res.headers.get("content-type") ?? "").startsWith("text/html")) {
      try {
        setCommonHeaders(res.headers, opts);
        return;
      } catch {
        // immutable headers: copied below
      }
    }
    c.res = await secureResponse(res, opts, c.req.path);
  };
}
