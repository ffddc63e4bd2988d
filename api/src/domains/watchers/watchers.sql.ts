// SQL of watchers: a project's watchers and a team's auto-watch setting. Every statement runs in
// the caller's tenant transaction (row-level security checks the client).
import type { Tx } from "../../db/client.ts";
import { jsonParam } from "../../db/params.ts";

export async function watcherIds(tx: Tx, projectId: number): Promise<number[]> {
  const rows = await tx<{ userId: number }[]>`
    select user_id as "userId" from project_watchers where project_id = ${projectId} order by user_id`;
  return rows.map((r) => r.userId);
}

/** The users among ids who are members of the client (directly or inherited) and not disabled. */
export async function membersAmong(tx: Tx, clientId: number, ids: number[]): Promise<number[]> {
  const rows = await tx<{ id: number }[]>`
    select u.id from users u
    where u.id = any(${ids}::int[]) and u.disabled_at is null and app_user_client_role(u.id, ${clientId}) is not null`;
  return rows.map((r) => r.id);
}

export async function addWatchers(tx: Tx, clientId: number, projectId: number, userIds: number[]): Promise<number[]> {
  if (userIds.length === 0) return [];
  const rows = await tx<{ userId: number }[]>`
    insert into project_watchers (client_id, project_id, user_id)
    select ${clientId}, ${projectId}, u from unnest(${userIds}::int[]) as u
    on conflict (project_id, user_id) do nothing
    returning user_id as "userId"`;
  return rows.map((r) => r.userId);
}

export async function removeWatchers(tx: Tx, projectId: number, userIds: number[]): Promise<number[]> {
  if (userIds.length === 0) return [];
  const rows = await tx<{ userId: number }[]>`
    delete from project_watchers where project_id = ${projectId} and user_id = any(${userIds}::int[])
    returning user_id as "userId"`;
  return rows.map((r) => r.userId);
}

export async function setAutoProjectWatch(tx: Tx, teamId: number, enabled: boolean): Promise<{ id: number; previous: boolean } | undefined> {
  const [r] = await tx<{ id: number; previous: boolean }[]>`
    update teams t set auto_project_watch = ${enabled}, updated_at = now()
    from teams old where old.id = t.id and t.id = ${teamId}
    returning t.id, old.auto_project_watch as previous`;
  return r;
}

export async function logTeamEvent(tx: Tx, e: { clientId: number; userId: number; event: string; data: Record<string, unknown> }): Promise<void> {
  await tx`
    insert into data_events_log (client_id, user_id, entity_type, entity_id, event, data)
    values (${e.clientId}, ${e.userId}, 'Team', ${e.clientId}, ${e.event}, ${jsonParam(tx, e.data)})`;
}
