// Files: signed upload URLs (Projects and Clients FileUploadUrl), download URLs for a project's
// files (ProjectFileUrls), and the local-disk store's upload and download routes, which a signed
// token (not a sign-in) authorises.
import { z } from "@hono/zod-openapi";
import type { App, AppDeps } from "../../app-types.ts";
import { access } from "../../access/policy.ts";
import { addRoute, commonErrors, errorResponse, errors } from "../../openapi.ts";
import { ApiError } from "../../errors.ts";
import { ALLOWED_FILE_TYPES, type FileStorage } from "../../storage/storage.ts";
import { DOWNLOAD_PATH, UPLOAD_PATH } from "../../storage/local.ts";
import { fileAnswer, keyOf, keyParam } from "./common.ts";
import * as S from "./schemas.ts";
import * as svc from "./files.service.ts";

/** The server's file storage, or a 503 when none is configured. */
const storage = (deps: AppDeps): FileStorage => {
  if (!deps.storage) throw new ApiError("ServiceUnavailable", "File storage is not configured on this server");
  return deps.storage;
};

const tooLarge = errorResponse("The file is larger than its type allows");

export function registerFileRoutes(app: App, deps: AppDeps): void {
  registerUploadUrls(app, deps);
  registerFileTransfer(app, deps);
}

/** Projects and Clients FileUploadUrl, Projects ProjectFileUrls. */
function registerUploadUrls(app: App, deps: AppDeps): void {
  const { db } = deps;
  const baseUrl = (c: { req: { url: string } }) => deps.publicUrl ?? new URL(c.req.url).origin;
  const uploadInput = (c: { req: { valid(t: "query"): z.output<typeof S.UploadUrlQuery> } }): svc.UploadUrlInput => {
    const qv = c.req.valid("query");
    return { fileName: qv.fileName, fileType: qv.fileType, fileSize: qv.fileSize === undefined ? undefined : Number(qv.fileSize) };
  };
  addRoute(
    app,
    {
      access: access.user,
      method: "get",
      path: "/api/v1/Projects/{key}/FileUploadUrl",
      tags: ["Projects"],
      operationId: "Projects_FileUploadUrl",
      summary: "A signed, expiring URL to upload a file for the project's test options or questions",
      description: `Accepted: ${ALLOWED_FILE_TYPES.join(", ")}; images and PDF up to 20 MB, MP4 up to 100 MB. PUT the bytes to url with headers, then store key (and fileType, fileName) on the test option's file or the question's s3File.`,
      request: { params: keyParam("Projects"), query: S.UploadUrlQuery },
      responses: { 200: { description: "Where to upload", content: { "application/json": { schema: S.UploadUrl } } }, ...commonErrors, 404: errors[404], 413: tooLarge },
    },
    async (c) => c.json(await svc.projectUploadUrl(db, c.get("ctx"), storage(deps), baseUrl(c), keyOf(c), uploadInput(c)), 200),
  );

  addRoute(
    app,
    {
      access: access.user,
      method: "get",
      path: "/api/v1/Clients/{key}/FileUploadUrl",
      tags: ["Clients"],
      operationId: "Clients_FileUploadUrl",
      summary: "A signed, expiring URL to upload a file of the client (e.g. for a template question)",
      request: { params: keyParam("Clients"), query: S.UploadUrlQuery },
      responses: { 200: { description: "Where to upload", content: { "application/json": { schema: S.UploadUrl } } }, ...commonErrors, 404: errors[404], 413: tooLarge },
    },
    async (c) => c.json(await svc.clientUploadUrl(db, c.get("ctx"), storage(deps), baseUrl(c), keyOf(c), uploadInput(c)), 200),
  );

  addRoute(
    app,
    {
      access: access.viewer,
      method: "get",
      path: "/api/v1/Projects/{key}/ProjectFileUrls",
      tags: ["Projects"],
      operationId: "Projects_ProjectFileUrls",
      summary: "Signed, expiring download URLs for every file of the project (test options' and questions' files)",
      request: { params: keyParam("Projects") },
      responses: { 200: { description: "The files", content: { "application/json": { schema: z.object({ value: z.array(S.ProjectFile) }) } } }, ...commonErrors, 404: errors[404] },
    },
    async (c) => c.json({ value: await svc.projectFileUrls(db, c.get("ctx"), storage(deps), baseUrl(c), keyOf(c)) }, 200),
  );
}

/** The signed upload and download of a file's bytes. */
function registerFileTransfer(app: App, deps: AppDeps): void {
  const token = z.object({
    token: z
      .string()
      .min(1)
      .max(4096)
      .openapi({ param: { name: "token", in: "query" }, description: "The signed token of the URL" }),
  });
  const binary = Object.fromEntries(ALLOWED_FILE_TYPES.map((t) => [t, { schema: z.string().openapi({ format: "binary" }) }]));
  addRoute(
    app,
    {
      access: access.anonymous,
      method: "put",
      path: UPLOAD_PATH,
      tags: ["Files"],
      operationId: "Files_upload",
      summary: "Upload a file to the local store with a URL from FileUploadUrl (the signed token authorises it)",
      request: { query: token, body: { required: true, content: binary } },
      responses: {
        201: { description: "Stored", content: { "application/json": { schema: S.Uploaded } } },
        400: errors[400],
        403: errorResponse("The link is not valid or has expired"),
        404: errorResponse("Files are stored in S3 on this server"),
        409: errorResponse("A file was already uploaded with this link"),
        413: tooLarge,
        507: errorResponse("No space left to store the file: nothing was stored; try again later"),
      },
    },
    async (c) => {
      const { token: t } = c.req.valid("query");
      const out = await svc.upload(storage(deps), t, c.req.header("content-type"), c.req.header("content-length"), c.req.raw.body);
      return c.json(out, 201);
    },
  );

  addRoute(
    app,
    {
      access: access.anonymous,
      method: "get",
      path: DOWNLOAD_PATH,
      tags: ["Files"],
      operationId: "Files_download",
      summary: "Download a file from the local store with a URL from ProjectFileUrls (the signed token authorises it)",
      request: { query: token },
      responses: {
        200: { description: "The file", content: Object.fromEntries(ALLOWED_FILE_TYPES.map((t) => [t, { schema: z.string().openapi({ format: "binary" }) }])) },
        400: errors[400],
        403: errorResponse("The link is not valid or has expired"),
        404: errors[404],
      },
    },
    async (c) => {
      const { token: t } = c.req.valid("query");
      return fileAnswer(await svc.download(storage(deps), t));
    },
  );
}
