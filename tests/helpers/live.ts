// The real server as a subprocess (bun run api/src/server.ts) on a test database, and a websocket
// client of it that can wait for a message: for tests that need what only the running server
// has (the websocket upgrade, the hub, NOTIFY fan-out between processes).
import { expect } from "bun:test";
import { resolve } from "node:path";
import { freePort, PORT_IN_USE } from "./port.ts";

const ROOT = resolve(import.meta.dir, "../..");

/** The /metrics token of the server processes tests start (the server serves /metrics only with one). */
export const LIVE_METRICS_TOKEN = "live-test-metrics-token";

/** A server process's /metrics text, read with its token. */
export async function liveMetrics(base: string): Promise<string> {
  const r = await fetch(`${base}/metrics`, { headers: { authorization: `Bearer ${LIVE_METRICS_TOKEN}` } });
  if (r.status !== 200) throw new Error(`/metrics answered ${r.status}`);
  return r.text();
}

export interface ServerProcess {
  proc: ReturnType<typeof Bun.spawn>;
  base: string;
  stop(): Promise<void>;
}

/**
 * The server on a free port (`pick` chooses candidates: tests/helpers/port.ts). A port taken
 * between the pick and the server's listen (the server boots for about a second first) is tried
 * again on another, three times at most; a PORT given in `env` is used as it is.
 */
export async function startServerProcess(databaseUrl: string, env: Record<string, string> = {}, pick?: () => number): Promise<ServerProcess> {
  for (let attempt = 1; ; attempt++) {
    const port = env.PORT ? Number(env.PORT) : freePort(pick);
    try {
      return await startOn(port, databaseUrl, env);
    } catch (e) {
      if (env.PORT || attempt === 3 || !PORT_IN_USE.test(String(e))) throw e;
    }
  }
}

async function startOn(port: number, databaseUrl: string, env: Record<string, string>): Promise<ServerProcess> {
  const proc = Bun.spawn(["bun", "--max-http-header-size=262144", "run", "api/src/server.ts"], {
    cwd: ROOT,
    env: { ...process.env, DATABASE_URL: databaseUrl, PORT: String(port), HOST: "127.0.0.1", PUBLIC_URL: `http://127.0.0.1:${port}`, LOG_REQUESTS: "0", METRICS_TOKEN: LIVE_METRICS_TOKEN, ...env },
    stdout: "pipe",
    stderr: "pipe",
  });
  const base = `http://127.0.0.1:${port}`;
  const until = Date.now() + 60_000;
  for (;;) {
    // The process first: a server that could not listen has exited, and whatever answers on its
    // port then is not it.
    if (Date.now() > until || proc.exitCode !== null) {
      proc.kill();
      throw new Error(`server did not start: ${await new Response(proc.stderr as ReadableStream).text()}`);
    }
    try {
      // /healthz (no database call): /openapi.json would first build the OpenAPI document, 1.5 to
      // 2.5 s of a start on this machine that most tests never ask for.
      if ((await fetch(`${base}/healthz`)).ok) break;
    } catch {
      /* not up yet */
    }
    await Bun.sleep(200);
  }
  return { proc, base, stop: () => stopProcess(proc) };
}

async function stopProcess(proc: ReturnType<typeof Bun.spawn>): Promise<void> {
  if (proc.exitCode !== null || proc.signalCode !== null) return;
  proc.kill("SIGTERM");
  await proc.exited;
}

export interface WorkerProcess {
  proc: ReturnType<typeof Bun.spawn>;
  /** Everything the worker printed so far. */
  output(): string;
  stop(): Promise<void>;
}

/** `bun run worker` on a test database; resolves once it says it runs the queue. */
export async function startWorkerProcess(databaseUrl: string, env: Record<string, string> = {}): Promise<WorkerProcess> {
  const proc = Bun.spawn(["bun", "run", "api/src/worker.ts"], {
    cwd: ROOT,
    env: { ...process.env, DATABASE_URL: databaseUrl, ...env },
    stdout: "pipe",
    stderr: "pipe",
  });
  let out = "";
  const collect = async (stream: ReadableStream<Uint8Array>) => {
    const reader = stream.getReader();
    const decoder = new TextDecoder();
    for (;;) {
      const { done, value } = await reader.read();
      if (done) return;
      out += decoder.decode(value);
    }
  };
  void collect(proc.stdout);
  void collect(proc.stderr);
  const until = Date.now() + 60_000;
  while (!out.includes("running the job queue")) {
    if (Date.now() > until || proc.exitCode !== null) throw new Error(`worker did not start: ${out}`);
    await Bun.sleep(100);
  }
  return { proc, output: () => out, stop: () => stopProcess(proc) };
}

export type Message = Record<string, unknown>;

export interface LiveSocket {
  ws: WebSocket;
  messages: Message[];
  /** The first message (already received or still to come) that matches. */
  next(pred: (m: Message) => boolean, ms?: number): Promise<Message>;
  send(m: object): void;
}

/** Opens the websocket Users/WebsocketConnection points to, as the signed-in user. */
export async function openSocket(base: string, token: string): Promise<LiveSocket> {
  const info = await fetch(`${base}/api/v1/Users/WebsocketConnection`, { headers: { authorization: `Bearer ${token}` } });
  expect(info.status).toBe(200);
  const { value } = (await info.json()) as { value: string };
  const ws = new WebSocket(value);
  const messages: Message[] = [];
  const waiters: { pred: (m: Message) => boolean; resolve: (m: Message) => void }[] = [];
  ws.onmessage = (e) => {
    const m = JSON.parse(String(e.data)) as Message;
    messages.push(m);
    for (const w of [...waiters]) {
      if (w.pred(m)) {
        waiters.splice(waiters.indexOf(w), 1);
        w.resolve(m);
      }
    }
  };
  await new Promise<void>((res, rej) => {
    ws.onopen = () => res();
    ws.onerror = () => rej(new Error("ws error"));
  });
  return {
    ws,
    messages,
    send: (m) => ws.send(JSON.stringify(m)),
    next: (pred, ms = 8000) =>
      new Promise((res, rej) => {
        const hit = messages.find(pred);
        if (hit) return res(hit);
        const t = setTimeout(() => rej(new Error(`no matching message in ${ms} ms; got ${JSON.stringify(messages)}`)), ms);
        waiters.push({
          pred,
          resolve: (m) => {
            clearTimeout(t);
            res(m);
          },
        });
      }),
  };
}

export type LiveResult = { status: number; headers: Headers; body: any };

/** One JSON call to a server process (a token, a clientId header when given, a JSON body). */
export async function liveCall(base: string, token: string | null, clientId: number | null, method: string, path: string, body?: unknown, opts: { timeoutMs?: number } = {}): Promise<LiveResult> {
  const headers: Record<string, string> = {};
  if (token) headers.authorization = `Bearer ${token}`;
  if (clientId !== null) headers.clientId = String(clientId);
  if (body !== undefined) headers["content-type"] = "application/json";
  const signal = opts.timeoutMs ? AbortSignal.timeout(opts.timeoutMs) : undefined;
  const res = await fetch(`${base}${path}`, { method, headers, body: body === undefined ? undefined : JSON.stringify(body), signal });
  const text = await res.text();
  let parsed: unknown = text;
  try {
    parsed = text ? JSON.parse(text) : null;
  } catch {
    /* not JSON: kept as text */
  }
  return { status: res.status, headers: res.headers, body: parsed };
}

/** Signs a fixture user in (tests/helpers/fixtures.sql: every login's password is Password123!). */
export async function liveSignIn(base: string, email: string): Promise<string> {
  const r = await liveCall(base, null, null, "POST", "/auth/Login/PasswordLogin", { email, password: "Password123!" });
  expect(r.status, `sign-in of ${email}`).toBe(200);
  return r.body.accessToken as string;
}

/** Creates a two-concept idea screen for the client and submits it: the team's Admins are notified (SurveySubmittedForApproval). */
export async function submitNewProject(base: string, token: string, clientId: number, name: string): Promise<number> {
  const p = await liveCall(base, token, clientId, "POST", "/api/v1/Projects", { projectName: name, projectTypeId: 1, frameworkId: 1000, regionIds: [1] });
  expect(p.status, JSON.stringify(p.body)).toBe(201);
  const id = p.body.id as number;
  for (const conceptText of ["A", "B"]) expect((await liveCall(base, token, clientId, "POST", "/api/v1/TestOptions", { projectId: id, conceptText })).status).toBe(201);
  const submitted = await liveCall(base, token, clientId, "POST", `/api/v1/Projects(${id})/Submit`);
  expect(submitted.body.statusCode, JSON.stringify(submitted.body)).toBe(50);
  return id;
}
