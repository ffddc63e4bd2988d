// What `projects watch` follows: the project's status, each survey run filling towards its quota,
// the respondents per test option, job progress and processing. Websocket events (the client
// channel and the user's) are hints: each one for this project triggers a refetch (debounced 400 ms,
// SPEC 9), and a slow poll covers events missed (NOTIFY has no replay). No view code here: the Ink
// view and the --json lines both subscribe. Messages are parsed with their declarations
// (contracts/events.ts); one that does not parse is left out and said (onRefused).
import { parseServerMessage, type ClientMessage, type LiveEvent } from "@ideally/contracts/events";
import type { Api } from "../../session.ts";
import { ok } from "../../session.ts";

export interface RunState {
  surveyRunId: number;
  regionId: number;
  regionName: string;
  isCustomerPanel: boolean;
  complete: number;
  target: number | null;
  surveyStatusId: number;
  waveNumber: number | null;
  /** When the run closes with the completes it has (null: no field period, e.g. not launched). */
  fieldEndAt: string | null;
  /** Set by the fielding engine when the run had no complete for 24 hours with its quota open. */
  stalledAt: string | null;
}

export interface WatchState {
  projectId: number;
  projectName: string;
  clientId: number;
  statusCode: number;
  runs: RunState[];
  /** Respondents who saw each test option, against the quota they fill (the runs' targets). */
  options: { testOptionId: number | null; conceptText: string; count: number; target: number | null }[];
  /** Job progress by job id (a run's fielding is `survey-run-{id}`). */
  jobs: Record<string, { name: string; pct: number; message: string | null }>;
  phase: "waiting" | "fielding" | "processing" | "ready" | "stopped";
  /** The last events, newest last. */
  recent: string[];
  updatedAt: string;
}

export type { LiveEvent };

/** SPEC 4 statuses: fielding at 400, results from 800; below 300 it waits for approval. */
export function phaseOf(s: Pick<WatchState, "statusCode" | "runs">): WatchState["phase"] {
  if (s.statusCode >= 800) return "ready";
  if (s.statusCode === 0) return "stopped";
  if (s.statusCode < 400) return "waiting";
  // At 400 with every run closed the results are being computed.
  return s.runs.length > 0 && s.runs.every((r) => r.surveyStatusId >= 90) ? "processing" : "fielding";
}

const SURVEY_STATUS: Record<number, string> = { 0: "Draft", 10: "Testing", 50: "Live", 90: "Closed", 130: "Dev", 1000: "ErrorXml", 1010: "ErrorProcessing" };
export const surveyStatusName = (id: number) => SURVEY_STATUS[id] ?? String(id);

export class Watcher {
  state!: WatchState;
  private listeners = new Set<(s: WatchState, e?: LiveEvent) => void>();
  private ws: WebSocket | null = null;
  private timers: ReturnType<typeof setInterval>[] = [];
  private pending: ReturnType<typeof setTimeout> | null = null;
  private runIds = new Set<number>();
  private closed = false;
  private started = 0;
  private applied = 0;
  private regionNames = new Map<number, string>();
  private optionNames = new Map<number, string>();

  constructor(
    private readonly api: Api,
    readonly projectId: number,
    private readonly pollMs = 5000,
  ) {}

  on(f: (s: WatchState, e?: LiveEvent) => void): () => void {
    this.listeners.add(f);
    return () => this.listeners.delete(f);
  }

  /** Tells the listeners (the view, the JSON lines) the current state. */
  emit(e?: LiveEvent) {
    if (this.closed) return;
    for (const f of this.listeners) f(this.state, e);
  }

  async start(): Promise<void> {
    await this.refresh();
    await this.connect();
    this.timers.push(
      setInterval(
        () =>
          void this.refresh().then(
            () => this.emit(),
            (e) => this.fail(e),
          ),
        this.pollMs,
      ),
    );
  }

  stop(): void {
    this.closed = true;
    for (const t of this.timers) clearInterval(t);
    if (this.pending) clearTimeout(this.pending);
    this.ws?.close();
  }

  private refusedListeners = new Set<(error: string) => void>();
  /** Called with the reason when a message from the server does not parse with its declaration. */
  onRefused(f: (error: string) => void): void {
    this.refusedListeners.add(f);
  }

  private failure: ((e: unknown) => void) | null = null;
  onFailure(f: (e: unknown) => void): void {
    this.failure = f;
  }
  private fail(e: unknown) {
    if (!this.closed) this.failure?.(e);
  }

  /** Reads the project, its runs' counts and the respondents per test option. */
  async refresh(): Promise<void> {
    // Refreshes overlap (poll, events): one that started before another's answer must not undo it.
    const n = ++this.started;
    const c = this.api.client;
    const key = String(this.projectId);
    const [p, counts, responses] = await Promise.all([
      c.GET("/api/v1/Projects({key})", { params: { path: { key }, query: { $select: "id,projectName,statusCode,clientId,splitCellQuota" } } }).then((r) => ok(r, `reading project ${key}`)),
      c.GET("/api/v1/Projects({key})/DecipherCompletesCounts", { params: { path: { key } } }).then((r) => ok(r, "reading the survey runs")),
      c.GET("/api/v1/Projects({key})/ResponsesCount", { params: { path: { key } } }).then((r) => ok(r, "reading the responses")),
    ]);
    if (this.regionNames.size === 0 || counts.value.some((r) => !this.regionNames.has(r.regionId))) {
      const regions = ok(await c.GET("/api/v1/Regions", { params: { query: { $select: "id,regionName", $top: 1000 } } }), "reading the regions").value;
      for (const r of regions) this.regionNames.set(r!.id!, r!.regionName!);
    }
    if (responses.value.some((r) => r.testOptionId != null && !this.optionNames.has(r.testOptionId)) || this.optionNames.size === 0) {
      const opts = ok(
        await c.GET("/api/v1/TestOptions", { params: { query: { $filter: `projectId eq ${key}`, $select: "id,conceptText", $orderby: "sortOrder,id" } } }),
        "reading the test options",
      ).value;
      for (const t of opts) this.optionNames.set(t!.id!, t!.conceptText!);
    }
    const runs: RunState[] = counts.value.map((r) => ({
      surveyRunId: r.surveyRunId,
      regionId: r.regionId,
      regionName: this.regionNames.get(r.regionId) ?? `region ${r.regionId}`,
      isCustomerPanel: r.isCustomerPanel,
      complete: r.complete,
      target: r.targetCompletes,
      surveyStatusId: r.surveyStatusId,
      waveNumber: r.waveNumber,
      fieldEndAt: r.fieldEndAt,
      stalledAt: r.stalledAt,
    }));
    for (const r of runs) this.runIds.add(r.surveyRunId);
    const quota = runs.length && runs.every((r) => r.target != null) ? runs.reduce((a, r) => a + (r.target ?? 0), 0) : null;
    const cells = Math.max(1, this.optionNames.size);
    const perOption = quota == null ? null : p.splitCellQuota ? Math.ceil(quota / cells) : quota;
    const seen = new Map(responses.value.map((r) => [r.testOptionId, r.count]));
    const options = this.optionNames.size
      ? [...this.optionNames].map(([id, text]) => ({ testOptionId: id, conceptText: text, count: seen.get(id) ?? 0, target: perOption }))
      : responses.value.map((r) => ({ testOptionId: r.testOptionId, conceptText: "(all respondents)", count: r.count, target: quota }));
    if (n < this.applied) return;
    this.applied = n;
    const prev = this.state;
    this.state = {
      projectId: this.projectId,
      projectName: p.projectName!,
      clientId: p.clientId!,
      statusCode: p.statusCode!,
      runs,
      options,
      jobs: prev?.jobs ?? {},
      phase: "waiting",
      recent: prev?.recent ?? [],
      updatedAt: new Date().toISOString(),
    };
    this.state.phase = phaseOf(this.state);
  }

  /** Joins the client channel (and the user's, where ProjectReady arrives) over the websocket. */
  private async connect(): Promise<void> {
    const c = this.api.client;
    const url = ok(await c.GET("/api/v1/Users/WebsocketConnection"), "opening the live connection").value;
    const channel = ok(await c.GET("/api/v1/Clients({key})/GetChannelInfo", { params: { path: { key: String(this.state.clientId) } } }), "joining the team's channel");
    const ws = new WebSocket(url);
    this.ws = ws;
    await new Promise<void>((resolve, reject) => {
      ws.onopen = () => resolve();
      ws.onerror = () => reject(new Error(`cannot open the websocket ${url.replace(/\?.*/, "")}`));
    });
    ws.onmessage = (m) => this.message(String(m.data));
    ws.onclose = () => {
      // Keep polling; the view says the live link is gone.
      if (!this.closed) this.note("live connection closed; polling every few seconds");
    };
    const send = (m: ClientMessage) => ws.send(JSON.stringify(m));
    send({ action: "join", channel: channel.name, token: channel.token });
    send({ action: "join", channel: `user-${this.api.session.userId}` });
    // SPEC 9: ping every 30 s while open.
    this.timers.push(setInterval(() => ws.readyState === WebSocket.OPEN && send({ action: "ping" }), 30_000));
  }

  private note(text: string) {
    this.state.recent = [...this.state.recent, `${new Date().toISOString().slice(11, 19)} ${text}`].slice(-5);
  }

  /** Whether an event is about this project (or one of its runs' jobs). */
  concerns(e: LiveEvent): boolean {
    if (e.data === null || e.event.startsWith("client:")) return false;
    if (hasField(e.data, "projectId") && e.data.projectId === this.projectId) return true;
    const run = surveyRunOf(e);
    return run !== null && this.runIds.has(run);
  }

  /** One message from the server: an event of this project is handled; one that does not parse is said and left out. */
  message(text: string) {
    const parsed = parseServerMessage(text);
    if (!parsed.ok) {
      this.note(`ignored a live message: ${parsed.error}`);
      for (const f of this.refusedListeners) f(parsed.error);
      return;
    }
    const e = parsed.value;
    if (!("data" in e)) return; // control answers (joined, pong)
    if (!this.concerns(e)) {
      // A new run's first Progress may name a run not read yet: read the runs, then decide.
      const run = surveyRunOf(e);
      if (run !== null && !this.runIds.has(run))
        void this.refresh().then(
          () => this.concerns(e) && this.handle(e),
          (err) => this.fail(err),
        );
      return;
    }
    this.handle(e);
  }

  private handle(e: LiveEvent) {
    if (e.event === "Progress" && e.data !== null) {
      const { jobId, name, pct, message } = e.data;
      this.state.jobs = { ...this.state.jobs, [jobId]: { name, pct, message: message ?? null } };
    }
    // A status travels in ProjectUpdated and in the watchers' notifications (ProjectReady...).
    const statusCode = numberField(e.data, "statusCode");
    if (statusCode !== undefined) {
      this.state.statusCode = statusCode;
      this.state.phase = phaseOf(this.state);
    }
    const action = stringField(e.data, "action");
    const message = stringField(e.data, "message");
    this.note(`${e.event}${action ? ` ${action}` : ""}${statusCode !== undefined ? ` -> ${statusCode}` : ""}${message ? `: ${message}` : ""}`);
    this.emit(e);
    this.schedule();
  }

  private schedule() {
    if (this.pending || this.closed) return;
    this.pending = setTimeout(() => {
      this.pending = null;
      this.refresh().then(
        () => this.emit(),
        (e) => this.fail(e),
      );
    }, 400);
  }
}

const hasField = <K extends string>(data: unknown, key: K): data is Record<K, unknown> => typeof data === "object" && data !== null && key in data;
/** A field an event's data may carry (declared on some events, a notification's own detail on others). */
const numberField = (data: unknown, key: string) => (hasField(data, key) && typeof data[key] === "number" ? data[key] : undefined);
const stringField = (data: unknown, key: string) => (hasField(data, key) && typeof data[key] === "string" ? data[key] : undefined);

/** The survey run whose fielding a Progress on the client channel reports (jobId `survey-run-{id}`), else null. */
function surveyRunOf(e: LiveEvent): number | null {
  if (e.event !== "Progress" || e.data === null) return null;
  const run = /^survey-run-(\d+)$/.exec(e.data.jobId);
  return run ? Number(run[1]) : null;
}
