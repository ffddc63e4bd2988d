// SQL of the notifications domain: a person's own notifications (every statement names the user:
// staff working across clients see every row under row-level security, so the filter is ours).
import type { Db, Tx } from "../../db/client.ts";
import { jsonParam } from "../../db/params.ts";

type Sql = Db | Tx;

export interface NotificationRow {
  id: number;
  userId: number;
  clientId: number | null;
  notificationTypeId: number;
  type: string;
  title: string;
  body: string | null;
  projectId: number | null;
  url: string | null;
  data: Record<string, unknown>;
  isRead: boolean;
  readAt: string | null;
  createdAt: string;
}

const ISO = (col: string) => `to_char(${col} at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')`;

export async function listOwn(sql: Sql, userId: number, page: { top: number; skip: number; unreadOnly: boolean; sinceId?: number | null }): Promise<NotificationRow[]> {
  return sql<NotificationRow[]>`
    select n.id, n.user_id as "userId", n.client_id as "clientId", n.notification_type_id as "notificationTypeId",
           t.name as type, n.title, n.body, n.project_id as "projectId", n.url, n.data,
           (n.read_at is not null) as "isRead",
           ${sql.unsafe(ISO("n.read_at"))} as "readAt", ${sql.unsafe(ISO("n.created_at"))} as "createdAt"
    from notifications n
    join notification_types t on t.id = n.notification_type_id
    where n.user_id = ${userId} ${page.unreadOnly ? sql`and n.read_at is null` : sql``}
      ${page.sinceId != null ? sql`and n.id > ${page.sinceId}` : sql``}
    order by n.created_at desc, n.id desc
    limit ${page.top} offset ${page.skip}`;
}

export async function counts(sql: Sql, userId: number): Promise<{ total: number; unread: number }> {
  const [r] = await sql<{ total: number; unread: number }[]>`
    select count(*)::int as total, (count(*) filter (where read_at is null))::int as unread
    from notifications where user_id = ${userId}`;
  return r ?? { total: 0, unread: 0 };
}

/** Marks the user's own notifications read (ids not theirs are ignored); answers how many changed. */
export async function markRead(sql: Sql, userId: number, ids: number[] | "all"): Promise<number[]> {
  const rows = await sql<{ id: number }[]>`
    update notifications set read_at = now(), updated_at = now()
    where user_id = ${userId} and read_at is null ${ids === "all" ? sql`` : sql`and id = any(${ids}::int[])`}
    returning id`;
  return rows.map((r) => r.id);
}

export async function typeById(sql: Sql, id: number): Promise<{ id: number; name: string; defaultTitle: string } | undefined> {
  const [r] = await sql<{ id: number; name: string; defaultTitle: string }[]>`
    select id, name, default_title as "defaultTitle" from notification_types where id = ${id}`;
  return r;
}

export async function typeByName(sql: Sql, name: string): Promise<{ id: number; name: string; defaultTitle: string } | undefined> {
  const [r] = await sql<{ id: number; name: string; defaultTitle: string }[]>`
    select id, name, default_title as "defaultTitle" from notification_types where name = ${name}`;
  return r;
}

export async function userExists(sql: Sql, id: number): Promise<boolean> {
  const [r] = await sql<{ n: number }[]>`select count(*)::int as n from users where id = ${id}`;
  return (r?.n ?? 0) > 0;
}

export async function insert(
  sql: Sql,
  n: { userId: number; clientId: number | null; typeId: number; title: string; body: string | null; projectId: number | null; url: string | null; data: Record<string, unknown> },
): Promise<number> {
  const [r] = await sql<{ id: number }[]>`
    insert into notifications (user_id, client_id, notification_type_id, title, body, project_id, url, data)
    values (${n.userId}, ${n.clientId}, ${n.typeId}, ${n.title}, ${n.body}, ${n.projectId}, ${n.url}, ${jsonParam(sql, n.data)})
    returning id`;
  return r!.id;
}

/** The notification a job already raised (data.jobId), for handlers that must raise it once. */
export async function idByJob(sql: Sql, userId: number, jobId: string): Promise<number | undefined> {
  const [r] = await sql<{ id: number }[]>`select id from notifications where user_id = ${userId} and data->>'jobId' = ${jobId} limit 1`;
  return r?.id;
}

export async function byId(sql: Sql, id: number): Promise<NotificationRow | undefined> {
  const [r] = await sql<NotificationRow[]>`
    select n.id, n.user_id as "userId", n.client_id as "clientId", n.notification_type_id as "notificationTypeId",
           t.name as type, n.title, n.body, n.project_id as "projectId", n.url, n.data,
           (n.read_at is not null) as "isRead",
           ${sql.unsafe(ISO("n.read_at"))} as "readAt", ${sql.unsafe(ISO("n.created_at"))} as "createdAt"
    from notifications n join notification_types t on t.id = n.notification_type_id where n.id = ${id}`;
  return r;
}
