// Sharing (SPEC 7 Projects Share, ProjectShares DELETE). A person with an account gets a
// project_shares row naming them, which makes the project readable to them at once (migration
// 0013), a ProjectShared notification and an email. An outside email gets a share link
// (link_invites of type ProjectShare, one live link per email and project) and a pending share;
// they register through the link (VerifyRegistrationEmail, AcceptInvitation), which fills in the
// share's user (invites.service.ts shareWith). The shares, links, their 'Shared' DataEventsLog
// rows, the notifications and the ProjectUpdated event are one transaction in the sharer's
// tenant; the emails go out after it commits.
import type { Db } from "../../db/client.ts";
import type { RequestCtx } from "../../access/principal.ts";
import type { Mailer } from "../../email/mailer.ts";
import type { Email } from "../../email/mailer.ts";
import { enterTenant } from "../../access/policy.ts";
import { ApiError } from "../../errors.ts";
import { clientChannel, publish } from "../../jobs/channel.ts";
import { link, projectShared, projectShareInvite } from "../../email/templates.ts";
import * as lq from "../lifecycle/lifecycle.sql.ts";
import * as iq from "../invites/invites.sql.ts";
import { raise } from "../notifications/notifications.service.ts";
import * as q from "./sharing.sql.ts";

/** How long a share link for an outside email stays usable. */
export const SHARE_LINK_DAYS = 30;

export interface SharingDeps {
  db: Db;
  mailer: Mailer;
}

export type ShareStatus = "shared" | "invited" | "alreadyShared" | "member" | "disabled";

export interface ShareOutcome {
  email: string;
  status: ShareStatus;
  projectShareId: number | null;
  userId: number | null;
  linkInviteId: number | null;
}

/** SPEC 2's page for a project a reader opens (results once there are any). */
function projectUrl(clientId: number, projectId: number, status: number): string {
  return status >= 400 ? `/${clientId}/results/${projectId}` : `/${clientId}/projects/${projectId}`;
}

export async function share(deps: SharingDeps, ctx: RequestCtx, projectId: number, input: { emails: string[]; message?: string }): Promise<{ projectId: number; results: ShareOutcome[] }> {
  const seen = new Set<string>();
  const emails = input.emails
    .map((e) => e.trim())
    .filter((e) => {
      if (seen.has(e.toLowerCase())) return false;
      seen.add(e.toLowerCase());
      return true;
    });
  const me = ctx.principal.userId;
  const out = await enterTenant(deps.db, ctx, async (tx) => {
    const p = await lq.lockProject(tx, projectId);
    if (!p) throw new ApiError("NotFound", `Projects(${projectId}) not found`);
    const clientName = (await iq.clientName(tx, p.clientId)) ?? "";
    const sharer = await iq.inviter(tx, me);
    const results: ShareOutcome[] = [];
    const mails: Email[] = [];
    for (const email of emails) {
      const person = await iq.personByEmail(tx, email);
      if (person?.disabled) {
        results.push({ email, status: "disabled", projectShareId: null, userId: person.id, linkInviteId: null });
        continue;
      }
      if (person && (await lq.userRole(tx, person.id, p.clientId)) !== null) {
        results.push({ email, status: "member", projectShareId: null, userId: person.id, linkInviteId: null });
        continue;
      }
      const before = await q.shareByEmail(tx, p.id, email);
      if (person) {
        if (before?.userId === person.id) {
          results.push({ email, status: "alreadyShared", projectShareId: before.id, userId: person.id, linkInviteId: before.linkInviteId });
          continue;
        }
        const shareId = await q.upsertUserShare(tx, { clientId: p.clientId, projectId: p.id, userId: person.id, email: person.email, sharedByUserId: me });
        const url = projectUrl(p.clientId, p.id, p.statusCode);
        await raise(tx, {
          userId: person.id,
          clientId: p.clientId,
          type: "ProjectShared",
          title: `${p.projectName} was shared with you`,
          body: input.message ?? null,
          projectId: p.id,
          url,
          data: { projectName: p.projectName, sharedByUserId: me, projectShareId: shareId },
        });
        await lq.logEvent(tx, { clientId: p.clientId, userId: me, projectId: p.id, event: "Shared", data: { email: person.email, userId: person.id, projectShareId: shareId } });
        results.push({ email, status: "shared", projectShareId: shareId, userId: person.id, linkInviteId: null });
        mails.push(projectShared({ to: person.email, sharer, clientName, projectName: p.projectName, message: input.message, url: link(deps.mailer.publicUrl, url) }));
        continue;
      }
      const l = await q.shareLinkFor(tx, { clientId: p.clientId, projectId: p.id, email, invitedByUserId: me, ttlDays: SHARE_LINK_DAYS });
      const shareId = await q.upsertPendingShare(tx, { clientId: p.clientId, projectId: p.id, email, sharedByUserId: me, linkInviteId: l.id });
      await lq.logEvent(tx, { clientId: p.clientId, userId: me, projectId: p.id, event: "Shared", data: { email, linkInviteId: l.id, projectShareId: shareId } });
      results.push({ email, status: "invited", projectShareId: shareId, userId: null, linkInviteId: l.id });
      mails.push(
        projectShareInvite({
          to: email,
          sharer,
          clientName,
          projectName: p.projectName,
          message: input.message,
          url: link(deps.mailer.publicUrl, "/invites/demo", { identifier: l.identifier }),
          expiresDays: SHARE_LINK_DAYS,
        }),
      );
    }
    if (results.some((r) => r.status === "shared" || r.status === "invited")) {
      await publish(tx, { channel: clientChannel(p.clientId), event: "ProjectUpdated", data: { projectId: p.id, shared: true }, clientId: p.clientId });
    }
    return { results, mails };
  });
  for (const m of out.mails) await deps.mailer.send(m);
  return { projectId, results: out.results };
}

/** Revokes a share: the person can no longer read the project, and an unused link stops working. */
export async function revoke(db: Db, ctx: RequestCtx, shareId: number): Promise<void> {
  await enterTenant(db, ctx, async (tx) => {
    const s = await q.lockShare(tx, shareId);
    if (!s) throw new ApiError("NotFound", `ProjectShares(${shareId}) not found`);
    await q.deleteShare(tx, s.id);
    const links = await q.deleteEmailLinks(tx, s.projectId, s.email);
    await lq.logEvent(tx, {
      clientId: s.clientId,
      userId: ctx.principal.userId,
      projectId: s.projectId,
      event: "Unshared",
      data: { projectShareId: s.id, email: s.email, userId: s.userId, withdrawnLinkInviteIds: links },
    });
    await publish(tx, { channel: clientChannel(s.clientId), event: "ProjectUpdated", data: { projectId: s.projectId, shared: false }, clientId: s.clientId });
  });
}

export interface ProjectAccess {
  projectId: number;
  /** The project's own client (team). */
  clientId: number;
  clientName: string;
  /** Readable only through a share: the caller is not a member of the project's client. */
  shared: boolean;
  /** Who shared it with the caller (a shared project), else null. */
  sharedBy: string | null;
  /** The caller's effective role on the project's client: 1 Admin, 2 User, 3 Viewer; null when shared. */
  roleId: number | null;
  /** May change the project: staff, or an Admin or User of its client. Viewers and shared readers read. */
  canWrite: boolean;
}

/**
 * What the caller may do with a project they can read, for pages that offer only what the role can
 * do, and the name of the client that owns a project shared with them.
 */
export async function projectAccess(db: Db, ctx: RequestCtx, projectId: number): Promise<ProjectAccess> {
  const seen = await enterTenant(db, ctx, async (tx) => {
    // Readable through the tenant (row-level security): own clients' projects and those shared with the caller.
    const [p] = await tx<{ clientId: number }[]>`select client_id as "clientId" from projects where id = ${projectId} and deleted_at is null`;
    if (!p) return null;
    const own = await lq.readProject(tx, projectId);
    const roleId = own ? await lq.userRole(tx, ctx.principal.userId, p.clientId) : null;
    return { clientId: p.clientId, own: !!own, roleId };
  });
  if (!seen) throw new ApiError("NotFound", `Projects(${projectId}) not found`);
  // As the owner: a shared reader cannot read the owning client's row; the check above is what
  // entitles them to its name and the sharer's (the two things the page labels the project with).
  const [info] = await db<{ clientName: string; sharedBy: string | null }[]>`
    select c.name as "clientName",
           (select coalesce(nullif(trim(concat_ws(' ', u.first_name, u.last_name)), ''), u.email)
              from project_shares s join users u on u.id = s.shared_by_user_id
             where s.project_id = ${projectId} and s.user_id = ${ctx.principal.userId}
             order by s.id desc limit 1) as "sharedBy"
    from clients c where c.id = ${seen.clientId}`;
  const shared = !seen.own;
  return {
    projectId,
    clientId: seen.clientId,
    clientName: info?.clientName ?? "",
    shared,
    sharedBy: shared ? (info?.sharedBy ?? null) : null,
    roleId: shared ? null : seen.roleId,
    canWrite: !shared && (ctx.principal.isStaff || seen.roleId === 1 || seen.roleId === 2),
  };
}
