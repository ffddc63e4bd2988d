// S3-compatible storage (AWS S3, MinIO, Cloudflare R2, ...): presigned URLs with AWS Signature
// Version 4 query authentication, computed with WebCrypto so the app stays Web-standard (it runs
// on Deno too; Bun's own S3 client would need a Bun-only adapter). The browser talks to the store
// directly. An upload URL signs the content type, and the content length when the browser gave the
// file's size, so the store refuses any other. Reference: AWS, "Authenticating Requests: Using
// Query Parameters (AWS Signature Version 4)", Amazon S3 API Reference.
import { DOWNLOAD_URL_SECONDS, UPLOAD_URL_SECONDS, type DownloadRequest, type FileStorage, type SignedUrl, type UploadRequest } from "./storage.ts";

export interface S3Config {
  /** e.g. https://s3.eu-west-1.amazonaws.com or http://127.0.0.1:9000 (MinIO). */
  endpoint: string;
  bucket: string;
  accessKeyId: string;
  secretAccessKey: string;
  /** Signing region; us-east-1 when unset (R2 takes "auto"). */
  region: string;
  /** https://{bucket}.{endpoint host}/key instead of {endpoint}/{bucket}/key. */
  virtualHosted: boolean;
}

const enc = new TextEncoder();

const hex = (buf: ArrayBuffer) => [...new Uint8Array(buf)].map((b) => b.toString(16).padStart(2, "0")).join("");

async function sha256Hex(text: string): Promise<string> {
  return hex(await crypto.subtle.digest("SHA-256", enc.encode(text)));
}

async function hmac(key: ArrayBuffer | Uint8Array, text: string): Promise<ArrayBuffer> {
  const k = await crypto.subtle.importKey("raw", key as BufferSource, { name: "HMAC", hash: "SHA-256" }, false, ["sign"]);
  return crypto.subtle.sign("HMAC", k, enc.encode(text));
}

/** RFC 3986 encoding as SigV4 wants it: everything but A-Z a-z 0-9 - _ . ~ is %XX. */
export function uriEncode(s: string, keepSlash = false): string {
  let out = "";
  for (const byte of enc.encode(s)) {
    const ch = String.fromCharCode(byte);
    if (/[A-Za-z0-9\-_.~]/.test(ch) || (keepSlash && ch === "/")) out += ch;
    else out += `%${byte.toString(16).toUpperCase().padStart(2, "0")}`;
  }
  return out;
}

/** 20130524T000000Z */
export function amzDate(d: Date): string {
  return d
    .toISOString()
    .replace(/[-:]/g, "")
    .replace(/\.\d{3}/, "");
}

export interface PresignInput {
  method: "GET" | "PUT";
  /** The object's URL without a query (path already in its final, unencoded form). */
  url: string;
  region: string;
  accessKeyId: string;
  secretAccessKey: string;
  expiresIn: number;
  date: Date;
  /** Headers to sign besides host (lower-case names). */
  headers?: Record<string, string>;
  /** Extra query parameters (e.g. response-content-disposition). */
  query?: Record<string, string>;
}

/** A SigV4 presigned URL (service s3, unsigned payload). */
export async function presign(input: PresignInput): Promise<string> {
  const u = new URL(input.url);
  const stamp = amzDate(input.date);
  const day = stamp.slice(0, 8);
  const scope = `${day}/${input.region}/s3/aws4_request`;
  const headers: Record<string, string> = { host: u.host };
  for (const [k, v] of Object.entries(input.headers ?? {})) headers[k.toLowerCase()] = v.trim();
  const names = Object.keys(headers).sort();
  const query: Record<string, string> = {
    ...(input.query ?? {}),
    "X-Amz-Algorithm": "AWS4-HMAC-SHA256",
    "X-Amz-Credential": `${input.accessKeyId}/${scope}`,
    "X-Amz-Date": stamp,
    "X-Amz-Expires": String(input.expiresIn),
    "X-Amz-SignedHeaders": names.join(";"),
  };
  const canonicalQuery = Object.keys(query)
    .sort()
    .map((k) => `${uriEncode(k)}=${uriEncode(query[k]!)}`)
    .join("&");
  // S3 does not normalise the path: each segment is encoded once, slashes kept.
  const path = uriEncode(decodeURIComponent(u.pathname), true);
  const canonicalRequest = [input.method, path, canonicalQuery, names.map((n) => `${n}:${headers[n]}\n`).join(""), names.join(";"), "UNSIGNED-PAYLOAD"].join("\n");
  const stringToSign = ["AWS4-HMAC-SHA256", stamp, scope, await sha256Hex(canonicalRequest)].join("\n");
  let key = await hmac(enc.encode(`AWS4${input.secretAccessKey}`), day);
  key = await hmac(key, input.region);
  key = await hmac(key, "s3");
  key = await hmac(key, "aws4_request");
  const signature = hex(await hmac(key, stringToSign));
  return `${u.origin}${path}?${canonicalQuery}&X-Amz-Signature=${signature}`;
}

export class S3Storage implements FileStorage {
  readonly kind = "s3" as const;
  constructor(private readonly cfg: S3Config) {}

  /** The object's URL (unencoded path; presign encodes it). */
  objectUrl(key: string): string {
    const e = new URL(this.cfg.endpoint);
    const base = e.pathname.replace(/\/+$/, "");
    return this.cfg.virtualHosted ? `${e.protocol}//${this.cfg.bucket}.${e.host}${base}/${key}` : `${e.origin}${base}/${this.cfg.bucket}/${key}`;
  }

  async uploadUrl(req: UploadRequest): Promise<SignedUrl> {
    const date = new Date();
    const expiresIn = req.expiresIn ?? UPLOAD_URL_SECONDS;
    const headers: Record<string, string> = { "content-type": req.contentType };
    if (req.size !== undefined) headers["content-length"] = String(req.size);
    const url = await presign({ ...this.creds(), method: "PUT", url: this.objectUrl(req.key), expiresIn, date, headers });
    return { url, method: "PUT", headers, expiresAt: new Date(date.getTime() + expiresIn * 1000).toISOString() };
  }

  async downloadUrl(req: DownloadRequest): Promise<SignedUrl> {
    const date = new Date();
    const expiresIn = req.expiresIn ?? DOWNLOAD_URL_SECONDS;
    const query: Record<string, string> = {};
    if (req.contentType) query["response-content-type"] = req.contentType;
    if (req.fileName) query["response-content-disposition"] = contentDisposition("inline", req.fileName);
    const url = await presign({ ...this.creds(), method: "GET", url: this.objectUrl(req.key), expiresIn, date, query });
    return { url, method: "GET", headers: {}, expiresAt: new Date(date.getTime() + expiresIn * 1000).toISOString() };
  }

  private creds() {
    return { region: this.cfg.region, accessKeyId: this.cfg.accessKeyId, secretAccessKey: this.cfg.secretAccessKey };
  }
}

/** A Content-Disposition value with an ASCII fallback and the RFC 5987 UTF-8 name. */
export function contentDisposition(kind: "inline" | "attachment", fileName: string): string {
  const ascii = fileName.replace(/[^\x20-\x7e]/g, "_").replace(/["\\]/g, "_");
  return `${kind}; filename="${ascii}"; filename*=UTF-8''${uriEncode(fileName)}`;
}
