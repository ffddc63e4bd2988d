// Sign-in: password login, rotating refresh tokens with reuse detection, logout, login methods.
// Access tokens are short-lived JWTs (jwt.ts); the refresh token lives in an httpOnly cookie and is
// stored only as a hash. A refresh token is single-use: using it issues the next one of its family,
// and presenting a used one again revokes the whole family (the session).
import { deviceCookieValue, trustedDevice } from "./device-cookie.ts";
import type { Db } from "../db/client.ts";
import { ApiError } from "../errors.ts";
import * as q from "./auth.sql.ts";
import { signAccessToken } from "./jwt.ts";
import { dummyHash, type PasswordHasher } from "./passwords.ts";
import { afterResponse, type Defer } from "./after-response.ts";
import type { Mailer } from "../email/mailer.ts";
import { link, signInFailures } from "../email/templates.ts";

export interface AuthDeps {
  db: Db;
  key: CryptoKey;
  passwords: PasswordHasher;
  /** LinkedIn sign-in is configured and not switched off. */
  linkedInEnabled: boolean;
  /** Runs work after the request has answered (after-response.ts by default; tests capture it). */
  defer?: Defer;
  /** Where the owner's warnings go (repeated sign-in failures); none, no warning. */
  mailer?: Mailer;
}

/** Refresh-token (login session) lifetime. */
export const SESSION_DAYS = 30;

/**
 * Brute-force limits (ASVS 2.2.1), none of which locks an account's owner out:
 * - per (account, address): 5 failures in 15 minutes are free; after the 5th that address waits
 *   30 s, doubling with each further failure, at most 15 minutes (progressive delay);
 * - per account, across addresses: from 20 failures in 15 minutes, one attempt per 5 s (a ceiling
 *   that slows a spread-out attack and holds the owner for at most 5 s);
 * - per address, across accounts: 30 failures in 15 minutes (password spraying);
 * - the owner is emailed at the 5th failure on their account in 15 minutes.
 */
export const LIMITS = {
  loginPerAccountAddress: { max: 5, windowSeconds: 15 * 60, delaySeconds: 30, maxDelaySeconds: 15 * 60 },
  loginPerAccount: { max: 20, windowSeconds: 15 * 60, spacingSeconds: 5 },
  loginPerIp: { max: 30, windowSeconds: 15 * 60 },
  /** SetPassword's wrong current passwords, per signed-in user. */
  passwordChangePerUser: { max: 5, windowSeconds: 15 * 60 },
  notifyOwnerAt: 5,
  refreshPerIp: { max: 60, windowSeconds: 60 },
} as const;

export interface Issued {
  accessToken: string;
  refreshToken: string;
  sessionId: string;
  userId: number;
}

async function sha256(text: string): Promise<string> {
  const d = new Uint8Array(await crypto.subtle.digest("SHA-256", new TextEncoder().encode(text)));
  return Array.from(d, (b) => b.toString(16).padStart(2, "0")).join("");
}

function randomToken(): string {
  const b = crypto.getRandomValues(new Uint8Array(32));
  return btoa(String.fromCharCode(...b))
    .replace(/\+/g, "-")
    .replace(/\//g, "_")
    .replace(/=+$/, "");
}

async function access(deps: AuthDeps, user: q.LoginUser, sessionId: string): Promise<string> {
  return signAccessToken(deps.key, { sub: String(user.id), sid: sessionId, staff: user.isStaff, sa: user.isSuperAdmin });
}

/** Throws 429 when a key has reached its limit in the window, with the seconds until it frees. */
async function limit(deps: { db: Db }, key: string, l: { max: number; windowSeconds: number }, what: string): Promise<void> {
  const { n, oldest } = await q.recentAttempts(deps.db, key, l.windowSeconds);
  if (n < l.max) return;
  const retry = oldest ? Math.max(1, Math.ceil((oldest.getTime() + l.windowSeconds * 1000 - Date.now()) / 1000)) : l.windowSeconds;
  throw new ApiError("TooManyRequests", `Too many ${what} attempts. Try again in ${retry} seconds.`, undefined, undefined, retry);
}

/** Starts a login session for a user who has proven who they are. */
export async function startSession(deps: AuthDeps, user: q.LoginUser, method: string, meta: { ip: string | null; userAgent: string | null }): Promise<Issued> {
  const sessionId = crypto.randomUUID();
  const refreshToken = randomToken();
  await deps.db.begin(async (tx) => {
    await q.createSession(tx, { id: sessionId, userId: user.id, method, userAgent: meta.userAgent, ip: meta.ip, days: SESSION_DAYS });
    await q.addRefreshToken(tx, sessionId, await sha256(refreshToken));
  });
  return { accessToken: await access(deps, user, sessionId), refreshToken, sessionId, userId: user.id };
}

/**
 * The counters of one sign-in attempt: the account, the account from this address, the address,
 * and the device when it carries a device cookie signed for this account (device-cookie.ts).
 */
export interface SignInKeys {
  email: string;
  account: string;
  pair: string | null;
  ip: string | null;
  device: string | null;
}

export function signInKeys(email: string, ip: string | null, deviceId: string | null = null): SignInKeys {
  const e = email.trim().toLowerCase();
  // An email never contains a space (it is validated), so the pair key cannot be forged from another.
  return {
    email: e,
    account: `login:account:${e}`,
    pair: ip ? `login:pair:${e} ${ip}` : null,
    ip: ip ? `login:ip:${ip}` : null,
    device: deviceId ? `login:device:${e} ${deviceId}` : null,
  };
}

const wait = (seconds: number, what: string) => new ApiError("TooManyRequests", `Too many ${what} attempts. Try again in ${seconds} seconds.`, undefined, undefined, seconds);

/**
 * Before checking a password: 429 with Retry-After while this address must wait for this account
 * (progressive delay), while the account is at its ceiling and took an attempt under 5 s ago, or
 * while the address is spraying. A fresh address holding the right password waits at most 5 s.
 */
export async function checkSignInThrottle(db: Db, k: SignInKeys, now = Date.now()): Promise<void> {
  const secondsUntil = (at: number) => Math.max(1, Math.ceil((at - now) / 1000));
  const progressive = async (key: string) => {
    const l = LIMITS.loginPerAccountAddress;
    const { n, newest } = await q.recentAttempts(db, key, l.windowSeconds);
    if (n >= l.max && newest) {
      const delay = Math.min(l.maxDelaySeconds, l.delaySeconds * 2 ** (n - l.max));
      const until = newest.getTime() + delay * 1000;
      if (until > now) throw wait(secondsUntil(until), "sign-in");
    }
  };
  // A device that signed in to this account before: its own failures only (the same progressive
  // delay as an address), not the account's or this address's.
  if (k.device) return progressive(k.device);
  if (k.pair) await progressive(k.pair);
  const c = LIMITS.loginPerAccount;
  const account = await q.recentAttempts(db, k.account, c.windowSeconds);
  if (account.n >= c.max && account.newest) {
    const until = account.newest.getTime() + c.spacingSeconds * 1000;
    if (until > now) throw wait(secondsUntil(until), "sign-in");
  }
  if (k.ip) await limit({ db }, k.ip, LIMITS.loginPerIp, "sign-in");
}

/**
 * Counts a failed password on every counter. At the owner-warning threshold of the account (its
 * 5th failure in the window), the owner is emailed after the answer.
 */
export async function recordSignInFailure(deps: AuthDeps, k: SignInKeys): Promise<void> {
  await q.recordAttempt(
    deps.db,
    [k.account, k.pair, k.ip, k.device].filter((x): x is string => x !== null),
  );
  const { n } = await q.recentAttempts(deps.db, k.account, LIMITS.loginPerAccount.windowSeconds);
  if (n !== LIMITS.notifyOwnerAt || !deps.mailer) return;
  const mailer = deps.mailer;
  (deps.defer ?? afterResponse)(async () => {
    const user = await q.userByEmail(deps.db, k.email);
    if (!user || user.disabled) return;
    await mailer.send(signInFailures({ to: user.email, failures: n, minutes: LIMITS.loginPerAccount.windowSeconds / 60, url: link(mailer.publicUrl, "/auth/forgot-password") }));
  });
}

/** After a success: this address's failures on the account are forgotten (not other addresses'). */
export async function clearSignInFailures(db: Db, k: SignInKeys): Promise<void> {
  if (k.pair) await q.clearAttempts(db, k.pair);
  if (k.device) await q.clearAttempts(db, k.device);
}

export async function passwordLogin(
  deps: AuthDeps,
  input: { email: string; password: string },
  meta: { ip: string | null; userAgent: string | null; deviceCookie?: string | null },
): Promise<Issued & { deviceCookie: string }> {
  const deviceId = await trustedDevice(deps.key, input.email, meta.deviceCookie);
  const keys = signInKeys(input.email, meta.ip, deviceId);
  await checkSignInThrottle(deps.db, keys);

  const user = await q.userByEmail(deps.db, input.email);
  // Verify even without a user or hash, so timing does not tell which emails exist.
  const ok = await deps.passwords.verify(input.password, user?.passwordHash ?? (await dummyHash(deps.passwords)));
  if (!user?.passwordHash || !ok || user.disabled) {
    await recordSignInFailure(deps, keys);
    throw new ApiError("Unauthorized", "Email or password is incorrect");
  }
  await clearSignInFailures(deps.db, keys);
  if (!user.isStaff && (await q.ssoRequired(deps.db, { userId: user.id }))) {
    throw new ApiError("Forbidden", "Your organisation signs in through single sign-on", "sso_required");
  }
  if (user.passwordStatus === "FORCE_CHANGE_PASSWORD") {
    // The temporary password was right; the person must choose their own before signing in.
    throw new ApiError("NewPasswordRequired", "Choose a new password to finish signing in", "new_password_required");
  }
  // The right password: this device is known to the account from now on (kept if it was).
  return { ...(await startSession(deps, user, "password", meta)), deviceCookie: await deviceCookieValue(deps.key, input.email, deviceId ?? undefined) };
}

/**
 * Seconds after its rotation in which a refresh token presented again, while the token issued in
 * its place is unused, is taken as a lost answer rather than a stolen copy (once per token).
 */
export const REFRESH_REUSE_LEEWAY_S = 30;

/** Rotates a refresh token. Failure is 422 AuthFailureDto (SPEC 8): the client goes to login. */
export async function refresh(deps: AuthDeps, refreshToken: string | undefined, meta: { ip: string | null }): Promise<Issued> {
  const ipKey = meta.ip ? `refresh:ip:${meta.ip}` : null;
  if (ipKey) await limit(deps, ipKey, LIMITS.refreshPerIp, "refresh");
  const fail = async (why: string) => {
    if (ipKey) await q.recordAttempt(deps.db, [ipKey]);
    return new ApiError("AuthFailureDto", "Your session has ended. Please sign in again.", why);
  };
  if (!refreshToken) throw await fail("no refresh token");
  const hash = await sha256(refreshToken);
  const next = randomToken();
  const outcome = await deps.db.begin(async (tx) => {
    const row = await q.refreshTokenForUpdate(tx, hash);
    if (!row) return { error: "unknown refresh token" } as const;
    if (row.revokedAt || row.expired) return { error: "session ended" } as const;
    if (row.usedAt) {
      // An answer the client never received, not a copy: the token again within the leeway while
      // the one issued in its place is unused (a page that navigated away mid-refresh, two tabs at
      // once). Once per token: the successor is retired and a new token issued (record 0126).
      if (row.graceOpen && row.usedSecondsAgo !== null && row.usedSecondsAgo <= REFRESH_REUSE_LEEWAY_S) {
        await q.spendGrace(tx, hash);
        await q.addRefreshToken(tx, row.sessionId, await sha256(next));
        return { sessionId: row.sessionId, userId: row.userId } as const;
      }
      // Reuse: someone holds a copy of a rotated token. End the whole family.
      await q.revokeSession(tx, row.sessionId, "refresh token reuse");
      return { error: "refresh token reused; session revoked" } as const;
    }
    const nextHash = await sha256(next);
    await q.markRefreshUsed(tx, hash, nextHash);
    await q.addRefreshToken(tx, row.sessionId, nextHash);
    return { sessionId: row.sessionId, userId: row.userId } as const;
  });
  if ("error" in outcome) throw await fail(outcome.error!);
  const user = await q.userById(deps.db, outcome.userId);
  if (!user || user.disabled) {
    await q.revokeSession(deps.db, outcome.sessionId, "user disabled");
    throw await fail("user disabled");
  }
  return { accessToken: await access(deps, user, outcome.sessionId), refreshToken: next, sessionId: outcome.sessionId, userId: user.id };
}

/** Ends the session of a refresh token and/or of an access token's session id. */
export async function logout(deps: AuthDeps, refreshToken: string | undefined, sessionId: string | undefined): Promise<void> {
  const ids = new Set<string>();
  if (refreshToken) {
    const s = await q.sessionOfToken(deps.db, await sha256(refreshToken));
    if (s) ids.add(s);
  }
  if (sessionId) ids.add(sessionId);
  for (const id of ids) await q.revokeSession(deps.db, id, "logout");
}

export interface LoginMethods {
  password: boolean;
  saml: { providerName: string } | null;
  linkedIn: boolean;
}

/**
 * How an email may sign in. Answers the same for unknown emails as for known ones (no account
 * enumeration): password unless the domain's identity provider belongs to an org or enterprise
 * that requires single sign-on, SAML when the email's domain has an identity provider, LinkedIn
 * when configured.
 */
export async function loginMethods(deps: AuthDeps, email: string): Promise<LoginMethods> {
  const domain = email.split("@")[1] ?? "";
  const idp = domain ? await q.idpForDomain(deps.db, domain) : undefined;
  // Decided by the domain's identity provider, never by whether the email has an account.
  const password = !(idp && (await q.ssoRequired(deps.db, { clientId: idp.clientId })));
  return { password, saml: idp ? { providerName: idp.providerName } : null, linkedIn: deps.linkedInEnabled };
}
