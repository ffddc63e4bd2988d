// newApp(): the Hono application. Web-standard code only (it also runs on Deno): whatever is
// Bun's (serving, websockets, the embedded database) is wired in by server.ts.
import { OpenAPIHono } from "@hono/zod-openapi";
import { HTTPException } from "hono/http-exception";
import { getPath, getQueryParams } from "hono/utils/url";
import { Scalar } from "@scalar/hono-api-reference";
import type { ZodError } from "zod";
import { ApiError, LOAD_RETRY_AFTER_SECONDS, publicDetail, type FieldError } from "./errors.ts";
import { JSON_TYPE, listText, registerEntityRoutes } from "./entities/routes.ts";
import type { EntitySetDef } from "./entities/types.ts";
import type { RequestCtx } from "./access/principal.ts";
import { access } from "./access/policy.ts";
import { registerAuthRoutes } from "./auth/auth.routes.ts";
import { registerDomainRoutes } from "./domains/index.ts";
import { answerContract, registerSharedResponses } from "./openapi.ts";
import { violationAnswer } from "./ops/answer-check.ts";
import { registerHealthRoutes } from "./ops/health.ts";
import { isApiPath } from "./web/paths.ts";
import { compressed, compressedText, compression } from "./web/compress.ts";
import { registerMetricsRoute } from "./ops/metrics.ts";
import type { MiddlewareHandler } from "hono";
import { outboxMailer } from "./email/mailer.ts";
import { securityMiddleware, setCommonHeaders } from "./ops/security.ts";
import { hostileInputError, hostileInputMiddleware, hostileTarget } from "./ops/input.ts";
import { errorFields, log as logJson, logLine } from "./ops/log.ts";
import { UPLOAD_PATH } from "./storage/local.ts";
import type { App, AppDeps, AppEnv } from "./app-types.ts";
import { DEFAULT_QUERY_LIMITS, GATED_CONNECTIONS, type QueryLimits } from "./config.ts";
import { CLIENT_GONE, ConnectionGate, GATE_REFUSALS, USER_CONNECTIONS_BUSY } from "./db/gate.ts";

export type { App, AppDeps, AppEnv, Authenticate } from "./app-types.ts";

/** Staff exports get the longer statement timeout (they read a whole project or ledger). */
const EXPORT_PATH = /\/(ExportCsv|ExportExcel|ExportTransactionListCsv|[A-Za-z]*Export)$/;
/**
 * Requests weighed as costly by their route, before they run (db/gate.ts's costly lane): the
 * synchronous exports (a whole project or ledger read and written out) and the cross-tab (every
 * respondent of the project read). The results functions read the project's in-memory columnar
 * copy and answer in milliseconds, so they stay in the cheap lane; an OData read is weighed by the
 * rows it may produce (entities/service.ts).
 */
const COSTLY_PATH = /\/(ExportCsv|ExportExcel|ExportTransactionListCsv|Responses\/CrossTab)$/;

export const API_VERSION = "v139";

/** `Set(42)` / `Set('a b')` key segments become `Set/42` so Hono can route them (DESIGN.md). */
export function rewriteKeyPath(path: string): string {
  if (!path.includes("(")) return path;
  return path.replace(/\/([A-Za-z]+)\(([^)/]*)\)(?=\/|$)/g, (_m, set: string, key: string) => {
    const k = key.startsWith("'") && key.endsWith("'") && key.length >= 2 ? key.slice(1, -1) : key;
    return `/${set}/${k}`;
  });
}

/** The SQLSTATE of a PostgreSQL error (tenant entry and row-level security raise 42501 / 28000). */
function dbCode(err: unknown): string | undefined {
  const c = (err as { code?: unknown }).code;
  return typeof c === "string" ? c : undefined;
}

/**
 * The database is out of reach (stopped, restarting, refusing connections, or the connection died
 * under the statement): SQLSTATE class 08 and the shutdown codes 57P01-57P03, too many connections,
 * and postgres.js's and the socket's own codes. The request is answered 503 with Retry-After: its
 * transaction was not committed (or never started), and postgres.js reconnects by itself on the
 * next query, so the service comes back with the database, without a restart.
 */
const DB_UNAVAILABLE = new Set([
  "57P01",
  "57P02",
  "57P03",
  "53300",
  "CONNECTION_CLOSED",
  "CONNECTION_ENDED",
  "CONNECTION_DESTROYED",
  "CONNECT_TIMEOUT",
  "ECONNREFUSED",
  "ECONNRESET",
  "EPIPE",
  "ETIMEDOUT",
  "ENOTFOUND",
  "EAI_AGAIN",
]);
export function isDatabaseUnavailable(err: unknown): boolean {
  const code = dbCode(err);
  return code !== undefined && (DB_UNAVAILABLE.has(code) || code.startsWith("08"));
}
/** Seconds a client waits before retrying while the database is away. */
export const DB_RETRY_AFTER_SECONDS = 2;

function validationErrors(error: ZodError): FieldError[] {
  return error.issues.map((i) => ({ path: i.path.map(String).join(".") || "(body)", message: i.message }));
}

/** The gate of an app's requests (db/gate.ts) with the configured shares (the benchmarks build theirs with it too). */
export function requestGate(limits: QueryLimits): ConnectionGate {
  return new ConnectionGate({
    capacity: GATED_CONNECTIONS,
    perUser: limits.userConnections,
    perTenant: limits.tenantConnections,
    costly: limits.costlyConnections,
    costlyPerTenant: limits.costlyTenantConnections,
    waitMs: limits.userWaitMs,
  });
}

export function newApp(deps: AppDeps): App {
  const app: App = new OpenAPIHono<AppEnv>({
    getPath: (req) => rewriteKeyPath(getPath(req)),
    defaultHook: (result) => {
      if (!result.success) {
        throw new ApiError("ValidationError", `Invalid ${result.target}`, undefined, validationErrors(result.error));
      }
    },
  });

  // Every middleware added here is also a step of the lean collection read at the end of newApp,
  // which answers GET /api/v1/{Set} without them: add it there too (tests/api/lean-read.test.ts
  // compares the two paths' answers, log lines and metrics).
  /** The request's log line (never the query: signed file links carry tokens there). */
  const logRequest = (method: string, url: string, status: number, t0: number, traceId: string) =>
    deps.log?.(logLine("info", "request", { method, path: new URL(url).pathname, status, ms: Math.round((performance.now() - t0) * 10) / 10, traceId }));
  app.use("*", async (c, next) => {
    const traceId = crypto.randomUUID();
    c.set("traceId", traceId);
    c.set("db", deps.db);
    const t0 = performance.now();
    await next();
    if (c.res.status >= 400) c.header("x-error-trace-id", traceId);
    logRequest(c.req.method, c.req.url, c.res.status, t0, traceId);
  });

  // Answers above 1 KB gzipped for clients that accept it (web/compress.ts).
  app.use("*", compression());

  // Security headers on every response (a strict CSP on HTML), body limits on every request.
  const security = { publicUrl: deps.publicUrl, imageOrigins: deps.imageOrigins, inlineStylePaths: ["/docs"], uploadPath: UPLOAD_PATH };
  app.use("*", securityMiddleware(security));
  // NUL characters and integers outside int4 are refused here, once, for every operation (ops/input.ts).
  app.use("*", hostileInputMiddleware({ uploadPath: UPLOAD_PATH }));

  const tables = new Map([...deps.registry.sets.values()].map((set) => [set.table, set.name] as const));
  const tableToSet = (table: string) => tables.get(table);
  /**
   * The answer to an error thrown while answering a request: the API's error shape, its status,
   * a trace id and Retry-After where retrying helps (for the framework's onError, and for the lean
   * reads below).
   */
  const errorAnswer = (err: Error, r: { traceId: string | undefined; ctx: RequestCtx | undefined; method: string; url: string; aborted: boolean }) => {
    const traceId = r.traceId ?? crypto.randomUUID();
    let e: ApiError;
    if (err instanceof ApiError) e = err;
    else if (err instanceof HTTPException) {
      e = new ApiError(err.status === 404 ? "NotFound" : "BadRequest", err.message || "Bad request");
      if (err.status === 413) e = new ApiError("PayloadTooLarge", "Request body too large");
    } else if (err instanceof SyntaxError) e = new ApiError("BadRequest", "Malformed JSON body");
    else if (dbCode(err) === "42501") e = new ApiError("Forbidden", "You do not have access to this client or row");
    else if (dbCode(err) === "28000") e = new ApiError("Unauthorized", "Not signed in");
    // A submitted project's questionnaire is locked in the database (migration 0014).
    else if (dbCode(err) === "55000") e = new ApiError("Conflict", err.message);
    // Backstops behind ops/input.ts: a number a column cannot hold, text PostgreSQL cannot store.
    else if (dbCode(err) === "22003") e = new ApiError("ValidationError", "A number is out of range for its field");
    else if (dbCode(err) === "22021" || dbCode(err) === "22P05") e = new ApiError("ValidationError", "Text contains a character that cannot be stored (a NUL character)");
    else if (dbCode(err) === "57014" || dbCode(err) === CLIENT_GONE) {
      // Cut off: the statement timeout, or the client went away (then nobody reads this answer).
      const ms = r.ctx?.limits?.statementTimeoutMs;
      const gone = r.aborted || dbCode(err) === CLIENT_GONE;
      if (!gone) logJson("warn", "statement timeout", { traceId, method: r.method, path: new URL(r.url).pathname });
      e = gone
        ? new ApiError("ServiceUnavailable", "The request was cancelled: the client went away")
        : new ApiError(
            "ServiceUnavailable",
            `The query ran longer than the ${ms ? `${ms / 1000} s ` : ""}limit and was stopped: narrow it (a tighter $filter, a smaller $top, fewer or smaller $expand, fewer nested any/all) and try again`,
            undefined,
            undefined,
            LOAD_RETRY_AFTER_SECONDS,
          );
    } else if (dbCode(err) === USER_CONNECTIONS_BUSY) {
      e = new ApiError("ServiceUnavailable", `Too many requests of this account are running at once (${err.message}); retry shortly`, undefined, undefined, LOAD_RETRY_AFTER_SECONDS);
    } else if (GATE_REFUSALS.has(dbCode(err) ?? "")) {
      e = new ApiError("ServiceUnavailable", `The service is busy (${err.message}); retry shortly`, undefined, undefined, LOAD_RETRY_AFTER_SECONDS);
    } else if (isDatabaseUnavailable(err)) {
      logJson("error", "database unavailable", { traceId, ...errorFields(err) });
      e = new ApiError("ServiceUnavailable", "The service is briefly unavailable; retry shortly", undefined, undefined, DB_RETRY_AFTER_SECONDS);
    } else {
      // Unexpected: log with the trace id (name, code, message; no stack), answer without internals.
      logJson("error", "unexpected error", { traceId, method: r.method, path: new URL(r.url).pathname, ...errorFields(err) });
      e = new ApiError("InternalError", "An unexpected error occurred");
    }
    // Operators hear of every refusal that is the service's fault (a full disk, an unreachable
    // database), once, with the trace id the client was given.
    // A statement cut off or a request over its user's share is logged above (or is load), not as a fault.
    const cutOff = dbCode(err) === "57014" || dbCode(err) === CLIENT_GONE || GATE_REFUSALS.has(dbCode(err) ?? "");
    if (e.status >= 500 && e.code !== "InternalError" && !isDatabaseUnavailable(err) && !cutOff) logJson("error", e.message, { traceId, typename: e.code, status: e.status });
    // No table or column names leave the server (issue 19): a database detail in the API's words.
    if (e.detail !== undefined) {
      const detail = publicDetail(e.detail, tableToSet);
      if (detail !== e.detail) e = new ApiError(e.code, e.message, detail, e.errors, e.retryAfter);
    }
    const headers: Record<string, string> = { "x-error-trace-id": traceId };
    if (e.retryAfter !== undefined) headers["Retry-After"] = String(e.retryAfter);
    return { body: e.toBody(), status: e.status, headers };
  };
  app.onError((err, c) => {
    const a = errorAnswer(err, { traceId: c.get("traceId"), ctx: c.get("ctx"), method: c.req.method, url: c.req.url, aborted: c.req.raw.signal.aborted });
    return c.json(a.body, a.status, a.headers);
  });

  app.notFound((c) => {
    const e = new ApiError("NotFound", `No route for ${c.req.method} ${new URL(c.req.url).pathname}`);
    return c.json(e.toBody(), 404, { "x-error-trace-id": c.get("traceId") });
  });

  app.openAPIRegistry.registerComponent("securitySchemes", "bearer", {
    type: "http",
    scheme: "bearer",
    bearerFormat: "JWT",
  });

  registerSharedResponses(app);
  if (deps.metrics) {
    app.use("*", deps.metrics.middleware);
    if (deps.metricsToken !== null) registerMetricsRoute(app, deps.metrics, deps.metricsToken);
  }
  registerHealthRoutes(app, { db: deps.db, queueRunning: deps.queueRunning, expectedMigrations: deps.expectedMigrations });

  // Every /api/v1 call needs a signed-in user (DESIGN.md): authenticate before any handler. The
  // request's statements are bounded (db/tx.ts): a statement timeout, cancelled when the client
  // disconnects, within the fair shares of the pool (the user's, the tenant's, the costly lane).
  const limits = deps.queryLimits ?? DEFAULT_QUERY_LIMITS;
  const gate = requestGate(limits);
  const limitsFor = (ctx: RequestCtx, path: string, signal: AbortSignal): RequestCtx["limits"] => ({
    statementTimeoutMs: ctx.principal.isStaff && EXPORT_PATH.test(path) ? limits.exportStatementTimeoutMs : limits.statementTimeoutMs,
    signal,
    gate,
    costly: COSTLY_PATH.test(path),
  });
  const signIn: MiddlewareHandler<AppEnv> = async (c, next) => {
    const ctx = await deps.authenticate(c);
    ctx.limits = limitsFor(ctx, c.req.path, c.req.raw.signal);
    c.set("ctx", ctx);
    await next();
  };
  app.use("/api/v1/*", signIn);
  // The admin command runner (SPEC 7) sits beside the OData API, staff only.
  app.use("/api/CommandRunner/*", signIn);

  if (deps.auth) registerAuthRoutes(app, deps.auth, deps.mailer ?? outboxMailer(deps.db, { publicUrl: deps.publicUrl }));
  // Domain routes first: their literal paths (/Users/Me, /Projects/{key}/Submit) must win over the
  // generic /Set/{key} routes, and a domain may replace a generic verb (e.g. POST /Teams).
  registerDomainRoutes(app, deps);
  const lists = registerEntityRoutes(app, deps.db, deps.registry);

  let doc: string | undefined;
  app.get("/openapi.json", (c) => {
    doc ??= JSON.stringify(openApiDocument(app));
    return c.body(doc, 200, { "content-type": "application/json; charset=utf-8" });
  });
  app.get(
    "/docs",
    Scalar({
      url: "/openapi.json",
      pageTitle: "Ideally API reference",
      // Self-hosted: the bundled standalone script, served by the server adapter. No CDN, no fonts.
      cdn: SCALAR_SCRIPT_PATH,
      withDefaultFonts: false,
      hideClientButton: true,
      // No hosted extras: they would call Scalar's services from a page that must stay offline.
      showDeveloperTools: "never",
      telemetry: false,
      agent: { disabled: true },
      mcp: { disabled: true },
    }),
  );

  // Every other GET is the web app's (web/paths.ts keeps the table): its files, else index.html.
  const web = deps.web;
  if (web) {
    app.get("*", async (c, next) => {
      const path = new URL(c.req.url).pathname;
      if (isApiPath(path)) return next();
      return (await web(path, c.req.header("accept-encoding"))) ?? next();
    });
  }

  // GET /api/v1/{Set}, the generic collection read, is answered without the framework: the same
  // steps as the middleware chain and the route above, in the same order and with the same
  // functions (input check, metrics, sign-in and limits, the route's access and query validation,
  // the service, security headers, compression, trace id, log line), without Hono's per-request
  // context, routing, middleware dispatch and validator. Those were a fifth of the CPU of such a
  // read (docs/performance.md); tests/api/lean-read.test.ts checks that both answer alike.
  const framework = app.fetch;
  if (deps.leanReads !== false) {
    app.fetch = (req, env, executionCtx) => {
      const set = req.method === "GET" && req.body === null ? lists.sets.get(listedSetOf(req.url)) : undefined;
      return set ? leanList(req, set) : framework(req, env, executionCtx);
    };
  }
  const leanList = async (req: Request, set: EntitySetDef): Promise<Response> => {
    const traceId = crypto.randomUUID();
    const t0 = performance.now();
    let ctx: RequestCtx | undefined;
    let res: Response | undefined;
    /** The answer's JSON text (in pieces), once the service has given it. */
    let text: readonly string[] | undefined;
    // Where the metrics middleware would count the request (its route), once it is reached.
    let counted: { route: string; t0: number } | null = null;
    try {
      const { errors } = hostileTarget(req.url);
      if (errors.length) throw hostileInputError(errors);
      counted = { route: "/api/v1/*", t0: performance.now() };
      ctx = await deps.authenticate({ req: { header: (name: string) => req.headers.get(name) ?? undefined } });
      ctx.limits = limitsFor(ctx, `/api/v1/${set.name}`, req.signal);
      ctx = { ...ctx, access: access.signedIn };
      counted.route = `/api/v1/${set.name}`;
      // The validator's safeParseAsync, synchronously: the options' schema has no async part.
      const query = lists.query.safeParse(validatorQuery(req.url));
      if (!query.success) throw new ApiError("ValidationError", "Invalid query", undefined, validationErrors(query.error));
      text = await listText(deps.db, deps.registry, set, ctx, req.url);
    } catch (err) {
      if (!(err instanceof Error)) throw err;
      const a = errorAnswer(err, { traceId, ctx, method: req.method, url: req.url, aborted: req.signal.aborted });
      res = new Response(JSON.stringify(a.body), { status: a.status, headers: { "Content-Type": "application/json", ...a.headers } });
    }
    if (counted && deps.metrics) deps.metrics.request(req.method, counted.route, res?.status ?? 200, (performance.now() - counted.t0) / 1000);
    if (text !== undefined) {
      // The route's answer as the middleware chain leaves it, made from the text at once: no
      // Response to read back and copy for compression (docs/performance.md).
      const headers = new Headers({ "content-type": JSON_TYPE });
      setCommonHeaders(headers, security);
      res = compressedText(req.headers.get("accept-encoding"), text, headers);
    } else {
      setCommonHeaders(res!.headers, security);
      res = await compressed(req.method, req.headers.get("accept-encoding"), res!);
    }
    if (res.status >= 400) res.headers.set("x-error-trace-id", traceId);
    logRequest(req.method, req.url, res.status, t0, traceId);
    return res;
  };

  if (deps.checkAnswers) {
    const answer = app.fetch;
    const contract = answerContract(app);
    app.fetch = async (req, env, executionCtx) => {
      const res = await answer(req, env, executionCtx);
      const path = rewriteKeyPath(new URL(req.url).pathname);
      const problems = await contract.check(req.method, path, res);
      if (!problems.length) return res;
      console.error(`[contract] ${req.method} ${path}: ${problems.join("; ")}`);
      return violationAnswer(problems);
    };
  }
  return app;
}

/** The set name of a request to /api/v1/{name} (what follows the prefix up to the query), else "". */
function listedSetOf(url: string): string {
  // The path starts at the first "/" after the scheme's "://" (as Hono's getPath finds it).
  const start = url.indexOf("/", url.indexOf(":") + 4);
  if (!url.startsWith("/api/v1/", start)) return "";
  const query = url.indexOf("?", start);
  return url.slice(start + 8, query === -1 ? undefined : query);
}

/** The query as the framework's validator gives it to the schema: one value as a string, several as an array. */
function validatorQuery(url: string): Record<string, string | string[]> {
  return Object.fromEntries(Object.entries(getQueryParams(url) as Record<string, string[]>).map(([k, v]) => [k, v.length === 1 ? v[0]! : v]));
}

/** Where the server adapter serves @scalar/api-reference's bundled standalone script. */
export const SCALAR_SCRIPT_PATH = "/docs/scalar.js";

/**
 * The published OpenAPI document. Routes are registered as /Set/{key} (Hono matches whole
 * segments only); the document shows the OData form /Set({key}), which getPath rewrites back.
 */
export function openApiDocument(app: App): Record<string, unknown> {
  const doc = app.getOpenAPI31Document(OPENAPI_INFO);
  const paths: Record<string, unknown> = {};
  for (const [p, item] of Object.entries(doc.paths ?? {})) {
    paths[p.replace(/\/([A-Za-z]+)\/\{key\}/g, "/$1({key})")] = item;
  }
  return { ...doc, paths };
}

export const OPENAPI_INFO = {
  openapi: "3.1.0",
  info: {
    title: "Ideally API",
    version: API_VERSION,
    description:
      "The Ideally consumer-research platform: projects, fielding, weighted results, benchmarks and AI. " +
      "OData v4 conventions: entity sets under /api/v1 with $select, $expand, $filter, $orderby, $top, $skip, $count and $apply.",
  },
  security: [{ bearer: [] }],
} satisfies Parameters<App["getOpenAPI31Document"]>[0];
