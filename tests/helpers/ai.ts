// The AI tests' world: the demo clients and their fielded demo projects (every project type), the
// job queue with the AI jobs, and the app with a stand-in sign-in where the bearer token is a demo
// login's email (membership and roles are still the database's).
import type { TestDb } from "./db.ts";
import { newApp, type App } from "../../api/src/app.ts";
import { registry } from "../../api/src/entities/index.ts";
import { ApiError } from "../../api/src/errors.ts";
import type { RequestCtx } from "../../api/src/access/principal.ts";
import { outboxMailer } from "../../api/src/email/mailer.ts";
import { startQueue, type Queue } from "../../api/src/jobs/queue.ts";
import { registerWorkers, type AnyJob } from "../../api/src/jobs/workers.ts";
import { send, TEST_PUBLIC_URL } from "./app.ts";
import { createDemoWorldDb } from "./demo.ts";

export interface AiWorld {
  tdb: TestDb;
  app: App;
  queue: Queue;
  projectIds: number[];
  ctxOf(email: string, clientId?: number | null): Promise<RequestCtx>;
  call(email: string | null, clientId: number | null, method: string, path: string, body?: unknown): Promise<{ status: number; body: any }>;
  stop(): Promise<void>;
}

export async function aiWorld(jobs: AnyJob[]): Promise<AiWorld> {
  const { tdb, projectIds } = await createDemoWorldDb();
  const queue = await startQueue(tdb.url, () => {});
  await registerWorkers(queue, tdb.db, jobs, { log: () => {} });
  const users = new Map<string, { id: number; isStaff: boolean; isSuperAdmin: boolean }>();
  for (const u of await tdb.db<{ email: string; id: number; isStaff: boolean; roleId: number }[]>`select lower(email) as email, id, is_staff as "isStaff", role_id as "roleId" from users`) {
    users.set(u.email, { id: u.id, isStaff: u.isStaff, isSuperAdmin: u.roleId === 3 });
  }
  const principal = (email: string) => {
    const u = users.get(email);
    if (!u) throw new ApiError("Unauthorized", "Not signed in");
    return { userId: u.id, isStaff: u.isStaff, isSuperAdmin: u.isSuperAdmin };
  };
  const app = newApp({
    checkAnswers: true,
    db: tdb.db,
    registry,
    queue,
    mailer: outboxMailer(tdb.db, { publicUrl: TEST_PUBLIC_URL }),
    authenticate: async (c) => {
      const token = c.req.header("authorization")?.replace(/^Bearer /, "") ?? "";
      const header = c.req.header("clientId");
      return { principal: principal(token), clientId: header ? Number(header) : null, descendants: false };
    },
  });
  return {
    tdb,
    app,
    queue,
    projectIds,
    async ctxOf(email, clientId = null) {
      return { principal: principal(email), clientId, descendants: false, sessionId: null };
    },
    call: (email, clientId, method, path, body) => send(app, email ? `Bearer ${email}` : null, clientId, method, path, body),
    async stop() {
      await queue.stop({ graceful: true, timeout: 5000 });
      await tdb.drop();
    },
  };
}
