// An export worker thread (export-workers.ts, record 0137): builds ExportCsv and ExportExcel files
// with the same service functions as the API's thread, reading with connections of its own (the
// database, and the replica while it keeps up, as the export routes read), and posts the bytes
// back. One export at a time; a cancel message aborts its statements, as a client going away does
// in the request.
import { parentPort, workerData } from "node:worker_threads";
import { connect } from "../../db/client.ts";
import { routedDb, startReplicaRouter } from "../../db/replica.ts";
import type { RequestCtx } from "../../access/principal.ts";
import { configureResultsCache } from "./columnar.ts";
import { buildHere, toWire, type ExportWorkerInit, type FromWorker, type ToWorker } from "./export-workers.ts";

const init = workerData as ExportWorkerInit;
const port = parentPort!;
configureResultsCache(init.resultsCacheBytes);
const max = init.db.connections ?? 2;
// Named apart in pg_stat_activity: an operator (and the browser test) tells the workers' reads from the requests'.
const applicationName = "ideally export worker";
const primary = connect(init.db.url, { max, pooled: init.db.pooled, applicationName });
const db = init.db.replicaUrl ? routedDb(startReplicaRouter(primary, connect(init.db.replicaUrl, { max, applicationName }))) : primary;
const running = new Map<number, AbortController>();

port.on("message", async (m: ToWorker) => {
  if (m.type === "cancel") {
    running.get(m.id)?.abort();
    return;
  }
  const stop = new AbortController();
  running.set(m.id, stop);
  const ctx: RequestCtx = {
    principal: m.ctx.principal,
    clientId: m.ctx.clientId,
    descendants: m.ctx.descendants,
    sessionId: m.ctx.sessionId,
    access: m.ctx.access,
    limits: { statementTimeoutMs: m.ctx.statementTimeoutMs, signal: stop.signal },
  };
  let answer: FromWorker;
  try {
    const f = await buildHere(db, ctx, m.req);
    answer = { id: m.id, ok: true, fileName: f.fileName, body: f.body, threadId: f.threadId };
  } catch (e) {
    answer = { id: m.id, ok: false, error: toWire(e) };
  } finally {
    running.delete(m.id);
  }
  // The file's bytes move to the main thread, not copied.
  port.postMessage(answer, answer.ok ? [answer.body.buffer] : []);
});
