// The app under test with a stand-in for sign-in: a bearer token names one of the fixture users
// and the clientId header chooses the client. Membership and role are checked by the database as
// in production (app_enter); only the token check is replaced here.
import { newApp, type App, type AppDeps } from "../../api/src/app.ts";
import type { Principal, RequestCtx } from "../../api/src/access/principal.ts";
import { registry } from "../../api/src/entities/index.ts";
import { ApiError } from "../../api/src/errors.ts";
import type { Db } from "../../api/src/db/client.ts";
import { loadSigningKey } from "../../api/src/auth/keys.ts";
import { bearerAuthenticate } from "../../api/src/auth/authenticate.ts";
import { argon2idPasswords } from "../../api/src/auth/passwords-bun.ts";
import { readConfig } from "../../api/src/config.ts";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { LocalDiskStorage } from "../../api/src/storage/local.ts";
import { outboxMailer, type Mailer } from "../../api/src/email/mailer.ts";

/** Where links in the tests' emails point. */
export const TEST_PUBLIC_URL = "http://ideally.test";

/** Local-disk file storage for tests: a fresh folder and signing key per process. */
export const testStorage = new LocalDiskStorage(join(tmpdir(), `ideally-test-uploads-${process.pid}`), await crypto.subtle.generateKey({ name: "HMAC", hash: "SHA-256" }, false, ["sign", "verify"]));

/**
 * Passwords as a test run's server hashes them: argon2id at the cost PASSWORD_HASH_COST=test
 * configures (api/src/config.ts), like the fixtures' hashes; the preload sets the variable for the
 * server processes tests start.
 */
export const testPasswords = argon2idPasswords(readConfig({ PASSWORD_HASH_COST: "test" }).passwordCost);

/** Fixture users (tests/helpers/fixtures.sql). */
export const PRINCIPALS: Record<string, Principal> = {
  staff: { userId: 9001, isStaff: true, isSuperAdmin: true },
  ops: { userId: 9002, isStaff: true, isSuperAdmin: false },
  acmeAdmin: { userId: 9003, isStaff: false, isSuperAdmin: false },
  acmeUser: { userId: 9004, isStaff: false, isSuperAdmin: false },
  acmeViewer: { userId: 9005, isStaff: false, isSuperAdmin: false },
  globexAdmin: { userId: 9006, isStaff: false, isSuperAdmin: false },
  /** Admin of Initech Team, Viewer of Initech Org, User of Initech Enterprise. */
  initechMixed: { userId: 9007, isStaff: false, isSuperAdmin: false },
  /** Viewer of Initech Team, Admin of Initech Enterprise. */
  initechLifted: { userId: 9008, isStaff: false, isSuperAdmin: false },
};

export function testApp(db: Db, extra: Partial<AppDeps> = {}): App {
  return newApp({
    checkAnswers: true,
    ...extra,
    db,
    registry,
    storage: extra.storage ?? testStorage,
    mailer: outboxMailer(db, { publicUrl: TEST_PUBLIC_URL }),
    authenticate: async (c): Promise<RequestCtx> => {
      const token = c.req.header("authorization")?.replace(/^Bearer /, "");
      const principal = token ? PRINCIPALS[token] : undefined;
      if (!principal) throw new ApiError("Unauthorized", "Not signed in");
      const header = c.req.header("clientId");
      return { principal, clientId: header ? Number(header) : null, descendants: c.req.header("requestscope") === "descendants" };
    },
  });
}

/** Request helper: `call(app, "acmeUser", 1003, "GET", "/api/v1/Projects")`. */
export async function call(
  app: App,
  who: keyof typeof PRINCIPALS | null,
  clientId: number | null,
  method: string,
  path: string,
  body?: unknown,
): Promise<{ status: number; body: any; headers: Headers }> {
  return send(app, who ? `Bearer ${who}` : null, clientId, method, path, body);
}

/** A JSON request with a bearer token and a clientId header; the body parsed when it is JSON. */
export async function send(app: App, authorization: string | null, clientId: number | null, method: string, path: string, body?: unknown): Promise<{ status: number; body: any; headers: Headers }> {
  const headers: Record<string, string> = {};
  if (authorization) headers.authorization = authorization;
  if (clientId !== null) headers.clientId = String(clientId);
  if (body !== undefined) headers["content-type"] = "application/json";
  const res = await app.request(path, { method, headers, body: body === undefined ? undefined : JSON.stringify(body) });
  const text = await res.text();
  let parsed: unknown = text;
  try {
    parsed = text ? JSON.parse(text) : null;
  } catch {
    /* not JSON */
  }
  return { status: res.status, body: parsed, headers: res.headers };
}

/** The app as production wires it: real sign-in, bearer tokens, the database's signing key. */
export async function realApp(db: Db, opts: { ip?: string; mailer?: Mailer; extra?: Partial<AppDeps> } = {}): Promise<{ app: App; key: CryptoKey }> {
  const key = await loadSigningKey(db, undefined);
  const app = newApp({
    checkAnswers: true,
    ...opts.extra,
    db,
    registry,
    mailer: opts.mailer ?? outboxMailer(db, { publicUrl: TEST_PUBLIC_URL }),
    authenticate: bearerAuthenticate(key),
    auth: { db, key, passwords: testPasswords, linkedInEnabled: false, clientIp: () => opts.ip ?? "127.0.0.1", secureCookies: false },
  });
  return { app, key };
}

/** Signs in with the fixture password; returns the access token and the refresh cookie. */
export async function login(app: App, email: string, password = "Password123!"): Promise<{ token: string; cookie: string }> {
  const res = await app.request("/auth/Login/PasswordLogin", {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ email, password }),
  });
  if (res.status !== 200) throw new Error(`login ${email}: ${res.status} ${await res.text()}`);
  const { accessToken } = (await res.json()) as { accessToken: string };
  return { token: accessToken, cookie: refreshCookie(res) };
}

/** The `name=value` of the refresh cookie a response sets. */
export function refreshCookie(res: Response): string {
  const set = res.headers.getSetCookie().find((c) => c.startsWith("ideally_refresh="));
  return set ? set.split(";")[0]! : "";
}
