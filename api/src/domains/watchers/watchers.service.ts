// Project watchers (SPEC 7 Projects UpdateWatchers, StartWatching, StopWatching; Teams
// UpdateAutoProjectWatch). A change, its DataEventsLog row and its ProjectUpdated event are one
// transaction. Watchers hear of their project's status changes through migration 0018's trigger
// on StatusChanged log rows; a team's auto-watch adds its members to each project created in it
// (the trigger on projects in the same migration).
import type { Db, Tx } from "../../db/client.ts";
import type { RequestCtx } from "../../access/principal.ts";
import { enterTenant } from "../../access/policy.ts";
import { ApiError } from "../../errors.ts";
import { clientChannel, publish } from "../../jobs/channel.ts";
import * as lq from "../lifecycle/lifecycle.sql.ts";
import * as q from "./watchers.sql.ts";

export interface WatchersResult {
  projectId: number;
  userIds: number[];
  added: number[];
  removed: number[];
}

/** The project (one of the request's own clients', not in the trash), locked. */
async function project(tx: Tx, projectId: number): Promise<lq.ProjectRow> {
  const p = await lq.lockProject(tx, projectId);
  if (!p) throw new ApiError("NotFound", `Projects(${projectId}) not found`);
  return p;
}

async function record(tx: Tx, ctx: RequestCtx, p: lq.ProjectRow, event: string, added: number[], removed: number[]): Promise<WatchersResult> {
  const userIds = await q.watcherIds(tx, p.id);
  if (added.length || removed.length) {
    await lq.logEvent(tx, { clientId: p.clientId, userId: ctx.principal.userId, projectId: p.id, event, data: { added, removed } });
    await publish(tx, { channel: clientChannel(p.clientId), event: "ProjectUpdated", data: { projectId: p.id, watchers: userIds }, clientId: p.clientId });
  }
  return { projectId: p.id, userIds, added, removed };
}

/** Sets the project's watchers to exactly these users, who must be members of its client. */
export async function updateWatchers(db: Db, ctx: RequestCtx, projectId: number, userIds: number[]): Promise<WatchersResult> {
  const wanted = [...new Set(userIds)];
  return enterTenant(db, ctx, async (tx) => {
    const p = await project(tx, projectId);
    const members = new Set(await q.membersAmong(tx, p.clientId, wanted));
    const outsiders = wanted.filter((u) => !members.has(u));
    if (outsiders.length) {
      throw new ApiError(
        "ValidationError",
        `Only members of the project's team can watch it: ${outsiders.join(", ")}`,
        undefined,
        outsiders.map((u) => ({ path: `userIds`, message: `User ${u} is not a member of client ${p.clientId}` })),
      );
    }
    const current = await q.watcherIds(tx, p.id);
    const removed = await q.removeWatchers(
      tx,
      p.id,
      current.filter((u) => !members.has(u)),
    );
    const added = await q.addWatchers(
      tx,
      p.clientId,
      p.id,
      wanted.filter((u) => !current.includes(u)),
    );
    return record(tx, ctx, p, "WatchersUpdated", added, removed);
  });
}

export async function startWatching(db: Db, ctx: RequestCtx, projectId: number): Promise<WatchersResult> {
  return enterTenant(db, ctx, async (tx) => {
    const p = await project(tx, projectId);
    const added = await q.addWatchers(tx, p.clientId, p.id, [ctx.principal.userId]);
    return record(tx, ctx, p, "WatchersUpdated", added, []);
  });
}

export async function stopWatching(db: Db, ctx: RequestCtx, projectId: number): Promise<WatchersResult> {
  return enterTenant(db, ctx, async (tx) => {
    const p = await project(tx, projectId);
    const removed = await q.removeWatchers(tx, p.id, [ctx.principal.userId]);
    return record(tx, ctx, p, "WatchersUpdated", [], removed);
  });
}

export async function updateAutoProjectWatch(db: Db, ctx: RequestCtx, teamId: number, enabled: boolean): Promise<{ teamId: number; autoProjectWatch: boolean }> {
  return enterTenant(db, ctx, async (tx) => {
    const r = await q.setAutoProjectWatch(tx, teamId, enabled);
    if (!r) throw new ApiError("NotFound", `Teams(${teamId}) not found`);
    if (r.previous !== enabled) {
      await q.logTeamEvent(tx, { clientId: teamId, userId: ctx.principal.userId, event: "AutoProjectWatchChanged", data: { from: r.previous, to: enabled } });
    }
    return { teamId, autoProjectWatch: enabled };
  });
}
