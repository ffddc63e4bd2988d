// Benchmark: the results chat in headless Chromium, with the built-in (local) AI provider. From the
// click on "Ask" to the answer drawn on the page:
//   - first text: the streamed answer's first words in the streaming bubble (or the stored answer,
//     when it is drawn before any piece of the stream);
//   - answer: the stored answer drawn as an assistant message (with its citations and feedback).
// Several questions in one thread and a new thread each round (the new thread's question is asked
// while the page moves to the thread's URL, the path where early events could be lost).
// Prints the median and p95 of each; exits non-zero when the answer's median is over 2 s (issue 26).
//
//   bun run bench:chat-web
//
// By default it starts its own server (PORT, default 4180) on a database of its own
// (BENCH_CHAT_DB, default ideally_bench_chat: created, migrated and seeded with the demo data by
// the server's first start) and signs in as the demo's user@acme.test. BASE_URL points it at a
// running server instead (EMAIL, PASSWORD, CLIENT_ID, PROJECT_ID). RUNS (default 12) questions.
import { existsSync } from "node:fs";
import { resolve } from "node:path";
import { cpus, loadavg } from "node:os";
import { chromium, type Page } from "@playwright/test";
import { connect } from "../../api/src/db/client.ts";
import { WEB_DIST } from "../../api/src/web/static.ts";

const RUNS = Number(process.env.RUNS ?? 12);
const GOAL_MS = 2000;
const ROOT = resolve(import.meta.dir, "../..");
const log = (m: string) => console.log(m);

interface Target {
  base: string;
  email: string;
  password: string;
  clientId: number;
  projectId: number;
  stop: () => Promise<void>;
}

async function ownServer(): Promise<Target> {
  const name = process.env.BENCH_CHAT_DB ?? "ideally_bench_chat";
  const admin = process.env.BENCH_ADMIN_URL ?? "postgres://postgres@127.0.0.1:5432/postgres";
  const a = connect(admin, { max: 1 });
  const [has] = await a<{ n: number }[]>`select count(*)::int as n from pg_database where datname = ${name}`;
  if (!has!.n) await a.unsafe(`create database "${name}"`);
  await a.end();
  const url = admin.replace(/\/[^/]*$/, `/${name}`);
  if (!existsSync(resolve(WEB_DIST, "index.html"))) {
    log("building the web app (dist/web is missing)");
    const b = Bun.spawnSync(["bun", "run", "build"], { cwd: ROOT, stdout: "inherit", stderr: "inherit" });
    if (b.exitCode !== 0) throw new Error("bun run build failed");
  }
  const port = Number(process.env.PORT ?? 4180);
  const server = Bun.spawn(["bun", "--max-http-header-size=262144", "run", "api/src/server.ts"], {
    cwd: ROOT,
    env: { ...process.env, DATABASE_URL: url, PORT: String(port), HOST: "127.0.0.1", DATA_DIR: ".data/bench-chat", LOG_REQUESTS: "0", PUBLIC_URL: `http://127.0.0.1:${port}` },
    stdout: "ignore",
    stderr: "inherit",
  });
  const base = `http://127.0.0.1:${port}`;
  for (let t = 0; ; t++) {
    if (server.exitCode !== null) throw new Error(`the server exited with ${server.exitCode}`);
    if (
      await fetch(`${base}/readyz`).then(
        (r) => r.ok,
        () => false,
      )
    )
      break;
    if (t > 1200) throw new Error("the server did not answer /readyz within 120 s");
    await Bun.sleep(100);
  }
  const db = connect(url, { max: 1 });
  const [team] = await db<{ id: number }[]>`select id from clients where name = 'Acme Team A'`;
  await db.end();
  if (!team) throw new Error(`no demo client 'Acme Team A' in ${name}`);
  return {
    base,
    clientId: team.id,
    email: "user@acme.test",
    password: "ideally-demo", // the demo logins' password (README)
    projectId: 1,
    stop: async () => {
      server.kill();
      await server.exited;
    },
  };
}

const target: Target = process.env.BASE_URL
  ? {
      base: process.env.BASE_URL,
      email: process.env.EMAIL ?? "user@acme.test",
      password: process.env.PASSWORD ?? "ideally-demo",
      clientId: Number(process.env.CLIENT_ID ?? 3),
      projectId: Number(process.env.PROJECT_ID ?? 1),
      stop: async () => {},
    }
  : await ownServer();

const QUESTIONS = [
  "Which test option did best on purchase intent?",
  "Which concept did best with women?",
  "What do people like about the best concept?",
  "How did the concepts compare on likability?",
  "What did people dislike?",
  "Which option did best with people under 35?",
];

const browser = await chromium.launch({
  executablePath: process.env.CHROMIUM_PATH ?? "/usr/bin/chromium",
  args: ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run", "--disable-background-networking", "--disable-component-update", "--disable-sync"],
});
const pct = (xs: number[], q: number) => [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor(q * xs.length))]!;
let failed = false;
try {
  const page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
  await page.goto(`${target.base}/auth/login`);
  await page.getByLabel("Work email").fill(target.email);
  await page.getByRole("button", { name: "Continue" }).click();
  await page.getByLabel("Password", { exact: true }).fill(target.password);
  await page.getByRole("button", { name: "Sign in" }).click();
  await page.waitForURL((u) => !u.pathname.startsWith("/auth"), { timeout: 20_000 });
  const clientId = target.clientId;
  const chat = `${target.base}/${clientId}/results/${target.projectId}/chat`;

  /** Asks and returns [ms to the first text drawn, ms to the stored answer drawn]. */
  async function ask(p: Page, q: string): Promise<[number, number]> {
    const answers = p.locator("[data-role=assistant]");
    const before = await answers.count();
    await p.getByLabel("Your question").fill(q);
    const t0 = performance.now();
    await p.getByRole("button", { name: "Ask" }).click();
    let first = 0;
    const streamed = p
      .locator("[data-role=streaming] p", { hasNotText: "Thinking…" })
      .first()
      .waitFor({ timeout: 30_000 })
      .then(
        () => (first ||= performance.now() - t0),
        () => {},
      );
    await answers.nth(before).waitFor({ timeout: 30_000 });
    const done = performance.now() - t0;
    first ||= done;
    void streamed;
    return [first, done];
  }

  // Warm-up: the first question loads the results copy of the project on the server.
  await page.goto(chat);
  await ask(page, "Which test option did best?");
  const firstText: number[] = [];
  const answered: number[] = [];
  const newThread: number[] = [];
  for (let i = 0; i < RUNS; i++) {
    if (i % 3 === 0) {
      await page.goto(chat); // a new chat: the thread is created, then the page moves to its URL
      const [, d] = await ask(page, QUESTIONS[i % QUESTIONS.length]!);
      newThread.push(d);
      answered.push(d);
      continue;
    }
    const [f, d] = await ask(page, QUESTIONS[i % QUESTIONS.length]!);
    firstText.push(f);
    answered.push(d);
  }
  const line = (name: string, xs: number[], goal?: number) =>
    `${name.padEnd(36)} median ${pct(xs, 0.5).toFixed(0).padStart(5)} ms   p95 ${pct(xs, 0.95).toFixed(0).padStart(5)} ms   (${xs.length})` +
    (goal ? `   goal median < ${goal} ms: ${pct(xs, 0.5) < goal ? "ok" : "MISSED"}` : "");
  log(`${target.base}, project ${target.projectId} of client ${clientId}, ${RUNS} questions; ${cpus().length} cores, load average ${loadavg()[0]!.toFixed(1)}`);
  log(line("first text drawn (same thread)", firstText));
  log(line("answer drawn, new thread", newThread));
  log(line("answer drawn, all questions", answered, GOAL_MS));
  failed = !(pct(answered, 0.5) < GOAL_MS);
} finally {
  await browser.close();
  await target.stop();
}
if (failed) process.exit(1);
