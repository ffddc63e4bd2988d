// The account flows of /auth/Login: forgot and reset password, accepting a team invite, changing a
// temporary password, and registering through a share link. Nobody is signed in during these, so
// they run as the owner (outside any tenant), like sign-in itself; what entitles the caller is an
// emailed single-use token (account-tokens.ts) or a password.
//
// No account enumeration: ForgotPassword and VerifyRegistrationEmail answer 204 whatever the
// email, and GetInvite answers the same shape for unknown emails. Every flow that an outsider can
// repeat is rate limited per email and per IP (429 with Retry-After), like PasswordLogin.
import type { Db, Tx } from "../db/client.ts";
import { ApiError } from "../errors.ts";
import type { Mailer } from "../email/mailer.ts";
import { link, passwordReset, registrationExistingAccount, registrationVerify } from "../email/templates.ts";
import * as invites from "../domains/invites/invites.service.ts";
import * as iq from "../domains/invites/invites.sql.ts";
import * as authq from "./auth.sql.ts";
import { checkSignInThrottle, clearSignInFailures, recordSignInFailure, signInKeys, startSession, type AuthDeps, type Issued } from "./auth.service.ts";
import { hashToken, issueToken, revokeTokens, tokenError, tokenProblem, TOKEN_TTL, type TokenProblem } from "./account-tokens.ts";
import * as q from "./account.sql.ts";
import { afterResponse } from "./after-response.ts";
import { dummyHash } from "./passwords.ts";

export interface AccountDeps extends AuthDeps {
  mailer: Mailer;
}

export interface Meta {
  ip: string | null;
  userAgent: string | null;
}

/** Requests per window. Unlike sign-in failures, every request counts: each may send an email. */
export const ACCOUNT_LIMITS = {
  forgotPerEmail: { max: 3, windowSeconds: 60 * 60 },
  forgotPerIp: { max: 20, windowSeconds: 60 * 60 },
  verifyPerEmail: { max: 3, windowSeconds: 60 * 60 },
  verifyPerIp: { max: 20, windowSeconds: 60 * 60 },
  /** GetInvite, GetRegistrationLoginMethods: answers about an email, so not for bulk lookups. */
  lookupPerIp: { max: 60, windowSeconds: 15 * 60 },
  /** Wrong, used or expired tokens presented from one address. */
  tokenFailuresPerIp: { max: 20, windowSeconds: 15 * 60 },
} as const;

type Limit = { max: number; windowSeconds: number };

/** 429 with the seconds until the oldest counted attempt leaves the window. */
async function limit(db: Db, key: string, l: Limit, what: string): Promise<void> {
  const { n, oldest } = await authq.recentAttempts(db, key, l.windowSeconds);
  if (n < l.max) return;
  const retry = oldest ? Math.max(1, Math.ceil((oldest.getTime() + l.windowSeconds * 1000 - Date.now()) / 1000)) : l.windowSeconds;
  throw new ApiError("TooManyRequests", `Too many ${what} requests. Try again in ${retry} seconds.`, undefined, undefined, retry);
}

/** Checks every limit, then counts this request against each. */
async function throttle(db: Db, checks: [string | null, Limit][], what: string): Promise<void> {
  const keys = checks.filter((c): c is [string, Limit] => c[0] !== null);
  for (const [key, l] of keys) await limit(db, key, l, what);
  await authq.recordAttempt(
    db,
    keys.map(([k]) => k),
  );
}

const norm = (email: string) => email.trim().toLowerCase();

// ---- forgot / reset password ----

/**
 * ForgotPassword: counts the request against its limits and answers. Everything that depends on
 * whether the email has an account (the lookup, the token, the notification, the email) runs after
 * the answer (deps.defer), so the request does the same work, in the same time, for every email.
 */
export async function forgotPassword(deps: AccountDeps, input: { email: string }, meta: Meta): Promise<void> {
  const email = norm(input.email);
  await throttle(
    deps.db,
    [
      [`forgot:email:${email}`, ACCOUNT_LIMITS.forgotPerEmail],
      [meta.ip ? `forgot:ip:${meta.ip}` : null, ACCOUNT_LIMITS.forgotPerIp],
    ],
    "password reset",
  );
  (deps.defer ?? afterResponse)(() => sendPasswordReset(deps, email));
}

/** The part of ForgotPassword that depends on the account: a reset link, if there is anyone to send it to. */
async function sendPasswordReset(deps: AccountDeps, email: string): Promise<void> {
  const user = await authq.userByEmail(deps.db, email);
  if (!user || user.disabled) return; // nothing tells the caller: they had their answer already
  // A person whose organisation requires single sign-on has no password to reset.
  if (!user.isStaff && (await authq.ssoRequired(deps.db, { userId: user.id }))) return;
  const token = await deps.db.begin(async (tx) => {
    // One live reset link per person: the newest email is the one that works.
    await revokeTokens(tx, { purpose: "PasswordReset", userId: user.id });
    const t = await issueToken(tx, { purpose: "PasswordReset", userId: user.id, email: user.email });
    await invites.notify(tx, {
      userId: user.id,
      clientId: null,
      type: "PasswordReset",
      title: "Password reset requested",
      body: "A link to reset your password was emailed to you. If you did not ask for it, ignore it: your password has not changed.",
    });
    return t;
  });
  await deps.mailer.send(
    passwordReset({
      to: user.email,
      url: link(deps.mailer.publicUrl, "/auth/reset-password", { token }),
      token,
      expiresMinutes: TOKEN_TTL.PasswordReset / 60,
    }),
  );
}

async function failToken(deps: AccountDeps, meta: Meta, problem: TokenProblem): Promise<never> {
  if (meta.ip) await authq.recordAttempt(deps.db, [`token:ip:${meta.ip}`]);
  throw tokenError(problem);
}

async function limitTokenFailures(deps: AccountDeps, meta: Meta): Promise<void> {
  if (meta.ip) await limit(deps.db, `token:ip:${meta.ip}`, ACCOUNT_LIMITS.tokenFailuresPerIp, "invalid link");
}

/** Once a person has proven they own the email, their account is active and pending invites done. */
async function activate(tx: Tx, user: { id: number; email: string }): Promise<void> {
  await q.confirmPasswordIdentity(tx, user.id, user.email);
  await q.acceptPendingTeamInvites(tx, user.id, user.email);
  await revokeTokens(tx, { purpose: "TeamInvite", userId: user.id });
}

export async function resetPassword(deps: AccountDeps, input: { token: string; password: string }, meta: Meta): Promise<void> {
  await limitTokenFailures(deps, meta);
  const hash = await hashToken(input.token);
  const early = tokenProblem(await q.peekToken(deps.db, hash), ["PasswordReset"]);
  if (early) return failToken(deps, meta, early);
  // Hashing is slow on purpose: only for a live token, and outside the transaction (checked again there).
  const passwordHash = await deps.passwords.hash(input.password);
  const out = await deps.db.begin(async (tx) => {
    const row = await q.tokenForUpdate(tx, hash);
    const problem = tokenProblem(row, ["PasswordReset"]);
    if (problem) return { problem };
    const user = await authq.userById(tx, row!.userId!);
    if (!user || user.disabled) return { problem: "invalid" as const };
    await q.setPassword(tx, user.id, passwordHash);
    await q.markTokenUsed(tx, hash);
    await revokeTokens(tx, { purpose: "PasswordReset", userId: user.id });
    await activate(tx, user);
    // Whoever held the old password is signed out everywhere, access tokens included (app_enter).
    await q.revokeAllSessions(tx, user.id, "password reset");
    await invites.notify(tx, {
      userId: user.id,
      clientId: null,
      type: "PasswordReset",
      title: "Your password was reset",
      body: "Your password was changed and you were signed out everywhere. If this was not you, contact Ideally support.",
    });
    return { email: user.email };
  });
  if ("problem" in out) return failToken(deps, meta, out.problem!);
  // The owner of the email chose a new password: earlier failed sign-ins no longer slow them down.
  await authq.clearSignInFailuresOf(deps.db, out.email);
}

// ---- invitations and registration ----

export interface AcceptInput {
  token: string;
  password: string;
  firstName?: string;
  lastName?: string;
}

/**
 * Accepts a team invite (the token of an Admin's invite) or completes a share-link registration
 * (the token VerifyRegistrationEmail sent): sets the password, activates the account, and signs
 * in. A registration also shares the link's project with the new account.
 */
export async function acceptInvitation(deps: AccountDeps, input: AcceptInput, meta: Meta): Promise<Issued> {
  await limitTokenFailures(deps, meta);
  const hash = await hashToken(input.token);
  const early = tokenProblem(await q.peekToken(deps.db, hash), ["TeamInvite", "RegistrationEmail"]);
  if (early) return failToken(deps, meta, early);
  const passwordHash = await deps.passwords.hash(input.password);
  const names = { firstName: input.firstName, lastName: input.lastName };
  const out = await deps.db.begin(async (tx): Promise<{ problem: TokenProblem } | { userId: number }> => {
    const row = await q.tokenForUpdate(tx, hash);
    const problem = tokenProblem(row, ["TeamInvite", "RegistrationEmail"]);
    if (problem) return { problem };
    const t = row!;
    if (t.purpose === "TeamInvite") {
      const user = await authq.userById(tx, t.userId!);
      if (!user || user.disabled) return { problem: "invalid" };
      // Removed from the team since the invite was sent: the invitation was withdrawn.
      // Removed from the team since the invite was sent: the invitation was withdrawn. An existing
      // account's invitation waits as a pending membership, which accepting the link turns into one.
      if (!(await iq.isMember(tx, user.id, t.clientId!)) && !(await iq.acceptPendingAsOwner(tx, user.id, t.clientId!))) return { problem: "invalid" };
      await q.setPassword(tx, user.id, passwordHash, names);
      await q.markTokenUsed(tx, hash);
      await activate(tx, user);
      return { userId: user.id };
    }
    const l = t.linkInviteId === null ? undefined : await iq.shareLinkById(tx, t.linkInviteId);
    if (!l) return { problem: "invalid" };
    invites.assertUsable(l, t.email);
    const person = await iq.personByEmail(tx, t.email, { lock: true });
    if (person?.disabled) return { problem: "invalid" };
    let userId = person?.id;
    if (userId === undefined) {
      userId = await q.createUser(tx, { email: t.email, firstName: input.firstName ?? null, lastName: input.lastName ?? null, passwordHash });
      if (userId === undefined) throw new ApiError("Conflict", "An account for this email was created meanwhile; sign in instead");
    } else {
      await q.setPassword(tx, userId, passwordHash, names);
    }
    await q.markTokenUsed(tx, hash);
    await revokeTokens(tx, { purpose: "RegistrationEmail", email: t.email });
    const me = { id: userId, email: person?.email ?? t.email };
    await activate(tx, me);
    await invites.shareWith(tx, l, me);
    return { userId };
  });
  if ("problem" in out) return failToken(deps, meta, out.problem);
  const user = await authq.userById(deps.db, out.userId);
  if (!user) throw new ApiError("InternalError", "The account vanished while being activated");
  return startSession(deps, user, "invite", meta);
}

export interface PendingInviteDto {
  email: string;
  pending: boolean;
  clientName: string | null;
  expiresAt: string | null;
}

/**
 * The accept-invite page's greeting. Only the holder of the invite's token learns about it: with a
 * live team-invite token for this email, the inviting client and the expiry; without one (or with
 * any other token), the same empty answer for every email, so nobody learns who invited an address.
 */
export async function getInvite(deps: AccountDeps, email: string, token: string | undefined, meta: Meta): Promise<PendingInviteDto> {
  await throttle(deps.db, [[meta.ip ? `lookup:ip:${meta.ip}` : null, ACCOUNT_LIMITS.lookupPerIp]], "lookup");
  const nothing: PendingInviteDto = { email, pending: false, clientName: null, expiresAt: null };
  if (!token) return nothing;
  const t = await q.peekToken(deps.db, await hashToken(token));
  if (tokenProblem(t, ["TeamInvite"]) || t!.clientId === null || norm(t!.email) !== norm(email)) return nothing;
  const p = await q.pendingTeamInvite(deps.db, email, t!.clientId);
  return p ? { email, pending: true, clientName: p.clientName, expiresAt: p.expiresAt?.toISOString() ?? null } : nothing;
}

// ---- temporary passwords ----

/**
 * Staff-created accounts start with a temporary password (cognito_users status
 * FORCE_CHANGE_PASSWORD). Proves the temporary password like PasswordLogin (same limits, same
 * answer for a wrong password and an unknown email), then sets the new one and signs in.
 */
export async function newPasswordRequired(deps: AccountDeps, input: { email: string; password: string; newPassword: string }, meta: Meta): Promise<Issued> {
  const keys = signInKeys(input.email, meta.ip);
  await checkSignInThrottle(deps.db, keys);
  const user = await authq.userByEmail(deps.db, input.email);
  const ok = await deps.passwords.verify(input.password, user?.passwordHash ?? (await dummyHash(deps.passwords)));
  if (!user?.passwordHash || !ok || user.disabled) {
    await recordSignInFailure(deps, keys);
    throw new ApiError("Unauthorized", "Email or password is incorrect");
  }
  if ((await q.passwordIdentityStatus(deps.db, user.id)) !== "FORCE_CHANGE_PASSWORD") {
    throw new ApiError("BadRequest", "This account has no temporary password to change: sign in with PasswordLogin", "not_required");
  }
  if (input.newPassword === input.password) {
    throw new ApiError("ValidationError", "Invalid json", undefined, [{ path: "newPassword", message: "The new password must differ from the temporary one" }]);
  }
  const passwordHash = await deps.passwords.hash(input.newPassword);
  await deps.db.begin(async (tx) => {
    await q.setPassword(tx, user.id, passwordHash);
    await activate(tx, user);
  });
  await clearSignInFailures(deps.db, keys);
  return startSession(deps, user, "password", meta);
}

// ---- registration through a share link ----

export async function registrationInvite(deps: AccountDeps, identifier: string): Promise<invites.LinkLanding> {
  return invites.landing(await invites.findShareLink(deps.db, identifier));
}

export interface RegistrationLoginMethods {
  accountExists: boolean;
  register: boolean;
  password: boolean;
  saml: { providerName: string } | null;
  linkedIn: boolean;
}

/**
 * How this email gets to the shared project: an existing account signs in (password or the
 * domain's single sign-on) and then accepts the share; a new email registers (VerifyRegistrationEmail).
 * This tells whether an account exists, so it answers only for a real link and is rate limited.
 */
export async function registrationLoginMethods(deps: AccountDeps, input: { inviteIdentifier: string; email: string }, meta: Meta): Promise<RegistrationLoginMethods> {
  await invites.findShareLink(deps.db, input.inviteIdentifier);
  await throttle(deps.db, [[meta.ip ? `lookup:ip:${meta.ip}` : null, ACCOUNT_LIMITS.lookupPerIp]], "lookup");
  const person = await iq.personByEmail(deps.db, input.email);
  const domain = input.email.split("@")[1] ?? "";
  const idp = domain ? await authq.idpForDomain(deps.db, domain) : undefined;
  const exists = !!person && (person.activated || person.disabled);
  return {
    accountExists: exists,
    register: !exists,
    password: exists && person!.hasPassword,
    saml: idp ? { providerName: idp.providerName } : null,
    linkedIn: deps.linkedInEnabled,
  };
}

/**
 * Emails a link that proves the address (/invites/demo?identifier=...&token=..., valid 24 hours;
 * AcceptInvitation with that token creates the account). An address that already has an account
 * is told to sign in instead. 204 either way.
 */
export async function verifyRegistrationEmail(deps: AccountDeps, input: { inviteIdentifier: string; email: string }, meta: Meta): Promise<void> {
  const l = await invites.findShareLink(deps.db, input.inviteIdentifier);
  invites.assertUsable(l, input.email);
  const email = input.email.trim();
  await throttle(
    deps.db,
    [
      [`verify:email:${norm(email)}`, ACCOUNT_LIMITS.verifyPerEmail],
      [meta.ip ? `verify:ip:${meta.ip}` : null, ACCOUNT_LIMITS.verifyPerIp],
    ],
    "verification email",
  );
  const person = await iq.personByEmail(deps.db, email);
  if (person?.disabled) return;
  const project = { projectName: l.projectName, clientName: l.clientName };
  if (person?.activated) {
    await deps.mailer.send(registrationExistingAccount({ to: person.email, ...project, url: link(deps.mailer.publicUrl, "/invites/demo", { identifier: l.identifier }) }));
    return;
  }
  const to = person?.email ?? email;
  const token = await deps.db.begin(async (tx) => {
    await revokeTokens(tx, { purpose: "RegistrationEmail", email: to, linkInviteId: l.id });
    return issueToken(tx, { purpose: "RegistrationEmail", userId: person?.id ?? null, email: to, linkInviteId: l.id });
  });
  await deps.mailer.send(
    registrationVerify({
      to,
      ...project,
      url: link(deps.mailer.publicUrl, "/invites/demo", { identifier: l.identifier, token }),
      token,
      expiresHours: TOKEN_TTL.RegistrationEmail / 3600,
    }),
  );
}
