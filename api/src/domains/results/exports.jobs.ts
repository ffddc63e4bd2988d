// Data exports queued beyond the bound on synchronous exports (issue 38, record 0134): the
// exports.data job builds the very file ExportCsv or ExportExcel answers in the request (the same
// service functions, for the same user and client), keeps it in export_files for a week and
// answers where to download it, as the PowerPoint job does (Progress, then Success with
// { exportId, fileName, sizeBytes, download } on job-{id}).
import { z } from "@hono/zod-openapi";
import type { Db, Tx } from "../../db/client.ts";
import { enterTenant } from "../../access/policy.ts";
import type { RequestCtx } from "../../access/principal.ts";
import { ApiError } from "../../errors.ts";
import { CLIENT_GONE, tenantKey } from "../../db/gate.ts";
import { JOB_STATEMENT_TIMEOUT_MS, QUEUED_EXPORTS_PER_USER } from "../../config.ts";
import { defineJob, enqueueJob, type JobContext } from "../../jobs/workers.ts";
import { pendingJobsOf, type Queue } from "../../jobs/queue.ts";
import type { ExcelInput } from "./exports.service.ts";
import { buildDataExport, type DataExportRequest } from "./export-workers.ts";
import { exportTurns } from "./export-bound.ts";

export const CSV_TYPE = "text/csv; charset=utf-8";
export const XLSX_TYPE = "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet";

/** A queued export's answer (202), the same for the decks and the data files: the job to follow. */
export const ExportStarted = z.object({ jobId: z.string().describe("Follow it on the websocket channel job-{jobId}; its Success carries the download path") }).openapi("ExportStarted");

/** Who asked, as the request named it: the job reads as that user, in that client (and scope). */
interface Requester {
  userId: number;
  isStaff: boolean;
  /** The client the request named (clientId header), or null. */
  clientId: number | null;
  descendants: boolean;
  /** The project's own client: the file is kept under it. */
  ownerClientId: number;
}
export type DataExportInput = Requester & ({ kind: "ProjectCsv"; csv: { projectId: number; filters: ExcelInput["filters"] } } | { kind: "ProjectExcel"; excel: ExcelInput });
/** What a queued export asks for (the requester is the request's). */
export type { DataExportRequest };

/** The export's call: its download is GET of the same call with the export's id. */
const CALL = { ProjectCsv: "ExportCsv", ProjectExcel: "ExportExcel" } as const;
const projectOf = (i: DataExportRequest) => (i.kind === "ProjectCsv" ? i.csv.projectId : i.excel.projectId);

const ctxOf = (i: Requester): RequestCtx => ({
  principal: { userId: i.userId, isStaff: i.isStaff, isSuperAdmin: false },
  clientId: i.clientId,
  descendants: i.descendants,
  sessionId: null,
  limits: { statementTimeoutMs: JOB_STATEMENT_TIMEOUT_MS },
});

async function store(tx: Tx, i: DataExportInput, jobId: string, f: { fileName: string; body: Uint8Array }, contentType: string): Promise<string> {
  const [r] = await tx<{ id: string }[]>`
    insert into export_files (client_id, project_id, created_by_user_id, kind, job_id, file_name, content_type, size_bytes, body)
    values (${i.ownerClientId}, ${projectOf(i)}, ${i.userId}, ${i.kind}, ${jobId}, ${f.fileName}, ${contentType}, ${f.body.byteLength}, ${f.body})
    on conflict (job_id) where job_id is not null do update set body = excluded.body, size_bytes = excluded.size_bytes
    returning id::text`;
  return r!.id;
}

/** The job: the file the synchronous call answers, kept once per job (a retry replaces its own file). */
export const dataExportJob = defineJob<DataExportInput>(
  "exports.data",
  async (job: JobContext<DataExportInput>) => {
    const i = job.data;
    const ctx = ctxOf(i);
    // Built in the tenant's turn, shared with the synchronous exports of this process (export-bound.ts).
    const turn = await exportTurns.take(tenantKey(i.clientId, i.userId), job.signal);
    let f: { fileName: string; body: Uint8Array; contentType: string };
    try {
      await job.progress(10, i.kind === "ProjectCsv" ? "reading the respondents" : "reading the results");
      // By the process's export workers when it has them (export-workers.ts), else in this thread.
      const req: DataExportRequest = i.kind === "ProjectCsv" ? { kind: i.kind, csv: i.csv } : { kind: i.kind, excel: i.excel };
      f = { ...(await buildDataExport(job.db, ctx, req, job.signal)), contentType: i.kind === "ProjectCsv" ? CSV_TYPE : XLSX_TYPE };
    } finally {
      turn();
    }
    const body = f.body;
    await job.progress(90, "keeping the file");
    const staff: RequestCtx = { principal: { userId: i.userId, isStaff: true, isSuperAdmin: false }, clientId: null, descendants: false, sessionId: null };
    const id = await enterTenant(job.db, staff, (tx) => store(tx, i, job.jobId, { fileName: f.fileName, body }, f.contentType));
    return { exportId: id, fileName: f.fileName, sizeBytes: body.byteLength, download: `/api/v1/Projects(${projectOf(i)})/${CALL[i.kind]}/${id}` };
  },
  // One at a time per process: the queued exports are the ones beyond the bound, and run after one
  // another, each as soon as the one before ends (not a poll later).
  { retryLimit: 2, retryDelay: 5, expireInSeconds: 600, drainBacklog: true },
);

/** Seconds a user whose queue stayed full is told to wait (about one export's time). */
export const QUEUE_FULL_RETRY_AFTER_SECONDS = 10;
/** How often a request waiting for a place in its user's queue looks again (one cheap count each time). */
const QUEUE_RECHECK_MS = 500;

/** Waits `ms`, or fails at once when the client goes away (db/gate.ts's code: nothing is answered). */
const pause = (ms: number, signal?: AbortSignal) =>
  new Promise<void>((resolve, reject) => {
    const gone = () => {
      clearTimeout(t);
      reject(Object.assign(new Error("the client went away"), { code: CLIENT_GONE }));
    };
    const t = setTimeout(() => {
      signal?.removeEventListener("abort", gone);
      resolve();
    }, ms);
    if (signal?.aborted) gone();
    else signal?.addEventListener("abort", gone, { once: true });
  });

/**
 * Queues an export in a short transaction of the cheap lane (the request is weighed costly by its
 * route, but queueing reads one row): the project (404 when the caller cannot see it) and, for a
 * workbook, its saved segment are checked first, so a queued export fails where a synchronous one
 * would. A user with QUEUED_EXPORTS_PER_USER exports queued and not done waits for a place, as the
 * gate's waiters do, holding no connection between looks, for at most `waitMs`; then 429 with
 * Retry-After, nothing queued. Returns the job's id.
 */
export async function queueDataExport(db: Db, queue: Queue, ctx: RequestCtx, req: DataExportRequest, waitMs: number): Promise<string> {
  const projectId = projectOf(req);
  const cheap: RequestCtx = { ...ctx, limits: ctx.limits ? { ...ctx.limits, costly: false, slot: undefined } : undefined };
  const deadline = performance.now() + waitMs;
  for (;;) {
    const jobId = await enterTenant(db, cheap, async (tx) => {
      const [p] = await tx<{ clientId: number }[]>`select client_id as "clientId" from projects where id = ${projectId} and deleted_at is null`;
      if (!p) throw new ApiError("NotFound", `No project ${projectId}`);
      const segmentId = req.kind === "ProjectExcel" ? (req.excel.segmentId ?? null) : null;
      if (segmentId !== null) {
        const [s] = await tx`select 1 from segments where id = ${segmentId} and project_id = ${projectId}`;
        if (!s) throw new ApiError("NotFound", `No segment ${segmentId} in project ${projectId}`);
      }
      if ((await pendingJobsOf(tx, dataExportJob.name, ctx.principal.userId)) >= QUEUED_EXPORTS_PER_USER) return null;
      const requester: Requester = { userId: ctx.principal.userId, isStaff: ctx.principal.isStaff, clientId: ctx.clientId, descendants: ctx.descendants, ownerClientId: p.clientId };
      return enqueueJob(queue, tx, dataExportJob, { ...requester, ...req }, { userId: ctx.principal.userId, clientId: p.clientId });
    });
    if (jobId) return jobId;
    const left = deadline - performance.now();
    if (left <= 0) {
      throw new ApiError("TooManyRequests", `This account already has ${QUEUED_EXPORTS_PER_USER} exports queued; retry when one of them is done`, undefined, undefined, QUEUE_FULL_RETRY_AFTER_SECONDS);
    }
    await pause(Math.min(QUEUE_RECHECK_MS, left), ctx.limits?.signal);
  }
}

/**
 * A queued data export's file, for its client's members (RLS keeps other clients' out), by the
 * export's id or by its job's id (a client that learned only the job's id, or missed its Success,
 * asks with that; NotFound until the job has kept the file).
 */
export async function downloadDataExport(db: Db, ctx: RequestCtx, id: string, projectId: number, kind: DataExportRequest["kind"]) {
  if (!/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i.test(id)) throw new ApiError("NotFound", "No such export");
  return enterTenant(db, ctx, async (tx) => {
    const [f] = await tx<{ fileName: string; contentType: string; body: Uint8Array<ArrayBuffer> }[]>`
      select file_name as "fileName", content_type as "contentType", body from export_files
      where (id = ${id}::uuid or job_id = ${id.toLowerCase()}) and expires_at > now() and project_id = ${projectId} and kind = ${kind}`;
    if (!f) throw new ApiError("NotFound", "No such export: a queued export can be downloaded once its job has succeeded, for 7 days");
    return f;
  });
}
