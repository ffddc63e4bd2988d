// SQL of sharing: project shares, the share links made for outside emails, and their audit. Every
// statement runs in the sharer's tenant transaction (row-level security checks the client).
import type { Tx } from "../../db/client.ts";

export interface ShareRow {
  id: number;
  clientId: number;
  projectId: number;
  userId: number | null;
  email: string;
  linkInviteId: number | null;
  acceptedAt: Date | null;
}

export async function shareByEmail(tx: Tx, projectId: number, email: string): Promise<ShareRow | undefined> {
  const [r] = await tx<ShareRow[]>`
    select id, client_id as "clientId", project_id as "projectId", user_id as "userId", email,
           link_invite_id as "linkInviteId", accepted_at as "acceptedAt"
    from project_shares where project_id = ${projectId} and lower(email) = lower(${email})`;
  return r;
}

/** A share with a person who has an account: readable to them at once (migration 0013). */
export async function upsertUserShare(tx: Tx, s: { clientId: number; projectId: number; userId: number; email: string; sharedByUserId: number }): Promise<number> {
  const [r] = await tx<{ id: number }[]>`
    insert into project_shares (client_id, project_id, user_id, email, shared_by_user_id, accepted_at)
    values (${s.clientId}, ${s.projectId}, ${s.userId}, ${s.email}, ${s.sharedByUserId}, now())
    on conflict (project_id, lower(email)) do update
      set user_id = excluded.user_id, shared_by_user_id = excluded.shared_by_user_id,
          accepted_at = coalesce(project_shares.accepted_at, excluded.accepted_at), updated_at = now()
    returning id`;
  return r!.id;
}

/** A pending share with an outside email: user_id is set when they register through the link. */
export async function upsertPendingShare(tx: Tx, s: { clientId: number; projectId: number; email: string; sharedByUserId: number; linkInviteId: number }): Promise<number> {
  const [r] = await tx<{ id: number }[]>`
    insert into project_shares (client_id, project_id, email, shared_by_user_id, link_invite_id)
    values (${s.clientId}, ${s.projectId}, ${s.email}, ${s.sharedByUserId}, ${s.linkInviteId})
    on conflict (project_id, lower(email)) do update
      set link_invite_id = excluded.link_invite_id, shared_by_user_id = excluded.shared_by_user_id, updated_at = now()
    returning id`;
  return r!.id;
}

/**
 * The share link for one outside email and project: the live one (not accepted, not expired) gets
 * a fresh expiry; otherwise a new one. One live link per email and project.
 */
export async function shareLinkFor(tx: Tx, s: { clientId: number; projectId: number; email: string; invitedByUserId: number; ttlDays: number }): Promise<{ id: number; identifier: string }> {
  const [live] = await tx<{ id: number; identifier: string }[]>`
    update link_invites set expires_at = now() + make_interval(days => ${s.ttlDays}), invited_by_user_id = ${s.invitedByUserId}, updated_at = now()
    where id = (
      select id from link_invites
      where client_id = ${s.clientId} and project_id = ${s.projectId} and invite_type = 'ProjectShare'
        and lower(email) = lower(${s.email}) and accepted_at is null and (expires_at is null or expires_at > now())
      order by id desc limit 1)
    returning id, identifier::text`;
  if (live) return live;
  const [r] = await tx<{ id: number; identifier: string }[]>`
    insert into link_invites (client_id, invite_type, project_id, email, invited_by_user_id, expires_at)
    values (${s.clientId}, 'ProjectShare', ${s.projectId}, ${s.email}, ${s.invitedByUserId}, now() + make_interval(days => ${s.ttlDays}))
    returning id, identifier::text`;
  return r!;
}

export async function lockShare(tx: Tx, id: number): Promise<ShareRow | undefined> {
  const [r] = await tx<ShareRow[]>`
    select id, client_id as "clientId", project_id as "projectId", user_id as "userId", email,
           link_invite_id as "linkInviteId", accepted_at as "acceptedAt"
    from project_shares
    where id = ${id} and ((select app_all_clients()) or client_id = any((select app_client_ids())::int[]))
    for update`;
  return r;
}

export async function deleteShare(tx: Tx, id: number): Promise<void> {
  await tx`delete from project_shares where id = ${id}`;
}

/** Withdraws the share's link for one email, so it can no longer register anyone. */
export async function deleteEmailLinks(tx: Tx, projectId: number, email: string): Promise<number[]> {
  const rows = await tx<{ id: number }[]>`
    delete from link_invites
    where project_id = ${projectId} and invite_type = 'ProjectShare' and lower(email) = lower(${email})
    returning id`;
  return rows.map((r) => r.id);
}
