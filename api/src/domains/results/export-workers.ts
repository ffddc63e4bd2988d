// Data exports built off the API's JavaScript thread (issue 38, record 0137): ExportCsv and
// ExportExcel, in the request and as queued jobs, are built in a small pool of worker threads
// (export-worker.ts) that read the project with connections of their own and answer the file's
// bytes. The main thread keeps only the admission (the bound, the tenant's turn: export-bound.ts)
// and the answer. Without a pool (EXPORT_WORKERS=0, the tests that do not start one) the same
// service functions run in the calling thread, as before.
import { threadId, Worker } from "node:worker_threads";
import type { Db } from "../../db/client.ts";
import type { RequestCtx } from "../../access/principal.ts";
import type { Access } from "../../access/policy.ts";
import { CLIENT_GONE, tenantKey } from "../../db/gate.ts";
import { defaultExportWorkers } from "../../config.ts";
import { ApiError, ERROR_CODES, type ErrorCode, type FieldError } from "../../errors.ts";
import { exportCsv, exportExcel, type ExcelInput } from "./exports.service.ts";

/** What a data export builds: the CSV or the workbook, with the request's parameters. */
export type DataExportRequest = { kind: "ProjectCsv"; csv: { projectId: number; filters: ExcelInput["filters"] } } | { kind: "ProjectExcel"; excel: ExcelInput };

/** A built export: its file name and bytes (a CSV as UTF-8, or the workbook), and the thread that built it. */
export interface BuiltExport {
  fileName: string;
  body: Uint8Array<ArrayBuffer>;
  /** node:worker_threads' threadId of the thread that built it (0: the main thread). */
  threadId: number;
}

/** Where a worker reads: the database (or its pooler), and the replica the read-heavy calls use. */
export interface ExportWorkerDb {
  url: string;
  /** url is a pooler in transaction mode: no prepared statements (db/client.ts). */
  pooled?: boolean;
  replicaUrl?: string;
  /** Connections each worker opens (to the database and to the replica, each): default 2. */
  connections?: number;
}

/** The worker's start-up data (workerData). */
export interface ExportWorkerInit {
  db: ExportWorkerDb;
  /** The worker's own results cache (columnar.ts), in bytes; 0: none. */
  resultsCacheBytes: number;
}

/** The caller as a worker gets it: who, in which client and scope, for which operation, under which timeout. */
export interface WireCtx {
  principal: RequestCtx["principal"];
  clientId: number | null;
  descendants: boolean;
  sessionId: string | null;
  access?: Access;
  statementTimeoutMs?: number;
}

export type ToWorker = { type: "build"; id: number; ctx: WireCtx; req: DataExportRequest } | { type: "cancel"; id: number };

/** An error as it crosses to the main thread: an ApiError whole, anything else by name, message and code (app.ts maps database codes). */
export type WireError = { api: true; code: ErrorCode; message: string; detail?: string; errors?: FieldError[]; retryAfter?: number } | { api: false; name: string; message: string; code?: string };

export type FromWorker = { id: number; ok: true; fileName: string; body: Uint8Array<ArrayBuffer>; threadId: number } | { id: number; ok: false; error: WireError };

export function toWire(e: unknown): WireError {
  if (e instanceof ApiError) return { api: true, code: e.code, message: e.message, detail: e.detail, errors: e.errors, retryAfter: e.retryAfter };
  const err = e instanceof Error ? e : new Error(String(e));
  const code = (err as { code?: unknown }).code;
  return { api: false, name: err.name, message: err.message, code: typeof code === "string" ? code : undefined };
}

export function fromWire(w: WireError): Error {
  if (w.api) return new ApiError(w.code in ERROR_CODES ? w.code : "InternalError", w.message, w.detail, w.errors, w.retryAfter);
  const e = new Error(w.message);
  e.name = w.name;
  return w.code === undefined ? e : Object.assign(e, { code: w.code });
}

export const wireCtx = (ctx: RequestCtx): WireCtx => ({
  principal: { userId: ctx.principal.userId, isStaff: ctx.principal.isStaff, isSuperAdmin: ctx.principal.isSuperAdmin },
  clientId: ctx.clientId,
  descendants: ctx.descendants,
  sessionId: ctx.sessionId ?? null,
  access: ctx.access,
  statementTimeoutMs: ctx.limits?.statementTimeoutMs,
});

const utf8 = new TextEncoder();

/** Builds the export in this thread (the service functions; what a worker runs too). */
export async function buildHere(db: Db, ctx: RequestCtx, req: DataExportRequest): Promise<BuiltExport> {
  if (req.kind === "ProjectCsv") {
    const f = await exportCsv(db, ctx, req.csv.projectId, req.csv.filters);
    return { fileName: f.fileName, body: utf8.encode(f.body), threadId };
  }
  const f = await exportExcel(db, ctx, req.excel);
  return { fileName: f.fileName, body: f.body, threadId };
}

export { defaultExportWorkers };

const clientGone = () => Object.assign(new Error("the client went away"), { code: CLIENT_GONE });

interface Task {
  id: number;
  ctx: WireCtx;
  req: DataExportRequest;
  signal?: AbortSignal;
  resolve: (b: BuiltExport) => void;
  reject: (e: Error) => void;
  /** Set once the task was sent to a worker. */
  worker?: Slot;
  onAbort?: () => void;
}

interface Slot {
  worker: Worker;
  task: Task | null;
}

export interface ExportWorkersOptions {
  /** Worker threads (default defaultExportWorkers()). */
  size?: number;
  db: ExportWorkerDb;
  resultsCacheBytes?: number;
}

/**
 * The pool: `size` worker threads, each building one export at a time; exports beyond wait in the
 * order they came (the tenants' turns already let one export of a tenant build at a time, so a
 * tenant holds at most one worker). A worker that dies fails its export (500) and is replaced.
 */
export class ExportWorkers {
  readonly size: number;
  private readonly slots: Slot[] = [];
  private readonly waiting: Task[] = [];
  private nextId = 1;
  private closed = false;
  /** Exports built, by the thread that built them (a test and the metrics read it). */
  readonly builtBy = new Map<number, number>();

  constructor(private readonly opts: ExportWorkersOptions) {
    this.size = opts.size ?? defaultExportWorkers();
    if (!Number.isInteger(this.size) || this.size < 1) throw new Error(`export workers: size must be a whole number from 1, got ${this.size}`);
    for (let i = 0; i < this.size; i++) this.slots.push(this.spawn());
  }

  private spawn(): Slot {
    const init: ExportWorkerInit = { db: this.opts.db, resultsCacheBytes: this.opts.resultsCacheBytes ?? 0 };
    const worker = new Worker(new URL("./export-worker.ts", import.meta.url), { workerData: init });
    // An idle pool never keeps the process alive.
    worker.unref();
    const slot: Slot = { worker, task: null };
    worker.on("message", (m: FromWorker) => this.answered(slot, m));
    worker.on("error", (e: Error) => this.died(slot, e));
    worker.on("exit", (code: number) => this.died(slot, new Error(`the export worker stopped (exit code ${code})`)));
    return slot;
  }

  /** Exports building now and waiting for a worker. */
  stats(): { building: number; waiting: number; size: number } {
    return { building: this.slots.filter((s) => s.task).length, waiting: this.waiting.length, size: this.size };
  }

  /** Builds the export in a worker: its file, or the error the service threw (an ApiError as it was). */
  build(ctx: RequestCtx, req: DataExportRequest, signal?: AbortSignal): Promise<BuiltExport> {
    if (this.closed) return Promise.reject(new ApiError("ServiceUnavailable", "The service is shutting down"));
    if (signal?.aborted) return Promise.reject(clientGone());
    return new Promise<BuiltExport>((resolve, reject) => {
      const task: Task = { id: this.nextId++, ctx: wireCtx(ctx), req, signal, resolve, reject };
      task.onAbort = () => {
        const i = this.waiting.indexOf(task);
        if (i >= 0) {
          // Not started: it leaves the line.
          this.waiting.splice(i, 1);
          reject(clientGone());
        } else if (task.worker) {
          // Started: the worker cancels its statement; the export ends (its error answered) when the worker says so.
          task.worker.worker.postMessage({ type: "cancel", id: task.id } satisfies ToWorker);
        }
      };
      signal?.addEventListener("abort", task.onAbort, { once: true });
      this.waiting.push(task);
      this.dispatch();
    });
  }

  private dispatch(): void {
    for (const slot of this.slots) {
      if (slot.task) continue;
      const task = this.waiting.shift();
      if (!task) return;
      slot.task = task;
      task.worker = slot;
      slot.worker.postMessage({ type: "build", id: task.id, ctx: task.ctx, req: task.req } satisfies ToWorker);
    }
  }

  private settle(slot: Slot): Task | null {
    const task = slot.task;
    slot.task = null;
    if (task?.onAbort) task.signal?.removeEventListener("abort", task.onAbort);
    return task;
  }

  private answered(slot: Slot, m: FromWorker): void {
    if (slot.task?.id !== m.id) return;
    const task = this.settle(slot)!;
    if (m.ok) {
      this.builtBy.set(m.threadId, (this.builtBy.get(m.threadId) ?? 0) + 1);
      task.resolve({ fileName: m.fileName, body: m.body, threadId: m.threadId });
    } else task.reject(fromWire(m.error));
    this.dispatch();
  }

  private died(slot: Slot, e: Error): void {
    const i = this.slots.indexOf(slot);
    if (i < 0) return;
    const task = this.settle(slot);
    task?.reject(Object.assign(new Error(`the export could not be built: ${e.message}`), { name: "ExportWorkerError" }));
    if (this.closed) {
      this.slots.splice(i, 1);
      return;
    }
    void slot.worker.terminate();
    this.slots[i] = this.spawn();
    this.dispatch();
  }

  /** Stops the workers; exports waiting for one are refused (503). */
  async close(): Promise<void> {
    this.closed = true;
    for (const t of this.waiting.splice(0)) t.reject(new ApiError("ServiceUnavailable", "The service is shutting down"));
    await Promise.all(this.slots.map((s) => s.worker.terminate()));
  }
}

let pool: ExportWorkers | null = null;

/** The process's export workers (server.ts, worker.ts); null: exports build in the calling thread. */
export function useExportWorkers(p: ExportWorkers | null): void {
  pool = p;
}

/**
 * The export's file: built by the process's export workers when it has them, else here. A request's
 * export built by a worker still holds its place in the gate (db/gate.ts: its user's and tenant's
 * share and, weighed costly, the costly lane) while the worker reads, as its own statements would:
 * the tenant's export and its costly reads still take the lane one at a time (record 0124).
 */
export async function buildDataExport(db: Db, ctx: RequestCtx, req: DataExportRequest, signal?: AbortSignal): Promise<BuiltExport> {
  if (!pool) return buildHere(db, ctx, req);
  const l = ctx.limits;
  const userId = ctx.principal.userId;
  const free = l?.gate ? await l.gate.acquire({ userId, tenant: tenantKey(ctx.clientId, userId), costly: l.costly }, l.signal) : () => {};
  try {
    return await pool.build(ctx, req, signal ?? l?.signal);
  } finally {
    free();
  }
}
