// Which file storage a deployment uses: an S3-compatible store when S3_ENDPOINT, S3_BUCKET,
// S3_ACCESS_KEY_ID and S3_SECRET_ACCESS_KEY are all set (S3_REGION, S3_VIRTUAL_HOSTED optional),
// otherwise local disk under DATA_DIR/uploads (or UPLOADS_DIR).
import { join } from "node:path";
import { LocalDiskStorage } from "./local.ts";
import { S3Storage } from "./s3.ts";
import type { FileStorage } from "./storage.ts";

export type { FileStorage } from "./storage.ts";
export { LocalDiskStorage } from "./local.ts";
export { S3Storage } from "./s3.ts";

const S3_VARS = ["S3_ENDPOINT", "S3_BUCKET", "S3_ACCESS_KEY_ID", "S3_SECRET_ACCESS_KEY"] as const;

/**
 * The storage the environment describes. `signingKey` signs local-disk URLs (the API's HMAC key;
 * the tokens are domain-separated, see tokens.ts). Throws a readable error on a half-set S3 config.
 */
export function storageFromEnv(env: Record<string, string | undefined>, opts: { dataDir: string; signingKey: CryptoKey }): FileStorage {
  const set = S3_VARS.filter((v) => env[v]);
  if (set.length > 0 && set.length < S3_VARS.length) {
    const missing = S3_VARS.filter((v) => !env[v]);
    throw new Error(`Invalid configuration:\n  S3 storage needs ${S3_VARS.join(", ")}; missing ${missing.join(", ")}`);
  }
  if (set.length === S3_VARS.length) {
    const endpoint = env.S3_ENDPOINT!.replace(/\/+$/, "");
    if (!/^https?:\/\/[^/]+/.test(endpoint)) throw new Error("Invalid configuration:\n  S3_ENDPOINT must be an http(s) URL");
    return new S3Storage({
      endpoint,
      bucket: env.S3_BUCKET!,
      accessKeyId: env.S3_ACCESS_KEY_ID!,
      secretAccessKey: env.S3_SECRET_ACCESS_KEY!,
      region: env.S3_REGION || "us-east-1",
      virtualHosted: env.S3_VIRTUAL_HOSTED === "1",
    });
  }
  return new LocalDiskStorage(env.UPLOADS_DIR || join(opts.dataDir, "uploads"), opts.signingKey);
}

/** Where browsers load presigned S3 objects from (the pages' CSP allows images from there). */
export function s3ImageOrigin(env: Record<string, string | undefined>): string {
  const u = new URL(env.S3_ENDPOINT!);
  return env.S3_VIRTUAL_HOSTED === "1" ? `${u.protocol}//${env.S3_BUCKET}.${u.host}` : u.origin;
}
