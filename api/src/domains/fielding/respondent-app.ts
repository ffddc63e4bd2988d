// The respondent survey's routes in an app of their own, in process: where the simulated panel's
// people take a survey when no server's app is handed to it (the fielding tick as jobs and the demo
// run it, the tests). The same routes as the server's (registerRespondentRoutes: the same
// validation, handlers and error shape), without what only requests from the network need (sign-in,
// rate limits keyed on a peer address, compression); the server's own app is used where it is at
// hand (RunSimulatedData). docs/decisions/9001.
import { OpenAPIHono } from "@hono/zod-openapi";
import type { App, AppEnv } from "../../app-types.ts";
import type { Db } from "../../db/client.ts";
import { ApiError } from "../../errors.ts";
import { registerRespondentRoutes } from "./respondent.routes.ts";

/** Answers a request as a server would: the respondent routes' Response. */
export type RespondentFetch = (req: Request) => Promise<Response>;

const apps = new WeakMap<Db, Map<string, App>>();

/** The in-process respondent app of a database and public URL (made once, then reused). */
export function respondentApp(db: Db, publicUrl: string): RespondentFetch {
  const byUrl = apps.get(db) ?? apps.set(db, new Map()).get(db)!;
  let app = byUrl.get(publicUrl);
  if (!app) {
    app = new OpenAPIHono<AppEnv>({
      defaultHook: (result) => {
        if (!result.success) throw new ApiError("ValidationError", `Invalid ${result.target}`);
      },
    });
    app.use("*", async (c, next) => {
      c.set("db", db);
      await next();
    });
    app.onError((err, c) => {
      const e = err instanceof ApiError ? err : new ApiError("InternalError", err.message);
      return c.json(e.toBody(), e.status);
    });
    registerRespondentRoutes(app, { db, publicUrl });
    byUrl.set(publicUrl, app);
  }
  const a = app;
  return async (req) => a.fetch(req);
}
