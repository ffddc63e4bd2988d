// Compression on the wire. The built web app's files are compressed once, at build time (brotli
// and gzip beside each file: scripts/build-web.ts), and served by Accept-Encoding (static.ts);
// answers made per request (JSON, the OpenAPI document, CSV, HTML) are gzipped here when they are
// larger than a small threshold, with the Web-standard CompressionStream so the Deno adapter keeps
// working. Every compressible answer says `Vary: Accept-Encoding`, so a cache never serves gzip to
// a client that did not ask for it.
import type { Context, MiddlewareHandler } from "hono";

/** Below this many bytes, compression costs more than it saves (a TCP packet holds ~1.4 KB). */
export const COMPRESS_MIN_BYTES = 1024;

const COMPRESSIBLE = /^(?:text\/|application\/(?:json|javascript|xml|yaml|samlmetadata\+xml)|image\/svg\+xml)/i;

/** Whether a response of this content type is worth compressing (zip containers and images are not). */
export function compressible(contentType: string | null | undefined): boolean {
  return !!contentType && COMPRESSIBLE.test(contentType);
}

/**
 * The encoding to answer with, from the request's Accept-Encoding and what the server has:
 * the offered encoding with the highest q (RFC 9110 12.5.3; `*` counts for the unnamed ones;
 * q=0 refuses), ties going to the order of `have` (brotli first: smaller).
 */
export function chooseEncoding(acceptEncoding: string | null | undefined, have: readonly string[]): string | undefined {
  if (!acceptEncoding) return undefined;
  const q = new Map<string, number>();
  for (const part of acceptEncoding.split(",")) {
    const [name, ...params] = part.trim().toLowerCase().split(";");
    if (!name) continue;
    const qp = params.map((p) => p.trim()).find((p) => p.startsWith("q="));
    const v = qp ? Number(qp.slice(2)) : 1;
    q.set(name, Number.isFinite(v) ? v : 0);
  }
  let best: { enc: string; q: number } | undefined;
  for (const enc of have) {
    const v = q.get(enc) ?? q.get("*") ?? 0;
    if (v > 0 && (!best || v > best.q)) best = { enc, q: v };
  }
  return best?.enc;
}

/** Adds Accept-Encoding to a response's Vary header (once). */
export function varyOnEncoding(headers: Headers): void {
  const vary = headers.get("vary");
  if (vary === "*" || (vary && /(?:^|,)\s*accept-encoding\s*(?:,|$)/i.test(vary))) return;
  headers.set("vary", vary ? `${vary}, Accept-Encoding` : "Accept-Encoding");
}

/**
 * Puts `next` (made with the current response's status and headers) in the current one's place.
 * Hono's `c.res = next` would wrap `next` in yet another Response and copy the old headers onto it
 * one by one; `next` already has them, so the old response is let go first.
 */
function replaceResponse(c: Context, next: Response): void {
  c.res = undefined;
  c.res = next;
}

/**
 * The answer as it goes out: gzipped when it is made per request, compressible, at least
 * `minBytes`, and the client accepts gzip; `Vary: Accept-Encoding` on every compressible answer.
 * Returns `res` itself (its headers completed) or a new response with its status and headers.
 */
export async function compressed(method: string, acceptEncoding: string | null | undefined, res: Response, minBytes = COMPRESS_MIN_BYTES): Promise<Response> {
  if (method === "HEAD" || !res.body || res.headers.has("content-encoding")) return res;
  if (res.status === 204 || res.status === 206 || res.status === 304) return res;
  if (!compressible(res.headers.get("content-type"))) return res;
  if (/(?:^|,)\s*no-transform\s*(?:,|$)/i.test(res.headers.get("cache-control") ?? "")) return res;
  // Headers are set on the response that goes out, once it has replaced the old one.
  const encoding = chooseEncoding(acceptEncoding, ["gzip"]);
  const known = Number(res.headers.get("content-length") ?? Number.NaN);
  if (!encoding || known < minBytes) {
    varyOnEncoding(res.headers);
    return res;
  }
  // The app's answers are built in memory (none streams), so reading the body whole costs no
  // extra latency and tells whether it is big enough to be worth it.
  return bytesAnswer(new Uint8Array(await res.arrayBuffer()), res, encoding, minBytes);
}

/**
 * From this size on (bytes, or characters of a text) an answer is encoded and compressed a slice at
 * a time, the event loop given back between slices (issue 38): the flood's 17 MB answer in one
 * piece held the loop about 150 ms to encode and 120 ms to gzip, and every other request of the
 * process, whatever its tenant, waited that long. In slices of 64 KiB the longest hold was 17 ms.
 */
export const PACED_BYTES = 1 << 20;
const SLICE = 1 << 16;

const nextTurn = () => new Promise<void>((r) => (globalThis.setImmediate ?? setTimeout)(r));

/** A stream of what `next` gives (null: the end), one piece per turn of the event loop. */
function paced(next: () => Uint8Array<ArrayBuffer> | null): ReadableStream<Uint8Array<ArrayBuffer>> {
  let first = true;
  return new ReadableStream({
    async pull(c) {
      if (!first) await nextTurn();
      first = false;
      const piece = next();
      if (piece) c.enqueue(piece);
      else c.close();
    },
  });
}

/** `bytes` in slices of SLICE, one per turn. */
export function pacedBytes(bytes: Uint8Array<ArrayBuffer>, slice = SLICE): ReadableStream<Uint8Array<ArrayBuffer>> {
  let at = 0;
  return paced(() => {
    if (at >= bytes.byteLength) return null;
    const piece = bytes.subarray(at, at + slice);
    at += slice;
    return piece;
  });
}

/**
 * The UTF-8 bytes of `text` (or of its pieces, one after the other), encoded a slice of `slice`
 * characters per turn, never between the halves of a surrogate pair (pieces end on whole characters).
 */
export function pacedText(text: string | readonly string[], slice = SLICE): ReadableStream<Uint8Array<ArrayBuffer>> {
  const pieces = typeof text === "string" ? [text] : text;
  const encoder = new TextEncoder();
  let i = 0;
  let at = 0;
  return paced(() => {
    while (i < pieces.length && at >= pieces[i]!.length) {
      i++;
      at = 0;
    }
    if (i >= pieces.length) return null;
    const piece = pieces[i]!;
    let end = Math.min(piece.length, at + slice);
    const last = piece.charCodeAt(end - 1);
    if (end < piece.length && last >= 0xd800 && last <= 0xdbff) end--;
    const bytes = encoder.encode(piece.slice(at, end));
    at = end;
    return bytes;
  });
}

/** The answer of a body stream with `init`'s status and headers, gzipped with `encoding` if any. */
function streamAnswer(body: ReadableStream<Uint8Array<ArrayBuffer>>, init: ResponseInit, encoding: string | undefined): Response {
  const out = new Response(encoding ? body.pipeThrough(new CompressionStream("gzip")) : body, init);
  varyOnEncoding(out.headers);
  if (encoding) {
    out.headers.set("content-encoding", encoding);
    out.headers.delete("content-length");
    const etag = out.headers.get("etag");
    if (etag && !etag.startsWith("W/")) out.headers.set("etag", `W/${etag}`);
  }
  return out;
}

/** The answer of `bytes` with `init`'s status and headers: gzipped from `minBytes` on (with `encoding`, if any), a slice per turn from PACED_BYTES on. */
function bytesAnswer(bytes: Uint8Array<ArrayBuffer>, init: ResponseInit, encoding: string | undefined, minBytes: number): Response {
  if (!encoding || bytes.byteLength < minBytes) {
    const out = new Response(bytes, init);
    varyOnEncoding(out.headers);
    return out;
  }
  return streamAnswer(bytes.byteLength >= PACED_BYTES ? pacedBytes(bytes) : new Blob([bytes]).stream(), init, encoding);
}

/**
 * What `compressed` makes of a 200 answer whose body is `text` (or its pieces joined) of a compressible type, made from
 * the text itself: a GET's JSON read answers without a Response to read back and copy (the lean
 * collection read, app.ts). The threshold counts the text's UTF-8 bytes, as on the wire.
 */
export function compressedText(acceptEncoding: string | null | undefined, text: string | readonly string[], headers: Headers, minBytes = COMPRESS_MIN_BYTES): Response {
  if (!compressible(headers.get("content-type"))) throw new Error("compressedText: not a compressible type");
  // A text of PACED_BYTES characters has at least as many bytes (over the threshold): encoded as it
  // is sent, its pieces never joined.
  const chars = typeof text === "string" ? text.length : text.reduce((n, p) => n + p.length, 0);
  if (chars >= PACED_BYTES && minBytes <= PACED_BYTES) return streamAnswer(pacedText(text), { status: 200, headers }, chooseEncoding(acceptEncoding, ["gzip"]));
  return bytesAnswer(new TextEncoder().encode(typeof text === "string" ? text : text.join("")), { status: 200, headers }, chooseEncoding(acceptEncoding, ["gzip"]), minBytes);
}

/** Gzip-compresses responses made per request, above `minBytes`, for clients that accept it. */
export function compression(minBytes = COMPRESS_MIN_BYTES): MiddlewareHandler {
  return async (c, next) => {
    await next();
    const res = c.res;
    const out = await compressed(c.req.method, c.req.header("accept-encoding"), res, minBytes);
    if (out !== res) replaceResponse(c, out);
  };
}
