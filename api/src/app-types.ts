// The types the routes modules need from the app (its environment, the app itself, the
// dependencies newApp is given), in a module of their own: app.ts imports every routes module,
// so routes import these from here, never from app.ts (tests/api/import-cycles.test.ts).
import type { OpenAPIHono } from "@hono/zod-openapi";
import type { Db } from "./db/client.ts";
import type { RequestCtx } from "./access/principal.ts";
import type { Registry } from "./entities/registry.ts";
import type { Queue } from "./jobs/queue.ts";
import type { Metrics } from "./ops/metrics.ts";
import type { FileStorage } from "./storage/storage.ts";
import type { Mailer } from "./email/mailer.ts";
import type { AuthDeps } from "./auth/auth.service.ts";
import type { SsoDeps } from "./auth/sso.ts";
import type { QueryLimits } from "./config.ts";

export type AppEnv = {
  Variables: {
    traceId: string;
    ctx: RequestCtx;
    db: Db;
  };
};

export type App = OpenAPIHono<AppEnv>;

/**
 * Turns the request into a principal and client scope, or throws ApiError Unauthorized. The auth
 * layer provides the real one; tests may supply their own. It reads the request's headers only
 * (a framework context, or the lean reads' stand-in: app.ts).
 */
export type Authenticate = (c: { req: { header(name: string): string | undefined } }) => Promise<RequestCtx>;

export interface AppDeps {
  db: Db;
  /** The Db of the read-heavy routes (results functions, exports): routed to a replica when one is configured (db/replica.ts). */
  readDb?: Db;
  registry: Registry;
  authenticate: Authenticate;
  /** The sign-in routes (/auth/Login/*); absent in apps that only serve data. */
  auth?: AuthRouteDeps;
  /** Where users reach the product (websocket URLs); the request's origin when unset. */
  publicUrl?: string;
  /** Sends email (invites, password resets); absent: the outbox only (email/mailer.ts). */
  mailer?: Mailer;
  /** Where uploaded files live (storage/); absent: the file calls answer 503. */
  storage?: FileStorage;
  /** DNS TXT lookups (ValidateDomainRecord); node:dns by default. */
  resolveTxt?: (hostname: string) => Promise<string[][]>;
  /** Prometheus metrics (/metrics and per-request counts); absent: no /metrics. */
  metrics?: Metrics;
  /** The bearer token /metrics asks for; null: /metrics is not served (per-request counts go on); absent: open (development, tests). */
  metricsToken?: string | null;
  /** The migration files of this build (/readyz checks they are all applied); absent: not checked. */
  expectedMigrations?: () => string[];
  /** Whether the job queue runs (/readyz); absent: not checked. */
  queueRunning?: () => boolean;
  /** The job queue (pg-boss): actions that start background work enqueue on it; absent, they answer 503. */
  queue?: Queue;
  /** The web app's files (the built SPA): a path's file, or index.html for the SPA's routes; absent: no web app. */
  web?: (path: string, acceptEncoding?: string | null) => Promise<Response | null>;
  /** One line per request; off in tests. */
  log?: (line: string) => void;
  /** Origins images may load from besides ours (an S3 endpoint), for the HTML pages' CSP. */
  imageOrigins?: string[];
  /** The peer address of a request (the server adapter's): rate limits of anonymous routes key on it; absent: none. */
  clientIp?: (req: Request) => string | null;
  /** Statement timeouts and the per-user share of the pool (config.ts); absent: the defaults. */
  queryLimits?: QueryLimits;
  /** false: GET /api/v1/{Set} goes through the framework like every other request (tests compare the two paths); absent: the lean read (app.ts). */
  leanReads?: boolean;
  /** true: every answer of an operation is checked against the published document, and one outside it becomes a 500 saying why (ops/answer-check.ts; the test suite). */
  checkAnswers?: boolean;
  /** Whether the simulated panel answers runs (SIMULATED_PANEL; docs/decisions/0144); absent: the process's configuration. */
  simulatedPanel?: boolean;
}

export interface AuthRouteDeps extends AuthDeps {
  /** The caller's address as the server adapter saw it (never a header a client can set). */
  clientIp: (req: Request) => string | null;
  secureCookies: boolean;
  /** SAML single sign-on and LinkedIn (public URL, service-provider key, LinkedIn client); defaults without. */
  sso?: SsoDeps;
}
