// Configuration read once from the environment, validated, with one clear message per bad variable.
import { availableParallelism } from "node:os";

export interface Config {
  port: number;
  /** The address the API listens on (HOST): 127.0.0.1 unless told otherwise (a container says 0.0.0.0). */
  host: string;
  /** REUSE_PORT=1: several API processes listen on one port (SO_REUSEPORT; Linux). */
  reusePort: boolean;
  /** WEB_DEV=1 (never in production): the web app is built on the fly by Bun's HTML bundler (`bun run dev`). */
  webDev: boolean;
  /** The worker's own /metrics port (METRICS_PORT); unset: none. */
  metricsPort: number | undefined;
  /** The OpenAI-compatible provider (AI_BASE_URL, AI_API_KEY, AI_MODEL, AI_TIMEOUT_MS, AI_MAX_RETRIES); null: the built-in one. */
  ai: AiSettings | null;
  databaseUrl: string | undefined;
  /**
   * The database itself when DATABASE_URL is a pooler in transaction mode (PgBouncer): what needs a
   * session of its own goes here (migrations, LISTEN/NOTIFY fan-out, the job queue). Unset: DATABASE_URL.
   */
  databaseDirectUrl: string | undefined;
  /** A streaming replica the results functions and exports read from (db/replica.ts). */
  databaseReplicaUrl: string | undefined;
  embeddedPort: number;
  dataDir: string;
  production: boolean;
  logRequests: boolean;
  /** CHECK_ANSWERS=1: every answer is checked against the published OpenAPI document (ops/answer-check.ts; the test suite runs so). */
  checkAnswers: boolean;
  /** Where users reach the product (links in emails, SAML and OIDC callbacks). */
  publicUrl: string;
  /** Signs access tokens; when unset, a secret made once per database is used. */
  authSecret: string | undefined;
  /** LinkedIn sign-in: configured (LINKEDIN_CLIENT_ID) and not switched off (LINKEDIN_DISABLED). */
  linkedInEnabled: boolean;
  /** LinkedIn's OpenID Connect client, when configured and not switched off; else null. */
  linkedIn: { clientId: string; clientSecret: string; issuer: string } | null;
  /** Our SAML service provider: its entity id (the audience IdPs address) and optional signing key. */
  samlSp: { entityId: string; privateKey: string | undefined; cert: string | undefined };
  /** Signs the support chat's identity-verification hash (Users/HmacMe); unset: HmacMe answers 503. */
  hmacSecret: string | undefined;
  /** The SMTP server emails go through (smtp:// or smtps://); unset: the outbox only (dev mailbox). */
  smtpUrl: string | undefined;
  /** The From header of emails. */
  mailFrom: string;
  /** Memory for the results functions' columnar copies of projects, in MiB; 0: every call reads SQL. */
  resultsCacheMb: number;
  /** Whether this API process also runs the job workers (RUN_WORKERS, default 1); 0 leaves them to `bun run worker`. */
  runWorkers: boolean;
  /**
   * Threads that build the data exports off the JavaScript thread (EXPORT_WORKERS, default one per
   * core beside the main thread's, 1 to 4: defaultExportWorkers); 0 builds them in the thread that
   * serves the request or runs the job (domains/results/export-workers.ts, record 0137).
   */
  exportWorkers: number;
  /** What bounds one request's database work (docs/security.md "Query cost"). */
  queryLimits: QueryLimits;
  /** The bearer token /metrics asks for (METRICS_TOKEN); unset: /metrics is not served on the API port. */
  metricsToken: string | undefined;
  /**
   * argon2id's cost for the password hashes this process makes (sign-up, password changes, new
   * users). Verifying reads the cost from the stored hash itself. PRODUCTION_PASSWORD_COST unless
   * PASSWORD_HASH_COST=test (test runs only: refused with NODE_ENV=production).
   */
  passwordCost: PasswordCost;
  /**
   * SIMULATED_PANEL=on|off: whether the simulated panel, a sample supplier of its own, answers the
   * runs whose sample source is simulated (docs/decisions/0144). Default off with
   * NODE_ENV=production, on otherwise (development, the demo, tests). Off: it takes no run.
   */
  simulatedPanel: boolean;
}

export interface AiSettings {
  baseUrl: string;
  apiKey: string;
  model: string;
  /** One request's limit in ms (1000 to 600000); unset: the provider's default. */
  timeoutMs: number | undefined;
  /** Retries of a failed request (0 to 10); unset: the provider's default. */
  maxRetries: number | undefined;
}

const AI_PARTS = "AI_BASE_URL, AI_API_KEY and AI_MODEL: set all three (the OpenAI-compatible provider) or none (the local provider)";

/** A whole number from min to max written in plain digits (Number() alone takes "", "1e3" and " 5 "). */
function wholeIn(env: Record<string, string | undefined>, name: string, min: number, max: number, problems: string[]): number | undefined {
  const v = env[name];
  if (v === undefined || v === "") return undefined;
  const n = /^-?\d{1,9}$/.test(v) ? Number(v) : Number.NaN;
  if (!Number.isInteger(n) || n < min || n > max) {
    problems.push(`${name} must be a whole number from ${min} to ${max}, got '${v}'`);
    return undefined;
  }
  return n;
}

function aiSettings(env: Record<string, string | undefined>, problems: string[]): AiSettings | null {
  const [baseUrl, apiKey, model] = [env.AI_BASE_URL, env.AI_API_KEY, env.AI_MODEL].map((v) => v?.trim() || undefined);
  const set = [baseUrl, apiKey, model].filter(Boolean).length;
  if (set === 0) return null;
  if (set < 3) {
    problems.push(AI_PARTS);
    return null;
  }
  if (!/^https?:\/\/[^/]+/.test(baseUrl!)) problems.push("AI_BASE_URL must be an http(s) URL");
  const timeoutMs = wholeIn(env, "AI_TIMEOUT_MS", 1000, 600_000, problems);
  const maxRetries = wholeIn(env, "AI_MAX_RETRIES", 0, 10, problems);
  return { baseUrl: baseUrl!, apiKey: apiKey!, model: model!, timeoutMs, maxRetries };
}

/** The AI provider's settings alone (domains/ai/configured.ts), with readConfig's checks. */
export function readAiSettings(env: Record<string, string | undefined>): AiSettings | null {
  const problems: string[] = [];
  const ai = aiSettings(env, problems);
  if (problems.length) throw new Error(`Invalid configuration:\n  ${problems.join("\n  ")}`);
  return ai;
}

/** argon2id's memory (KiB) and passes; parallelism is 1 (Bun.password's). */
export interface PasswordCost {
  memoryCost: number;
  timeCost: number;
}
/** New password hashes everywhere but a test run: 64 MiB, 2 passes (docs/security.md "Passwords"). */
export const PRODUCTION_PASSWORD_COST: PasswordCost = { memoryCost: 65536, timeCost: 2 };
/** PASSWORD_HASH_COST=test: 1 MiB, 1 pass, about a hundredth of the work; never in production. */
export const TEST_PASSWORD_COST: PasswordCost = { memoryCost: 1024, timeCost: 1 };

export interface QueryLimits {
  /** Statement timeout of a request, in ms (STATEMENT_TIMEOUT_MS, default 5000). */
  statementTimeoutMs: number;
  /** Statement timeout of a staff member's export (ExportCsv, ExportExcel, ...), in ms (EXPORT_STATEMENT_TIMEOUT_MS, default 60000). */
  exportStatementTimeoutMs: number;
  /** Requests of one user that may hold pooled connections at once (USER_DB_CONNECTIONS, default 8, half of API_POOL_SIZE: the other half stays for everyone else). */
  userConnections: number;
  /** Longest wait for one of them before a 503 with Retry-After, in ms (USER_DB_WAIT_MS, default 10000: a burst of one user queues rather than fails). */
  userWaitMs: number;
  /** Requests of one tenant (the client a request names), all its users together, that may hold pooled connections at once (TENANT_DB_CONNECTIONS, default 12 of the 14 requests may hold: db/gate.ts). */
  tenantConnections: number;
  /** Requests weighed as costly (large reads, exports, cross-tabs) that may run at once in the process (COSTLY_DB_CONNECTIONS, default 2). */
  costlyConnections: number;
  /** Of them, requests of one tenant (COSTLY_TENANT_DB_CONNECTIONS, default 1). */
  costlyTenantConnections: number;
  /** Synchronous exports (ExportCsv, ExportExcel) of one user in flight at once; beyond them an export is queued as a job (SYNC_EXPORTS_PER_USER, default SYNC_EXPORTS_PER_USER). */
  syncExportsPerUser: number;
  /** Synchronous exports of one tenant, all its users together, in flight at once (SYNC_EXPORTS_PER_TENANT, default SYNC_EXPORTS_PER_TENANT). */
  syncExportsPerTenant: number;
}

/**
 * Connections of an API process's pool for requests (and of its replica's). 16, so that half of it,
 * one user's share, is 8: at least the 6 connections a browser opens to one host over HTTP/1.1, so
 * one tab's burst of parallel calls runs at once, with room for a second tab or the CLI
 * (docs/decisions.md, "One user's share: 8 of 16").
 */
export const API_POOL_SIZE = 16;
/**
 * Connections of that pool requests may hold through the gate (db/gate.ts): all but two, which stay
 * for what runs outside a tenant's request (sign-in, health, the job queue's enqueues), so a flood
 * of requests never makes a sign-in wait for the pool.
 */
export const GATED_CONNECTIONS = API_POOL_SIZE - 2;
/**
 * Synchronous exports one user may have in flight at once (domains/results/export-bound.ts): 2, the
 * results page's CSV and Excel buttons pressed one after the other, or the CLI beside a browser. A
 * third at once is a script or a flood; it is queued as a job (answered 202), not refused. An
 * export's CPU (reading the rows, building a workbook, joining a CSV) runs in an export worker
 * thread (EXPORT_WORKERS, record 0137), or on the process's one JavaScript thread without them;
 * the costly lane bounds only its reads: this bound is what caps the rest of that work.
 */
export const SYNC_EXPORTS_PER_USER = 2;
/**
 * Synchronous exports one tenant (the client a request names), all its users together, may have in
 * flight at once: 4, two users' worth. Their statements still take the costly lane one at a time per
 * tenant (COSTLY_TENANT_DB_CONNECTIONS), so at most three of them wait for it, each for the short
 * statements of one export, well within USER_DB_WAIT_MS; the rest are queued as jobs, which a
 * process runs one at a time (exports.jobs.ts).
 */
export const SYNC_EXPORTS_PER_TENANT = 4;
/**
 * Exports (CSV, Excel) one user may have queued and not yet done (exports.jobs.ts): 10. Beyond the
 * synchronous bound an export is queued, not refused; without a bound on the queue too, a loop that
 * calls again on each 202 would queue without end work the process then runs for minutes. A person
 * never has ten waiting; a script that does gets 429 with Retry-After until one is done.
 */
export const QUEUED_EXPORTS_PER_USER = 10;
/**
 * Entries of a client's credit ledger one ExportTransactionListCsv answers (credits.service.ts):
 * 100,000, about fourteen years of a run a day with its charges, refunds and transfers. The export
 * is streamed from a cursor in one transaction that stays open while the file is sent, in the
 * costly lane; without a cap its length, and how long it holds both, grew with the ledger. A
 * longer ledger is refused before the first byte (400), nothing half-written.
 */
export const LEDGER_EXPORT_MAX_ROWS = 100_000;
export const DEFAULT_QUERY_LIMITS: QueryLimits = {
  statementTimeoutMs: 5000,
  exportStatementTimeoutMs: 60_000,
  userConnections: API_POOL_SIZE / 2,
  userWaitMs: 10_000,
  tenantConnections: 12,
  costlyConnections: 2,
  costlyTenantConnections: 1,
  syncExportsPerUser: SYNC_EXPORTS_PER_USER,
  syncExportsPerTenant: SYNC_EXPORTS_PER_TENANT,
};
/**
 * Export worker threads by default (EXPORT_WORKERS): one per core beside the main thread's, at least
 * 1 (a single core still keeps the build off the thread that answers the other calls), at most 4
 * (each holds its own module graph and connections; one tenant's exports build one at a time anyway).
 */
export function defaultExportWorkers(cores = availableParallelism()): number {
  return Math.max(1, Math.min(4, cores - 1));
}
/** Statement timeout of background jobs (norms roll-ups, AI summaries, PowerPoint): long, but not endless. */
export const JOB_STATEMENT_TIMEOUT_MS = 10 * 60_000;

export function readConfig(env: Record<string, string | undefined> = process.env): Config {
  const problems: string[] = [];
  const int = (name: string, fallback: number): number => {
    const v = env[name];
    if (v === undefined || v === "") return fallback;
    const n = Number(v);
    if (!Number.isInteger(n) || n <= 0 || n > 65535) problems.push(`${name} must be a port number, got '${v}'`);
    return n;
  };
  const cfg: Config = {
    port: int("PORT", 3000),
    host: env.HOST || "127.0.0.1",
    reusePort: env.REUSE_PORT === "1",
    webDev: env.WEB_DEV === "1" && env.NODE_ENV !== "production",
    metricsPort: env.METRICS_PORT ? int("METRICS_PORT", 0) : undefined,
    ai: null,
    databaseUrl: env.DATABASE_URL || undefined,
    databaseDirectUrl: env.DATABASE_DIRECT_URL || undefined,
    databaseReplicaUrl: env.DATABASE_REPLICA_URL || undefined,
    embeddedPort: int("EMBEDDED_PG_PORT", 54329),
    dataDir: env.DATA_DIR || ".data",
    production: env.NODE_ENV === "production",
    logRequests: env.LOG_REQUESTS !== "0",
    checkAnswers: env.CHECK_ANSWERS === "1",
    publicUrl: (env.PUBLIC_URL || "").replace(/\/+$/, ""),
    authSecret: env.AUTH_SECRET || undefined,
    linkedInEnabled: !!env.LINKEDIN_CLIENT_ID && env.LINKEDIN_DISABLED !== "1",
    linkedIn: null,
    samlSp: { entityId: "", privateKey: undefined, cert: undefined },
    hmacSecret: env.HMAC_SECRET || undefined,
    smtpUrl: env.SMTP_URL || undefined,
    mailFrom: env.MAIL_FROM || "",
    resultsCacheMb: 256,
    runWorkers: env.RUN_WORKERS !== "0",
    exportWorkers: defaultExportWorkers(),
    queryLimits: { ...DEFAULT_QUERY_LIMITS },
    metricsToken: env.METRICS_TOKEN || undefined,
    passwordCost: PRODUCTION_PASSWORD_COST,
    simulatedPanel: env.NODE_ENV !== "production",
  };
  for (const name of ["REUSE_PORT", "WEB_DEV"]) {
    const v = env[name];
    if (v !== undefined && v !== "" && v !== "0" && v !== "1") problems.push(`${name} must be 0 or 1, got '${v}'`);
  }
  if (!/^[A-Za-z0-9.:-]+$/.test(cfg.host)) problems.push(`HOST must be an address or a host name to listen on, got '${cfg.host}'`);
  cfg.ai = aiSettings(env, problems);
  const whole = (name: string, key: keyof QueryLimits, min: number, max: number) => {
    const v = env[name];
    if (v === undefined || v === "") return;
    const n = Number(v);
    if (!Number.isInteger(n) || n < min || n > max) problems.push(`${name} must be a whole number from ${min} to ${max}, got '${v}'`);
    else cfg.queryLimits[key] = n;
  };
  whole("STATEMENT_TIMEOUT_MS", "statementTimeoutMs", 100, 600_000);
  whole("EXPORT_STATEMENT_TIMEOUT_MS", "exportStatementTimeoutMs", 100, 600_000);
  whole("USER_DB_CONNECTIONS", "userConnections", 1, 100);
  whole("USER_DB_WAIT_MS", "userWaitMs", 0, 60_000);
  whole("TENANT_DB_CONNECTIONS", "tenantConnections", 1, 100);
  whole("COSTLY_DB_CONNECTIONS", "costlyConnections", 1, 100);
  whole("COSTLY_TENANT_DB_CONNECTIONS", "costlyTenantConnections", 1, 100);
  whole("SYNC_EXPORTS_PER_USER", "syncExportsPerUser", 1, 100);
  whole("SYNC_EXPORTS_PER_TENANT", "syncExportsPerTenant", 1, 100);
  if (cfg.metricsToken !== undefined && cfg.metricsToken.length < 16) problems.push("METRICS_TOKEN must be at least 16 characters");
  if (env.RESULTS_CACHE_MB !== undefined && env.RESULTS_CACHE_MB !== "") {
    const mb = Number(env.RESULTS_CACHE_MB);
    if (!Number.isInteger(mb) || mb < 0) problems.push(`RESULTS_CACHE_MB must be a whole number of MiB (0 turns the cache off), got '${env.RESULTS_CACHE_MB}'`);
    else cfg.resultsCacheMb = mb;
  }
  if (env.EXPORT_WORKERS !== undefined && env.EXPORT_WORKERS !== "") {
    const n = Number(env.EXPORT_WORKERS);
    if (!Number.isInteger(n) || n < 0 || n > 64) problems.push(`EXPORT_WORKERS must be a whole number from 0 to 64 (0 builds exports in the serving thread), got '${env.EXPORT_WORKERS}'`);
    else cfg.exportWorkers = n;
  }
  if (env.RUN_WORKERS !== undefined && env.RUN_WORKERS !== "" && env.RUN_WORKERS !== "0" && env.RUN_WORKERS !== "1") {
    problems.push(`RUN_WORKERS must be 0 or 1, got '${env.RUN_WORKERS}'`);
  }
  const panel = env.SIMULATED_PANEL;
  if (panel === "on" || panel === "off") cfg.simulatedPanel = panel === "on";
  else if (panel !== undefined && panel !== "") problems.push(`SIMULATED_PANEL must be on or off, got '${panel}'`);
  const cost = env.PASSWORD_HASH_COST;
  if (cost === "test") {
    if (cfg.production) problems.push("PASSWORD_HASH_COST=test is for test runs only: it is refused with NODE_ENV=production");
    else cfg.passwordCost = TEST_PASSWORD_COST;
  } else if (cost !== undefined && cost !== "") problems.push(`PASSWORD_HASH_COST must be unset or 'test' (cheap hashes for test runs), got '${cost}'`);
  if (!cfg.publicUrl) cfg.publicUrl = `http://localhost:${cfg.port}`;
  else if (!/^https?:\/\/[^/]+/.test(cfg.publicUrl)) problems.push("PUBLIC_URL must be an http(s) URL");
  if (cfg.linkedInEnabled && !env.LINKEDIN_CLIENT_SECRET) problems.push("LINKEDIN_CLIENT_SECRET is required with LINKEDIN_CLIENT_ID");
  const linkedInIssuer = (env.LINKEDIN_ISSUER || "https://www.linkedin.com/oauth").replace(/\/+$/, "");
  if (!/^https?:\/\/[^/]+/.test(linkedInIssuer)) problems.push("LINKEDIN_ISSUER must be an http(s) URL");
  if (cfg.linkedInEnabled && env.LINKEDIN_CLIENT_SECRET) {
    cfg.linkedIn = { clientId: env.LINKEDIN_CLIENT_ID!, clientSecret: env.LINKEDIN_CLIENT_SECRET, issuer: linkedInIssuer };
  }
  cfg.linkedInEnabled = cfg.linkedIn !== null;
  // PEM text in an environment variable often arrives with its newlines escaped.
  const pem = (v: string | undefined) => (v ? v.replace(/\\n/g, "\n") : undefined);
  cfg.samlSp = {
    entityId: env.SAML_SP_ENTITY_ID || `${cfg.publicUrl}/auth/Saml/Metadata`,
    privateKey: pem(env.SAML_SP_PRIVATE_KEY),
    cert: pem(env.SAML_SP_CERT),
  };
  if (!!cfg.samlSp.privateKey !== !!cfg.samlSp.cert) problems.push("SAML_SP_PRIVATE_KEY and SAML_SP_CERT go together (both or neither)");
  if (cfg.samlSp.privateKey && !cfg.samlSp.privateKey.includes("PRIVATE KEY-----")) problems.push("SAML_SP_PRIVATE_KEY must be a PEM private key");
  if (cfg.samlSp.cert && !cfg.samlSp.cert.includes("BEGIN CERTIFICATE-----")) problems.push("SAML_SP_CERT must be a PEM certificate");
  if (cfg.smtpUrl !== undefined && !/^smtps?:\/\/[^/]+/.test(cfg.smtpUrl)) problems.push("SMTP_URL must be an smtp:// or smtps:// URL");
  if (!cfg.mailFrom) cfg.mailFrom = `Ideally <no-reply@${/^https?:\/\/([^/:]+)/.exec(cfg.publicUrl)?.[1] ?? "localhost"}>`;
  else if (!/@/.test(cfg.mailFrom) || /[\r\n]/.test(cfg.mailFrom)) problems.push("MAIL_FROM must be an email address, e.g. Ideally <no-reply@example.com>");
  if (cfg.authSecret !== undefined && cfg.authSecret.length < 32) problems.push("AUTH_SECRET must be at least 32 characters");
  for (const [name, url] of [
    ["DATABASE_URL", cfg.databaseUrl],
    ["DATABASE_DIRECT_URL", cfg.databaseDirectUrl],
    ["DATABASE_REPLICA_URL", cfg.databaseReplicaUrl],
  ] as const) {
    if (url && !/^postgres(ql)?:\/\//.test(url)) problems.push(`${name} must start with postgres:// or postgresql://`);
  }
  if (!cfg.databaseUrl && (cfg.databaseDirectUrl || cfg.databaseReplicaUrl)) {
    problems.push("DATABASE_DIRECT_URL and DATABASE_REPLICA_URL need DATABASE_URL (the embedded database has neither a pooler nor a replica)");
  }
  if (problems.length) throw new Error(`Invalid configuration:\n  ${problems.join("\n  ")}`);
  return cfg;
}

let current: Config | undefined;

/**
 * This process's configuration, read from its environment on first use: for code that runs far from
 * the start (jobs, the AI provider) and was handed no Config. The start itself (server.ts,
 * worker.ts) reads it with readConfigOrExit first, so a bad value stops the process there.
 */
export function processConfig(): Config {
  current ??= readConfig(process.env);
  return current;
}

/** readConfig() for a process's start: each bad variable on its own line, then exit 1 (no stack trace). */
export function readConfigOrExit(env: Record<string, string | undefined> = process.env): Config {
  try {
    return readConfig(env);
  } catch (e) {
    console.error((e as Error).message);
    process.exit(1);
  }
}
