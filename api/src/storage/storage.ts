// File storage: where uploaded files (test option images, question files, client files) live, and
// the signed, expiring URLs browsers use to put and get them. The API never proxies an S3 upload:
// it hands out a URL. Two implementations: local disk (DATA_DIR/uploads, served by our own
// /api/files routes) and any S3-compatible store (presigned URLs, SigV4). Web-standard code only
// (WebCrypto, fetch types), so the app keeps running on Deno; local disk uses node:fs, which Bun
// and Deno both provide.

/** The file types the product accepts, with their size limits. */
export const FILE_TYPES: Readonly<Record<string, { ext: string; maxBytes: number; label: string }>> = {
  "image/png": { ext: "png", maxBytes: 20 * 1024 * 1024, label: "PNG image" },
  "image/jpeg": { ext: "jpg", maxBytes: 20 * 1024 * 1024, label: "JPEG image" },
  "image/webp": { ext: "webp", maxBytes: 20 * 1024 * 1024, label: "WebP image" },
  "image/gif": { ext: "gif", maxBytes: 20 * 1024 * 1024, label: "GIF image" },
  "application/pdf": { ext: "pdf", maxBytes: 20 * 1024 * 1024, label: "PDF document" },
  "video/mp4": { ext: "mp4", maxBytes: 100 * 1024 * 1024, label: "MP4 video" },
};

export const ALLOWED_FILE_TYPES = Object.keys(FILE_TYPES) as [string, ...string[]];

/** How long an upload URL stays valid (seconds). */
export const UPLOAD_URL_SECONDS = 15 * 60;
/** How long a download URL stays valid (seconds). */
export const DOWNLOAD_URL_SECONDS = 60 * 60;

export interface SignedUrl {
  url: string;
  method: "PUT" | "GET";
  /** Headers the request must carry exactly (the upload's content type is part of the signature). */
  headers: Record<string, string>;
  /** ISO time the URL stops working. */
  expiresAt: string;
}

export interface UploadRequest {
  key: string;
  contentType: string;
  /** The largest body accepted (the type's limit). */
  maxBytes: number;
  /** The file's size when the browser told us: S3 then signs it as the exact content length. */
  size?: number;
  /** Where this API is reached (local disk URLs point at our own routes). */
  baseUrl: string;
  expiresIn?: number;
}

export interface DownloadRequest {
  key: string;
  contentType?: string;
  fileName?: string;
  baseUrl: string;
  expiresIn?: number;
}

export interface FileStorage {
  readonly kind: "local" | "s3";
  uploadUrl(req: UploadRequest): Promise<SignedUrl>;
  downloadUrl(req: DownloadRequest): Promise<SignedUrl>;
}

/**
 * Storage keys are ours (never a user's file name alone): `clients/{id}/...` with a random part.
 * Only these characters, no empty or dot segments, so a key is a safe relative path on disk.
 */
export function isSafeKey(key: string): boolean {
  if (key.length === 0 || key.length > 512) return false;
  if (!/^[A-Za-z0-9][A-Za-z0-9._/-]*$/.test(key)) return false;
  return key.split("/").every((s) => s.length > 0 && s !== "." && s !== "..");
}

/** A file name reduced to a safe key segment (letters, digits, dot, dash, underscore). */
export function safeFileName(name: string, contentType: string): string {
  const ext = FILE_TYPES[contentType]?.ext ?? "bin";
  const base = name
    .normalize("NFKD")
    .replace(/[^\x20-\x7e]/g, "")
    .replace(/\.[A-Za-z0-9]{1,5}$/, "")
    .replace(/[^A-Za-z0-9._-]+/g, "-")
    .replace(/^[-._]+|[-._]+$/g, "")
    .slice(0, 80);
  return `${base || "file"}.${ext}`;
}

/**
 * Does the start of a file look like its declared type? Checked on local uploads so a file sent
 * as image/png really is one (browsers are also told nosniff when it is served).
 */
export function matchesSignature(contentType: string, head: Uint8Array): boolean {
  const at = (offset: number, ascii: string) => head.length >= offset + ascii.length && [...ascii].every((ch, i) => head[offset + i] === ch.charCodeAt(0));
  switch (contentType) {
    case "image/png":
      return head.length >= 8 && head[0] === 0x89 && at(1, "PNG\r\n\x1a\n");
    case "image/jpeg":
      return head.length >= 3 && head[0] === 0xff && head[1] === 0xd8 && head[2] === 0xff;
    case "image/gif":
      return at(0, "GIF87a") || at(0, "GIF89a");
    case "image/webp":
      return at(0, "RIFF") && at(8, "WEBP");
    case "application/pdf":
      return at(0, "%PDF-");
    case "video/mp4":
      return at(4, "ftyp");
    default:
      return false;
  }
}

/** Bytes of the signature check: enough for every type above. */
export const SIGNATURE_BYTES = 16;
