// bun run tests/perf/chat-answer.probe.ts: the chat's answer job alone, in this process (no server,
// no pg-boss): CHAT_ANSWER_N (default 300) questions of bench:load's mix ("Which concept wins with
// women under 35?") in one thread of the demo database (a clone of bench:load's seed,
// load-servers.ts; BENCH_DB_PREFIX names it), each answered by the ai.chat handler after 10
// warm-up answers. Prints per answer: the statements sent (postgres.js debug), the Bun CPU
// (process.cpuUsage) and the CPU of the database backends (/proc), and the stored debug size.
// CHAT_ANSWER_URL: run on that database instead of a clone (e.g. to compare two checkouts on one).
import { randomPort } from "../helpers/port.ts";
import { loadavg } from "node:os";
import { connect } from "../../api/src/db/client.ts";
import { chatJob } from "../../api/src/domains/ai/chat.service.ts";
import { stopTestServer } from "../helpers/server.ts";
import { cpuReading, cpuSpent, seededDemo } from "./load-servers.ts";

const N = Number(process.env.CHAT_ANSWER_N ?? 300);
const dbs = process.env.CHAT_ANSWER_URL ? null : await seededDemo(Number(process.env.BENCH_PORT ?? randomPort()));
const url = process.env.CHAT_ANSWER_URL ?? (await dbs!.clone("chatanswer"));
let statements = 0;
let counting = false;
const db = connect(url, { onQuery: () => void (counting && statements++) });
const mon = connect(url, { max: 1 });
try {
  const [who] = await db<{ userId: number; clientId: number; projectId: number }[]>`
    select u.id as "userId", c.id as "clientId",
           (select id from projects where client_id = c.id and status_code >= 800 and project_type_id = 1 order by id limit 1) as "projectId"
    from users u, clients c where u.email = 'user@acme.test' and c.name = 'Acme Team A'`;
  const [thread] = await db<{ id: number }[]>`
    insert into results_ai_threads (client_id, project_id, user_id, title) values (${who!.clientId}, ${who!.projectId}, ${who!.userId}, 'Answer probe') returning id`;
  const ids: number[] = [];
  for (let i = 0; i < N + 10; i++) {
    const [m] = await db<{ id: number }[]>`
      insert into results_ai_messages (results_ai_thread_id, user_id, role, content, client_id, project_id)
      values (${thread!.id}, ${who!.userId}, 'user', 'Which concept wins with women under 35?', 0, 0) returning id`;
    ids.push(m!.id);
  }
  const run = (messageId: number) =>
    chatJob.handler({
      data: { messageId },
      jobId: crypto.randomUUID(),
      name: chatJob.name,
      origin: { userId: who!.userId, clientId: who!.clientId },
      attempt: 1,
      progress: async () => {},
      db,
      queue: null as never, // the chat's handler queues nothing
      signal: new AbortController().signal,
    });
  for (const id of ids.slice(0, 10)) await run(id);
  const r0 = await cpuReading(mon, process.pid);
  counting = true;
  const c0 = process.cpuUsage();
  const t0 = performance.now();
  for (const id of ids.slice(10)) await run(id);
  const ms = performance.now() - t0;
  const c = process.cpuUsage(c0);
  counting = false;
  const pg = cpuSpent(r0, await cpuReading(mon, process.pid)).pgMs;
  const [size] = await db<{ debug: number }[]>`select avg(length(debug::text))::int as debug from results_ai_messages where results_ai_thread_id = ${thread!.id} and role = 'assistant'`;
  console.log(
    `chat answers in process, load average ${loadavg()
      .map((x) => x.toFixed(1))
      .join(" ")}`,
  );
  console.log(
    `${N} answers: ${(ms / N).toFixed(2)} ms each; ${(statements / N).toFixed(1)} statements; CPU Bun ${((c.user + c.system) / 1000 / N).toFixed(2)} ms, PostgreSQL ${(pg / N).toFixed(2)} ms; debug ${size!.debug} chars`,
  );
} finally {
  await db.end({ timeout: 1 });
  await mon.end({ timeout: 1 });
  await dbs?.dropClones();
  await dbs?.end();
  await stopTestServer();
}
