// Files of projects and clients: signed, expiring upload URLs (Projects and Clients FileUploadUrl),
// download URLs for every file of a project (ProjectFileUrls), and the local-disk store's own
// upload and download (the /api/files routes). Storage keys are ours:
//   clients/{clientId}/projects/{projectId}/{uuid}/{name}   (test option and question files)
//   clients/{clientId}/files/{uuid}/{name}                  (client files, e.g. template questions)
// so a key names its tenant, and a download URL is only ever signed for a key of the project's own
// client, whatever a row's JSON says.
import type { Db } from "../../db/client.ts";
import { enterTenant } from "../../access/policy.ts";
import type { RequestCtx } from "../../access/principal.ts";
import { ApiError } from "../../errors.ts";
import { FILE_TYPES, isSafeKey, safeFileName, type FileStorage } from "../../storage/storage.ts";
import { LocalDiskStorage, WriteError } from "../../storage/local.ts";
import { contentDisposition } from "../../storage/s3.ts";
import { projectForWrite } from "./common.ts";
import * as pq from "./projects.sql.ts";
import * as q from "./files.sql.ts";

export interface UploadUrlInput {
  fileName: string;
  fileType: string;
  fileSize?: number;
}

export interface UploadUrl {
  url: string;
  method: "PUT";
  headers: Record<string, string>;
  key: string;
  fileName: string;
  fileType: string;
  maxBytes: number;
  expiresAt: string;
}

function checkType(input: UploadUrlInput): { maxBytes: number } {
  const t = FILE_TYPES[input.fileType];
  if (!t) {
    throw new ApiError("ValidationError", `Files of type ${input.fileType} are not accepted`, undefined, [{ path: "fileType", message: `One of ${Object.keys(FILE_TYPES).join(", ")}` }]);
  }
  if (input.fileSize !== undefined && input.fileSize > t.maxBytes) {
    throw new ApiError("PayloadTooLarge", `A ${t.label} may be at most ${t.maxBytes / 1024 / 1024} MB`);
  }
  return { maxBytes: t.maxBytes };
}

async function uploadUrl(storage: FileStorage, baseUrl: string, prefix: string, input: UploadUrlInput): Promise<UploadUrl> {
  const { maxBytes: typeMax } = checkType(input);
  // A link for a declared size takes no more than that size (S3 signs it as the exact length).
  const maxBytes = input.fileSize !== undefined ? Math.min(input.fileSize, typeMax) : typeMax;
  const name = safeFileName(input.fileName, input.fileType);
  const key = `${prefix}/${crypto.randomUUID()}/${name}`;
  const signed = await storage.uploadUrl({ key, contentType: input.fileType, maxBytes, size: input.fileSize, baseUrl });
  return { url: signed.url, method: "PUT", headers: signed.headers, key, fileName: input.fileName, fileType: input.fileType, maxBytes, expiresAt: signed.expiresAt };
}

/** Projects({key})/FileUploadUrl: where to PUT a file for the project's test options or questions. */
export async function projectUploadUrl(db: Db, ctx: RequestCtx, storage: FileStorage, baseUrl: string, projectId: number, input: UploadUrlInput): Promise<UploadUrl> {
  checkType(input);
  const p = await enterTenant(db, ctx, (tx) => projectForWrite(tx, projectId));
  return uploadUrl(storage, baseUrl, `clients/${p.clientId}/projects/${p.id}`, input);
}

/** Clients({key})/FileUploadUrl: a file of the client itself (the clientId header must name it). */
export async function clientUploadUrl(db: Db, ctx: RequestCtx, storage: FileStorage, baseUrl: string, clientId: number, input: UploadUrlInput): Promise<UploadUrl> {
  if (ctx.clientId !== clientId) throw new ApiError("BadRequest", "Name the same client in the clientId header");
  checkType(input);
  // Entering the client checks the caller's role on it.
  await enterTenant(db, { ...ctx, descendants: false }, async () => undefined);
  return uploadUrl(storage, baseUrl, `clients/${clientId}/files`, input);
}

export interface ProjectFile {
  source: "testOption" | "question";
  testOptionId: number | null;
  questionId: number | null;
  key: string;
  fileType: string | null;
  fileName: string | null;
  signedUrl: string;
  expiresAt: string;
}

/** Projects({key})/ProjectFileUrls: a signed, expiring download URL for every file of the project. */
export async function projectFileUrls(db: Db, ctx: RequestCtx, storage: FileStorage, baseUrl: string, projectId: number): Promise<ProjectFile[]> {
  const { project, files } = await enterTenant(db, ctx, async (tx) => {
    const project = await pq.readableProject(tx, projectId);
    if (!project) throw new ApiError("NotFound", `Projects(${projectId}) not found`);
    return { project, files: await q.projectFiles(tx, projectId) };
  });
  const prefix = `clients/${project.clientId}/`;
  const out: ProjectFile[] = [];
  for (const f of files) {
    // A key stored by hand ('clients/5/../3/x.png') is never signed: only the project's own, plain keys.
    if (typeof f.key !== "string" || !f.key.startsWith(prefix) || !isSafeKey(f.key)) continue;
    const fileType = typeof f.fileType === "string" && FILE_TYPES[f.fileType] ? f.fileType : null;
    const fileName = typeof f.fileName === "string" ? f.fileName : null;
    const signed = await storage.downloadUrl({ key: f.key, contentType: fileType ?? undefined, fileName: fileName ?? undefined, baseUrl });
    out.push({ source: f.source, testOptionId: f.testOptionId, questionId: f.questionId, key: f.key, fileType, fileName, signedUrl: signed.url, expiresAt: signed.expiresAt });
  }
  return out;
}

// ---- the local-disk store's own routes ----

function localOnly(storage: FileStorage): LocalDiskStorage {
  if (!(storage instanceof LocalDiskStorage)) throw new ApiError("NotFound", "Files are stored in S3: upload and download with the signed URLs");
  return storage;
}

const tokenError = (problem: string) => new ApiError("Forbidden", problem === "expired" ? "This file link has expired: ask for a new one" : "This file link is not valid");

/** PUT /api/files/upload?token=...: the body is the file, checked against the token and its type. */
export async function upload(storage: FileStorage, token: string, contentType: string | undefined, contentLength: string | undefined, body: ReadableStream<Uint8Array> | null) {
  const local = localOnly(storage);
  const v = await local.verifyPut(token);
  if (!v.ok) throw tokenError(v.problem);
  const { k: key, t: type, m: max } = v.claims;
  if (!isSafeKey(key)) throw new ApiError("BadRequest", "This file link names a key that is not a plain file key");
  const sent = (contentType ?? "").split(";")[0]!.trim().toLowerCase();
  if (sent !== type) {
    throw new ApiError("ValidationError", `The upload must be sent as ${type}`, undefined, [{ path: "content-type", message: `Expected ${type}, got ${sent || "none"}` }]);
  }
  if (contentLength !== undefined && Number(contentLength) > max) throw new ApiError("PayloadTooLarge", `The file is larger than ${max} bytes`);
  try {
    const size = await local.write(key, body, type, max);
    return { key, fileType: type, size };
  } catch (e) {
    if (e instanceof WriteError) {
      if (e.problem === "too-large") throw new ApiError("PayloadTooLarge", e.message);
      if (e.problem === "exists") throw new ApiError("Conflict", e.message);
      if (e.problem === "no-space") throw new ApiError("InsufficientStorage", e.message);
      throw new ApiError("ValidationError", e.message, undefined, [{ path: "(body)", message: e.message }]);
    }
    throw e;
  }
}

/** GET /api/files/download?token=...: the file, served so that a browser never runs it. */
export async function download(storage: FileStorage, token: string): Promise<Response> {
  const local = localOnly(storage);
  const v = await local.verifyGet(token);
  if (!v.ok) throw tokenError(v.problem);
  if (!isSafeKey(v.claims.k)) throw new ApiError("BadRequest", "This file link names a key that is not a plain file key");
  const file = await local.read(v.claims.k);
  if (!file) throw new ApiError("NotFound", "The file is not there (was the upload finished?)");
  const headers: Record<string, string> = {
    "content-type": v.claims.t ?? "application/octet-stream",
    "content-length": String(file.size),
    "x-content-type-options": "nosniff",
    "content-security-policy": "default-src 'none'; sandbox",
    "cache-control": `private, max-age=${Math.max(0, v.claims.exp - Math.floor(Date.now() / 1000))}`,
  };
  if (v.claims.n) headers["content-disposition"] = contentDisposition("inline", v.claims.n);
  return new Response(file.body, { status: 200, headers });
}
