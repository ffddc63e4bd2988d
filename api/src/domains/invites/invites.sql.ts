// SQL of invitations: team invites (in the inviting Admin's tenant transaction) and share links
// (link_invites of type ProjectShare or Demo, read and accepted as the owner, see the service).
import type { Db, Tx } from "../../db/client.ts";

type Sql = Db | Tx;

/** A person has an account they can use: a password, a single sign-on identity, or a past sign-in. */
const activated = (sql: Sql) => sql`(u.password_hash is not null or u.last_login_at is not null or exists (
  select 1 from cognito_users cu where cu.user_id = u.id and cu.cognito_idp_id is not null))`;

export interface Person {
  id: number;
  email: string;
  firstName: string | null;
  lastName: string | null;
  disabled: boolean;
  hasPassword: boolean;
  activated: boolean;
}

export async function personByEmail(sql: Sql, email: string, opts: { lock?: boolean } = {}): Promise<Person | undefined> {
  const [p] = await sql<Person[]>`
    select u.id, u.email, u.first_name as "firstName", u.last_name as "lastName",
           (u.disabled_at is not null) as disabled,
           (u.password_hash is not null) as "hasPassword", ${activated(sql)} as activated
    from users u where lower(u.email) = lower(${email})
    ${opts.lock ? sql`for update of u` : sql``}`;
  return p;
}

export async function personById(sql: Sql, id: number): Promise<Person | undefined> {
  const [p] = await sql<Person[]>`
    select u.id, u.email, u.first_name as "firstName", u.last_name as "lastName",
           (u.disabled_at is not null) as disabled,
           (u.password_hash is not null) as "hasPassword", ${activated(sql)} as activated
    from users u where u.id = ${id}`;
  return p;
}

export async function clientName(tx: Tx, clientId: number): Promise<string | undefined> {
  const [c] = await tx<{ name: string }[]>`select name from clients where id = ${clientId}`;
  return c?.name;
}

/** A new person, invited: no password until they accept. Null when the email was taken meanwhile. */
export async function insertInvitedUser(tx: Tx, u: { email: string; firstName: string | null; lastName: string | null; clientId: number }): Promise<number | undefined> {
  const [r] = await tx<{ id: number }[]>`
    insert into users (email, first_name, last_name, invited_at, default_client_id)
    values (${u.email}, ${u.firstName}, ${u.lastName}, now(), ${u.clientId})
    on conflict ((lower(email))) do nothing
    returning id`;
  return r?.id;
}

export async function markInvited(tx: Tx, userId: number): Promise<void> {
  await tx`update users set invited_at = now() where id = ${userId}`;
}

/** The membership; undefined when the person already is a member of the client. */
export async function addMembership(tx: Tx, userId: number, clientId: number, roleId: number): Promise<number | undefined> {
  const [r] = await tx<{ id: number }[]>`
    insert into user_and_clients (user_id, client_id, role_id) values (${userId}, ${clientId}, ${roleId})
    on conflict (user_id, client_id) do nothing
    returning id`;
  return r?.id;
}

export async function isMember(sql: Sql, userId: number, clientId: number): Promise<boolean> {
  const [r] = await sql<{ ok: boolean }[]>`
    select exists (select 1 from user_and_clients where user_id = ${userId} and client_id = ${clientId}) as ok`;
  return r!.ok;
}

/** The password identity an invited person will activate (CognitoStatus reads it). */
export async function addUnconfirmedIdentity(tx: Tx, userId: number, email: string): Promise<void> {
  await tx`
    insert into cognito_users (user_id, username, status)
    select ${userId}, lower(${email}), 'UNCONFIRMED'
    where not exists (select 1 from cognito_users where user_id = ${userId} and cognito_idp_id is null)
    on conflict (username) do nothing`;
}

/**
 * The team invite's record (link_invites, type TeamInvite): what the team sees as pending and what
 * GetInvite answers. Its identifier is not the secret; the emailed token is (account_tokens).
 * An existing pending invite of the client for the email is renewed rather than duplicated.
 */
export async function upsertTeamInviteLink(tx: Tx, l: { clientId: number; email: string; roleId: number; invitedByUserId: number; ttlSeconds: number }): Promise<number> {
  const [renewed] = await tx<{ id: number }[]>`
    update link_invites
       set expires_at = now() + make_interval(secs => ${l.ttlSeconds}), role_id = ${l.roleId}, invited_by_user_id = ${l.invitedByUserId}
     where id = (select id from link_invites
                 where client_id = ${l.clientId} and invite_type = 'TeamInvite' and lower(email) = lower(${l.email})
                   and accepted_at is null
                 order by created_at desc limit 1)
    returning id`;
  if (renewed) return renewed.id;
  const [r] = await tx<{ id: number }[]>`
    insert into link_invites (client_id, invite_type, email, role_id, invited_by_user_id, expires_at)
    values (${l.clientId}, 'TeamInvite', ${l.email}, ${l.roleId}, ${l.invitedByUserId}, now() + make_interval(secs => ${l.ttlSeconds}))
    returning id`;
  return r!.id;
}

/** The person's invitation to the client, waiting for them (an existing account is invited, not added). */
export async function upsertPendingMembership(tx: Tx, m: { clientId: number; userId: number; roleId: number; invitedByUserId: number; linkInviteId: number; ttlSeconds: number }): Promise<Date> {
  const [r] = await tx<{ expiresAt: Date }[]>`
    insert into pending_memberships (client_id, user_id, role_id, invited_by_user_id, link_invite_id, expires_at)
    values (${m.clientId}, ${m.userId}, ${m.roleId}, ${m.invitedByUserId}, ${m.linkInviteId}, now() + make_interval(secs => ${m.ttlSeconds}))
    on conflict (client_id, user_id) do update set role_id = excluded.role_id, invited_by_user_id = excluded.invited_by_user_id,
      link_invite_id = excluded.link_invite_id, expires_at = excluded.expires_at, created_at = now()
    returning expires_at as "expiresAt"`;
  return r!.expiresAt;
}

export interface Invitation {
  clientId: number;
  clientName: string;
  roleId: number;
  invitedBy: string | null;
  expiresAt: Date;
}

/**
 * The invite link of an account never activated (AcceptInvitation, as the owner): the person's
 * pending membership of the client becomes the membership. False when there is none live.
 */
export async function acceptPendingAsOwner(tx: Tx, userId: number, clientId: number): Promise<boolean> {
  const [p] = await tx<{ roleId: number }[]>`
    delete from pending_memberships where user_id = ${userId} and client_id = ${clientId} and expires_at > now()
    returning role_id as "roleId"`;
  if (!p) return false;
  await tx`insert into user_and_clients (user_id, client_id, role_id) values (${userId}, ${clientId}, ${p.roleId}) on conflict (user_id, client_id) do nothing`;
  return true;
}

/** A person's live invitations, read as the owner (the inviting client is not theirs yet). */
export async function myInvitations(sql: Sql, userId: number): Promise<Invitation[]> {
  return sql<Invitation[]>`
    select p.client_id as "clientId", coalesce(c.name, 'a client') as "clientName", p.role_id as "roleId",
           nullif(trim(coalesce(i.first_name, '') || ' ' || coalesce(i.last_name, '')), '') as "invitedBy", p.expires_at as "expiresAt"
    from pending_memberships p
    left join clients c on c.id = p.client_id
    left join users i on i.id = p.invited_by_user_id
    where p.user_id = ${userId} and p.expires_at > now()
    order by p.created_at`;
}

/** Turns the caller's invitation to a client into the membership (app_accept_membership); its role, or null. */
/** Removes the caller's own live invitation of a client (app_decline_membership): true if there was one. */
export async function declineMembership(tx: Tx, clientId: number): Promise<boolean> {
  const [r] = await tx<{ declined: boolean }[]>`select app_decline_membership(${clientId}) as declined`;
  return r!.declined;
}

export async function acceptMembership(tx: Tx, clientId: number): Promise<number | null> {
  const [r] = await tx<{ role: number | null }[]>`select app_accept_membership(${clientId}) as role`;
  return r!.role;
}

export async function membershipRole(tx: Tx, userId: number, clientId: number): Promise<number | undefined> {
  const [r] = await tx<{ roleId: number }[]>`
    select role_id as "roleId" from user_and_clients where user_id = ${userId} and client_id = ${clientId}`;
  return r?.roleId;
}

export interface Inviter {
  email: string;
  firstName: string | null;
  lastName: string | null;
}

export async function inviter(tx: Tx, userId: number): Promise<Inviter> {
  const [r] = await tx<Inviter[]>`select email, first_name as "firstName", last_name as "lastName" from users where id = ${userId}`;
  return r ?? { email: "Ideally", firstName: null, lastName: null };
}

// ---- share links ----

export interface ShareLink {
  id: number;
  clientId: number;
  identifier: string;
  inviteType: "ProjectShare" | "Demo";
  projectId: number | null;
  /** Set for a link made for one person: only that email may use it. */
  email: string | null;
  invitedByUserId: number | null;
  invitedByName: string | null;
  expiresAt: Date | null;
  acceptedAt: Date | null;
  acceptedByUserId: number | null;
  expired: boolean;
  clientName: string;
  projectName: string | null;
  projectType: string | null;
  projectTypeId: number | null;
  /** The project exists and is not in the trash. */
  projectAvailable: boolean;
}

/** A share or demo link by its identifier (team invites are not registration links). */
export async function shareLink(sql: Sql, identifier: string, opts: { lock?: boolean } = {}): Promise<ShareLink | undefined> {
  const [r] = await sql<ShareLink[]>`
    select li.id, li.client_id as "clientId", li.identifier::text, li.invite_type as "inviteType", li.project_id as "projectId",
           li.email, li.invited_by_user_id as "invitedByUserId",
           nullif(trim(concat_ws(' ', iu.first_name, iu.last_name)), '') as "invitedByName",
           li.expires_at as "expiresAt", li.accepted_at as "acceptedAt", li.accepted_by_user_id as "acceptedByUserId",
           (li.expires_at is not null and li.expires_at <= now()) as expired,
           c.name as "clientName", p.project_name as "projectName", p.project_type as "projectType",
           p.project_type_id as "projectTypeId", (p.id is not null and p.deleted_at is null) as "projectAvailable"
    from link_invites li
    join clients c on c.id = li.client_id
    left join projects p on p.id = li.project_id and p.client_id = li.client_id
    left join users iu on iu.id = li.invited_by_user_id
    where li.identifier = ${identifier}::uuid and li.invite_type in ('ProjectShare', 'Demo')
    ${opts.lock ? sql`for update of li` : sql``}`;
  return r;
}

export async function shareLinkById(sql: Sql, id: number): Promise<ShareLink | undefined> {
  const [r] = await sql<{ identifier: string }[]>`select identifier::text from link_invites where id = ${id}`;
  return r ? shareLink(sql, r.identifier) : undefined;
}

/** The project share a link grants: one per project and email, updated when used again. */
export async function upsertProjectShare(tx: Tx, s: { clientId: number; projectId: number; userId: number; email: string; sharedByUserId: number | null; linkInviteId: number }): Promise<number> {
  const [r] = await tx<{ id: number }[]>`
    insert into project_shares (client_id, project_id, user_id, email, shared_by_user_id, link_invite_id, accepted_at)
    values (${s.clientId}, ${s.projectId}, ${s.userId}, ${s.email}, ${s.sharedByUserId}, ${s.linkInviteId}, now())
    on conflict (project_id, lower(email)) do update
      set user_id = excluded.user_id,
          accepted_at = coalesce(project_shares.accepted_at, excluded.accepted_at),
          link_invite_id = coalesce(project_shares.link_invite_id, excluded.link_invite_id)
    returning id`;
  return r!.id;
}

export async function markLinkAccepted(tx: Tx, linkId: number, userId: number): Promise<void> {
  await tx`update link_invites set accepted_at = coalesce(accepted_at, now()), accepted_by_user_id = coalesce(accepted_by_user_id, ${userId})
           where id = ${linkId}`;
}
