// Local-disk storage under a root folder (DATA_DIR/uploads by default). Upload and download URLs
// point at this API's own routes (/api/files/upload and /api/files/download, domains/projects/
// files.routes.ts) and carry a signed, expiring token (tokens.ts) naming the key, the content type
// and the size limit. A write goes to a temporary file in the same folder and is linked into place
// only when complete and within its limits: a reader never sees half a file, and an existing file
// is never overwritten (link fails on an existing name).
import { createReadStream } from "node:fs";
import { link, mkdir, open, stat, unlink, type FileHandle } from "node:fs/promises";
import { dirname, join, resolve, sep } from "node:path";
import { DOWNLOAD_URL_SECONDS, isSafeKey, matchesSignature, SIGNATURE_BYTES, UPLOAD_URL_SECONDS, type DownloadRequest, type FileStorage, type SignedUrl, type UploadRequest } from "./storage.ts";
import { signFileToken, verifyFileToken, type GetClaims, type PutClaims, type TokenProblem } from "./tokens.ts";

export const UPLOAD_PATH = "/api/files/upload";
export const DOWNLOAD_PATH = "/api/files/download";

export type WriteProblem = "too-large" | "wrong-type" | "exists" | "empty" | "no-space";

/**
 * Writes every byte: a write may store fewer bytes than asked (a disk filling up), which a single
 * fh.write() reports only as a smaller bytesWritten, silently truncating the file. A write that
 * stores nothing is a full disk.
 */
async function writeAll(fh: FileHandle, bytes: Uint8Array): Promise<void> {
  let offset = 0;
  while (offset < bytes.byteLength) {
    const { bytesWritten } = await fh.write(bytes, offset, bytes.byteLength - offset);
    if (bytesWritten <= 0) throw Object.assign(new Error("no space left on device"), { code: "ENOSPC" });
    offset += bytesWritten;
  }
}

export class WriteError extends Error {
  constructor(
    readonly problem: WriteProblem,
    message: string,
  ) {
    super(message);
    this.name = "WriteError";
  }
}

const expiry = (seconds: number) => Math.floor(Date.now() / 1000) + seconds;
const iso = (exp: number) => new Date(exp * 1000).toISOString();

export class LocalDiskStorage implements FileStorage {
  readonly kind = "local" as const;
  readonly root: string;

  constructor(
    root: string,
    private readonly key: CryptoKey,
  ) {
    this.root = resolve(root);
  }

  async uploadUrl(req: UploadRequest): Promise<SignedUrl> {
    const exp = expiry(req.expiresIn ?? UPLOAD_URL_SECONDS);
    const token = await signFileToken(this.key, { p: "put", k: req.key, t: req.contentType, m: req.maxBytes, exp });
    return {
      url: `${req.baseUrl}${UPLOAD_PATH}?token=${token}`,
      method: "PUT",
      headers: { "content-type": req.contentType },
      expiresAt: iso(exp),
    };
  }

  async downloadUrl(req: DownloadRequest): Promise<SignedUrl> {
    const exp = expiry(req.expiresIn ?? DOWNLOAD_URL_SECONDS);
    const claims: GetClaims = { p: "get", k: req.key, exp };
    if (req.contentType) claims.t = req.contentType;
    if (req.fileName) claims.n = req.fileName;
    const token = await signFileToken(this.key, claims);
    return { url: `${req.baseUrl}${DOWNLOAD_PATH}?token=${token}`, method: "GET", headers: {}, expiresAt: iso(exp) };
  }

  verifyPut(token: string): Promise<{ ok: true; claims: PutClaims } | { ok: false; problem: TokenProblem }> {
    return verifyFileToken(this.key, token, "put");
  }

  verifyGet(token: string): Promise<{ ok: true; claims: GetClaims } | { ok: false; problem: TokenProblem }> {
    return verifyFileToken(this.key, token, "get");
  }

  /** The file's path under the root; throws on a key that would leave it. */
  pathOf(key: string): string {
    if (!isSafeKey(key)) throw new Error(`unsafe storage key ${JSON.stringify(key)}`);
    const p = resolve(this.root, key);
    if (!p.startsWith(this.root + sep)) throw new Error(`storage key outside the root: ${key}`);
    return p;
  }

  /**
   * Writes the body to `key` atomically: the bytes go to a temporary file, are checked (size,
   * the type's signature), and the file is linked into place. Throws WriteError on a refusal.
   */
  async write(key: string, body: ReadableStream<Uint8Array> | null, contentType: string, maxBytes: number): Promise<number> {
    try {
      return await this.writeChecked(key, body, contentType, maxBytes);
    } catch (e) {
      // A full disk (or quota) at any step: the temporary file is gone (writeChecked's finally),
      // nothing was linked into place, and the caller gets a refusal it can explain.
      const code = (e as { code?: string }).code;
      if (code === "ENOSPC" || code === "EDQUOT") throw new WriteError("no-space", "There is no space left to store the file; try again later");
      throw e;
    }
  }

  private async writeChecked(key: string, body: ReadableStream<Uint8Array> | null, contentType: string, maxBytes: number): Promise<number> {
    const final = this.pathOf(key);
    await mkdir(dirname(final), { recursive: true });
    const tmp = join(dirname(final), `.upload-${crypto.randomUUID()}.tmp`);
    const fh = await open(tmp, "wx", 0o640);
    let size = 0;
    let head = new Uint8Array(0);
    try {
      if (body) {
        const reader = body.getReader();
        try {
          for (;;) {
            const { value, done: end } = await reader.read();
            if (end) break;
            size += value.byteLength;
            if (size > maxBytes) throw new WriteError("too-large", `The file is larger than ${maxBytes} bytes`);
            if (head.length < SIGNATURE_BYTES) {
              const h = new Uint8Array(Math.min(SIGNATURE_BYTES, head.length + value.byteLength));
              h.set(head);
              h.set(value.subarray(0, h.length - head.length), head.length);
              head = h;
            }
            await writeAll(fh, value);
          }
        } finally {
          reader.releaseLock();
        }
      }
      if (size === 0) throw new WriteError("empty", "The file is empty");
      if (!matchesSignature(contentType, head)) throw new WriteError("wrong-type", `The file's content is not a ${contentType} file`);
      await fh.sync();
      await fh.close();
      try {
        await link(tmp, final);
      } catch (e) {
        if ((e as { code?: string }).code === "EEXIST") throw new WriteError("exists", "A file was already uploaded with this link");
        throw e;
      }
      return size;
    } finally {
      await fh.close().catch(() => {});
      // Linked or refused, the temporary name goes.
      await unlink(tmp).catch(() => {});
    }
  }

  /** The file at `key` as a web stream with its size, or null when there is none. */
  async read(key: string): Promise<{ body: ReadableStream<Uint8Array>; size: number } | null> {
    const p = this.pathOf(key);
    try {
      const st = await stat(p);
      if (!st.isFile()) return null;
      // Pulled chunk by chunk (the reader's pace), closed with the file when the reader cancels.
      const chunks = createReadStream(p)[Symbol.asyncIterator]();
      const body = new ReadableStream<Uint8Array>({
        async pull(ctrl) {
          const next = await chunks.next();
          if (next.done) ctrl.close();
          else ctrl.enqueue(next.value);
        },
        async cancel() {
          await chunks.return?.();
        },
      });
      return { body, size: st.size };
    } catch (e) {
      if ((e as { code?: string }).code === "ENOENT") return null;
      throw e;
    }
  }
}
