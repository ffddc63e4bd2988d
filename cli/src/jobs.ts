// Following a queued job (PowerPoint exports, data exports queued beyond the bound, the command
// runner) on its websocket channel job-{id}: Progress moves a bar, Success answers the job's result,
// Error (with no retry left) fails. A job already started (a 202 learned before the socket was open)
// may have ended before the channel was joined: `ready`, asked once the join is confirmed, tells.
// Each message is parsed with its declaration (contracts/events.ts); one that does not parse is
// left out with a warning line on stderr.
import { parseServerMessage, type ClientMessage } from "@ideally/contracts/events";
import { apiError } from "./errors.ts";
import { warn, type progressBar } from "./output.ts";
import { ok, type Api } from "./session.ts";

export interface JobSuccess {
  jobId: string;
  name?: string;
  result: unknown;
  resultOmitted?: boolean;
}

/**
 * Opens the live connection, starts the job (or takes its id) and waits for its end. `ready`, when
 * given, is asked right after the server confirms the join: true when the job is already done
 * (its Success came before the join and will not come again), which resolves with no result.
 */
export async function followJob(api: Api, start: () => Promise<{ jobId: string }>, bar: ReturnType<typeof progressBar>, timeoutMs: number, ready?: () => Promise<boolean>): Promise<JobSuccess> {
  // The socket is open before the job starts, so joining its channel right after the 202 is one
  // round trip: a queue's poll is slower than that, so the first events are not missed.
  const url = ok(await api.client.GET("/api/v1/Users/WebsocketConnection"), "opening the live connection").value;
  const ws = new WebSocket(url);
  await new Promise<void>((resolve, reject) => {
    ws.onopen = () => resolve();
    ws.onerror = () => reject(apiError(`cannot open the websocket ${url.replace(/\?.*/, "")}`));
  });
  try {
    const { jobId } = await start();
    const channel = `job-${jobId}`;
    return await new Promise<JobSuccess>((resolve, reject) => {
      const timer = setTimeout(() => reject(apiError(`job ${jobId} did not finish in ${timeoutMs / 1000} s`)), timeoutMs);
      ws.onmessage = (m) => {
        const parsed = parseServerMessage(String(m.data));
        if (!parsed.ok) {
          warn(`ignored a live message that does not match its declaration: ${parsed.error}`);
          return;
        }
        const e = parsed.value;
        if (e.event === "error") {
          clearTimeout(timer);
          reject(apiError(`following job ${jobId}: ${e.message}`));
          return;
        }
        if (e.event === "joined" && e.channel === channel && ready) {
          ready().then(
            (done) => {
              if (!done) return;
              clearTimeout(timer);
              resolve({ jobId, result: null });
            },
            (err: unknown) => {
              clearTimeout(timer);
              reject(err);
            },
          );
          return;
        }
        if (!("data" in e) || e.channel !== channel || e.data === null) return;
        if (e.event === "Progress") bar.update(e.data.pct, e.data.message ?? "");
        else if (e.event === "Success") {
          clearTimeout(timer);
          resolve({ jobId, name: e.data.name, result: e.data.result ?? null, ...(e.data.resultOmitted ? { resultOmitted: true } : {}) });
        } else if (e.event === "Error" && !e.data.willRetry) {
          clearTimeout(timer);
          reject(apiError(`job ${jobId} failed: ${e.data.message || "unknown error"}`));
        } else if (e.event === "Error") bar.update(0, `retrying: ${e.data.message}`);
      };
      const join: ClientMessage = { action: "join", channel };
      ws.send(JSON.stringify(join));
    });
  } finally {
    ws.close();
  }
}
