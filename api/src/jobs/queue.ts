// The job queue: pg-boss on its own small pool (it sends BEGIN/COMMIT as text, which postgres.js
// refuses through unsafe(); see DESIGN.md). Jobs are enqueued inside the caller's postgres.js
// transaction through a per-call adapter, so a job exists exactly when the change that caused it
// commits.
import { PgBoss } from "pg-boss";
import type { Tx } from "../db/client.ts";

export type Queue = PgBoss;

export async function startQueue(url: string, log: (m: string) => void = console.log): Promise<Queue> {
  const boss = new PgBoss({ connectionString: url, max: 3, application_name: "ideally-jobs" } as never);
  boss.on("error", (e: unknown) => log(`[jobs] ${(e as Error).message ?? String(e)}`));
  await boss.start();
  return boss;
}

/** pg-boss's database interface over a postgres.js transaction. */
export function txAdapter(tx: Tx) {
  return {
    // pg-boss's own SQL with its own $n parameters: no request input reaches the text.
    executeSql: async (text: string, values: unknown[] = []) => ({ rows: await tx.unsafe(text, values as never[]) }),
  };
}

/** Enqueues a job in the caller's transaction (created atomically with the caller's change). */
export async function enqueue(queue: Queue, tx: Tx, name: string, data: object, options: Record<string, unknown> = {}): Promise<string | null> {
  return queue.send(name, data, { ...options, db: txAdapter(tx) } as never);
}
