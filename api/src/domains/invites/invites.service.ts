// Invitations. Team invites: an Admin invites a person to the request's client (POST /Users),
// in the Admin's tenant transaction, so the membership, the invite's record, its token and the
// notification are one atomic write that row-level security checks like any other. Share links:
// a signed-in person opens or accepts a link (link_invites of type ProjectShare or Demo).
import type { Db, Tx } from "../../db/client.ts";
import type { Registry } from "../../entities/registry.ts";
import type { RequestCtx } from "../../access/principal.ts";
import { enterTenant } from "../../access/policy.ts";
import { ApiError } from "../../errors.ts";
import { getByKey } from "../../entities/service.ts";
import { raise } from "../notifications/notifications.service.ts";
import type { Mailer } from "../../email/mailer.ts";
import { link, teamInvite, teamInviteExisting } from "../../email/templates.ts";
import { issueToken, revokeTokens, TOKEN_TTL } from "../../auth/account-tokens.ts";
import * as q from "./invites.sql.ts";

export interface InviteDeps {
  db: Db;
  mailer: Mailer;
  registry: Registry;
}

export interface InviteInput {
  email: string;
  firstName?: string;
  lastName?: string;
  roleId: 1 | 2 | 3;
}

const INVITE_DAYS = TOKEN_TTL.TeamInvite / 86400;

function requireClient(ctx: RequestCtx): number {
  if (ctx.clientId === null) throw new ApiError("BadRequest", "A clientId header is required: the client to invite to");
  return ctx.clientId;
}

/** A notification row for a user, and its realtime event on user-{id} (sent at commit). */
export async function notify(
  sql: Db | Tx,
  n: { userId: number; clientId: number | null; type: "PasswordReset" | "UserAddedToTeam"; title: string; body?: string; url?: string; data?: Record<string, unknown> },
): Promise<void> {
  await raise(sql, n);
}

/** The invite's record and a fresh token (older tokens of this person for this client die). */
async function newInviteToken(tx: Tx, a: { userId: number; email: string; clientId: number; roleId: number; invitedBy: number }): Promise<string> {
  const linkInviteId = await q.upsertTeamInviteLink(tx, {
    clientId: a.clientId,
    email: a.email,
    roleId: a.roleId,
    invitedByUserId: a.invitedBy,
    ttlSeconds: TOKEN_TTL.TeamInvite,
  });
  await revokeTokens(tx, { purpose: "TeamInvite", userId: a.userId, clientId: a.clientId });
  return issueToken(tx, { purpose: "TeamInvite", userId: a.userId, email: a.email, clientId: a.clientId, linkInviteId, createdByUserId: a.invitedBy });
}

/** What the inviting Admin learns of an existing account: that it was invited, nothing of the person. */
export interface PendingInvitation {
  email: string;
  pending: true;
  clientId: number;
  roleId: number;
  expiresAt: string;
}

export type InviteOutcome = { kind: "added"; user: string } | { kind: "pending"; invitation: PendingInvitation };

/**
 * Invites a person to the request's client with a role. A new email gets an account without a
 * password (invited_at), the membership and an invite link; the answer is the person as GET
 * /Users({id}) shows them. An email that already has an account (another client's member,
 * provider staff, an account never activated) is invited, not added: a pending membership that
 * the person accepts (Users/AcceptMembership, or the invite link if they never activated), and
 * the answer says only that, so nothing of their profile reaches the inviting client.
 */
export async function inviteToClient(deps: InviteDeps, ctx: RequestCtx, input: InviteInput): Promise<InviteOutcome> {
  const clientId = requireClient(ctx);
  const email = input.email.trim();
  const out = await enterTenant(deps.db, ctx, async (tx) => {
    const name = await q.clientName(tx, clientId);
    if (name === undefined) throw new ApiError("NotFound", `Client ${clientId} not found`);
    const by = await q.inviter(tx, ctx.principal.userId);
    const person = await q.personByEmail(tx, email, { lock: true });
    if (person?.disabled) throw new ApiError("Conflict", "This person's account is disabled; Ideally support can enable it");
    if (person) {
      if ((await q.membershipRole(tx, person.id, clientId)) !== undefined) throw new ApiError("Conflict", `${email} is already a member of ${name}`);
      const linkInviteId = await q.upsertTeamInviteLink(tx, { clientId, email, roleId: input.roleId, invitedByUserId: ctx.principal.userId, ttlSeconds: TOKEN_TTL.TeamInvite });
      const expiresAt = await q.upsertPendingMembership(tx, {
        clientId,
        userId: person.id,
        roleId: input.roleId,
        invitedByUserId: ctx.principal.userId,
        linkInviteId,
        ttlSeconds: TOKEN_TTL.TeamInvite,
      });
      // An account never activated accepts through the link (it sets the password too).
      const token = person.activated ? null : await newInviteToken(tx, { userId: person.id, email: person.email, clientId, roleId: input.roleId, invitedBy: ctx.principal.userId });
      await notify(tx, {
        userId: person.id,
        clientId,
        type: "UserAddedToTeam",
        title: `You were invited to join ${name}`,
        body: "Accept the invitation to become a member.",
        data: { clientId, roleId: input.roleId, invitedByUserId: ctx.principal.userId, pending: true },
      });
      const invitation: PendingInvitation = { email, pending: true, clientId, roleId: input.roleId, expiresAt: expiresAt.toISOString() };
      return { pending: invitation, to: person.email, clientName: name, inviter: by, token };
    }
    const userId = await q.insertInvitedUser(tx, { email, firstName: input.firstName ?? null, lastName: input.lastName ?? null, clientId });
    if (userId === undefined) throw new ApiError("Conflict", "This email was invited by someone else at the same moment; try again");
    await q.addMembership(tx, userId, clientId, input.roleId);
    await q.addUnconfirmedIdentity(tx, userId, email);
    const token: string | null = await newInviteToken(tx, { userId, email, clientId, roleId: input.roleId, invitedBy: ctx.principal.userId });
    await notify(tx, {
      userId,
      clientId,
      type: "UserAddedToTeam",
      title: `You were added to ${name}`,
      url: `/${clientId}/home`,
      data: { clientId, roleId: input.roleId, invitedByUserId: ctx.principal.userId },
    });
    return { userId, to: email, clientName: name, inviter: by, token };
  });
  await deps.mailer.send(
    out.token
      ? teamInvite({
          to: out.to,
          inviter: out.inviter,
          clientName: out.clientName,
          url: link(deps.mailer.publicUrl, "/auth/accept-invite", { token: out.token }),
          token: out.token,
          expiresDays: INVITE_DAYS,
        })
      : teamInviteExisting({ to: out.to, inviter: out.inviter, clientName: out.clientName, url: link(deps.mailer.publicUrl, "/auth/login") }),
  );
  if (out.pending) return { kind: "pending", invitation: out.pending };
  return { kind: "added", user: await getByKey(deps.db, deps.registry, deps.registry.mustGet("Users"), ctx, String(out.userId), {}) };
}

/** The signed-in person's invitations waiting for them. */
export async function myInvitations(db: Db, ctx: RequestCtx): Promise<{ value: { clientId: number; clientName: string; roleId: number; invitedBy: string | null; expiresAt: string }[] }> {
  await assertSessionLive(db, ctx);
  const rows = await q.myInvitations(db, ctx.principal.userId);
  return { value: rows.map((r) => ({ ...r, expiresAt: r.expiresAt.toISOString() })) };
}

/** Accepts the signed-in person's invitation to a client: the membership, with the invited role. */
export async function acceptMembership(db: Db, ctx: RequestCtx, clientId: number): Promise<{ clientId: number; roleId: number }> {
  const roleId = await enterTenant(db, { ...ctx, clientId: null, descendants: false }, (tx) => q.acceptMembership(tx, clientId));
  if (roleId === null) throw new ApiError("NotFound", `No invitation to client ${clientId} is waiting for you (it may have expired or been withdrawn)`);
  return { clientId, roleId };
}

/** Declines the signed-in person's invitation to a client: it is gone, and nothing is joined. */
export async function declineMembership(db: Db, ctx: RequestCtx, clientId: number): Promise<void> {
  const declined = await enterTenant(db, { ...ctx, clientId: null, descendants: false }, (tx) => q.declineMembership(tx, clientId));
  if (!declined) throw new ApiError("NotFound", `No invitation to client ${clientId} is waiting for you (it may have expired or been withdrawn)`);
}

/** A new invite link for a member who has not accepted yet; the previous link stops working. */
export async function resendInvite(deps: InviteDeps, ctx: RequestCtx, userId: number): Promise<void> {
  const clientId = requireClient(ctx);
  const out = await enterTenant(deps.db, ctx, async (tx) => {
    const roleId = await q.membershipRole(tx, userId, clientId);
    const person = roleId === undefined ? undefined : await q.personById(tx, userId);
    if (roleId === undefined || !person) throw new ApiError("NotFound", `Users(${userId}) is not a member of this client`);
    if (person.disabled) throw new ApiError("Conflict", "This person's account is disabled; Ideally support can enable it");
    if (person.activated) throw new ApiError("Conflict", "This person has already activated their account: there is no invite to resend");
    await q.markInvited(tx, userId);
    const token = await newInviteToken(tx, { userId, email: person.email, clientId, roleId, invitedBy: ctx.principal.userId });
    return { to: person.email, token, clientName: (await q.clientName(tx, clientId)) ?? "your team", inviter: await q.inviter(tx, ctx.principal.userId) };
  });
  await deps.mailer.send(
    teamInvite({
      to: out.to,
      inviter: out.inviter,
      clientName: out.clientName,
      url: link(deps.mailer.publicUrl, "/auth/accept-invite", { token: out.token }),
      token: out.token,
      expiresDays: INVITE_DAYS,
    }),
  );
}

// ---- share links ----

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

export interface LinkLanding {
  identifier: string;
  inviteType: "ProjectShare" | "Demo";
  clientName: string;
  invitedByName: string | null;
  projectId: number | null;
  projectName: string | null;
  projectType: string | null;
  projectTypeId: number | null;
  expired: boolean;
  expiresAt: string | null;
  /** The link was made for one email address; only that address may use it. */
  forOneEmail: boolean;
}

export function landing(l: q.ShareLink): LinkLanding {
  const available = l.projectAvailable;
  return {
    identifier: l.identifier,
    inviteType: l.inviteType,
    clientName: l.clientName,
    invitedByName: l.invitedByName,
    projectId: available ? l.projectId : null,
    projectName: available ? l.projectName : null,
    projectType: available ? l.projectType : null,
    projectTypeId: available ? l.projectTypeId : null,
    expired: l.expired,
    expiresAt: l.expiresAt?.toISOString() ?? null,
    forOneEmail: l.email !== null,
  };
}

/** A share or demo link by identifier; 404 for anything else (unknown, withdrawn, a team invite). */
export async function findShareLink(sql: Db | Tx, identifier: string, opts: { lock?: boolean } = {}): Promise<q.ShareLink> {
  const l = UUID.test(identifier) ? await q.shareLink(sql, identifier, opts) : undefined;
  if (!l) throw new ApiError("NotFound", "This invite link does not exist or was withdrawn");
  return l;
}

/** Throws unless the link can give this email its project now. */
export function assertUsable(l: q.ShareLink, email: string | null): asserts l is q.ShareLink & { projectId: number } {
  if (l.expired) throw new ApiError("BadRequest", "This invite link has expired. Ask whoever shared it for a new one.", "link_expired");
  if (l.projectId === null || !l.projectAvailable) throw new ApiError("NotFound", "The shared project is no longer available");
  if (l.email !== null && email !== null && l.email.toLowerCase() !== email.toLowerCase()) {
    throw new ApiError("Forbidden", "This invite link was made for another email address");
  }
}

/** The project share a link grants a person (idempotent: using a link twice changes nothing). */
export async function shareWith(tx: Tx, l: q.ShareLink & { projectId: number }, person: { id: number; email: string }): Promise<number> {
  const id = await q.upsertProjectShare(tx, {
    clientId: l.clientId,
    projectId: l.projectId,
    userId: person.id,
    email: person.email,
    sharedByUserId: l.invitedByUserId,
    linkInviteId: l.id,
  });
  if (l.email !== null) await q.markLinkAccepted(tx, l.id, person.id);
  return id;
}

/**
 * The share-link routes are for any signed-in person, who is usually not a member of the sharing
 * client. The access token alone is not enough: entering the tenant (with no client) is what
 * checks that the login session is still live and the user not disabled.
 */
async function assertSessionLive(db: Db, ctx: RequestCtx): Promise<void> {
  await enterTenant(db, { ...ctx, clientId: null, descendants: false }, async () => undefined);
}

export async function demoProjectByIdentifier(db: Db, ctx: RequestCtx, identifier: string): Promise<LinkLanding> {
  await assertSessionLive(db, ctx);
  // As the owner: the link belongs to the sharing client, which the reader is not a member of; the
  // identifier (a random UUID someone shared with them) is what entitles them to its landing data.
  const l = await findShareLink(db, identifier);
  if (l.projectId === null || !l.projectAvailable) throw new ApiError("NotFound", "The shared project is no longer available");
  return landing(l);
}

export async function acceptShare(db: Db, ctx: RequestCtx, identifier: string): Promise<{ projectShareId: number; projectId: number; clientId: number }> {
  await assertSessionLive(db, ctx);
  // As the owner, for the same reason: row-level security would refuse a project_shares row of a
  // client the person is not a member of, and the link is the sharer's permission to write it.
  return db.begin(async (tx) => {
    const l = await findShareLink(tx, identifier, { lock: true });
    const me = await q.personById(tx, ctx.principal.userId);
    if (!me) throw new ApiError("Unauthorized", "Not signed in");
    assertUsable(l, me.email);
    const projectShareId = await shareWith(tx, l, me);
    return { projectShareId, projectId: l.projectId, clientId: l.clientId };
  });
}
