// SQL of the email outbox. Writes run as the owner (the mailer is not a tenant); the dev mailbox
// reads in a staff tenant transaction, where row-level security shows the outbox to staff only.
import type { Db, Tx } from "../db/client.ts";

type Sql = Db | Tx;

export interface OutboxRow {
  to: string;
  subject: string;
  text: string;
  html: string;
  template: string;
}

export async function insertOutbox(db: Sql, r: OutboxRow): Promise<number> {
  const [row] = await db<{ id: number }[]>`
    insert into email_outbox ("to", subject, text, html, template)
    values (${r.to}, ${r.subject}, ${r.text}, ${r.html}, ${r.template})
    returning id::int`;
  return row!.id;
}

export async function markSent(db: Sql, id: number): Promise<void> {
  await db`update email_outbox set sent_at = now(), error = null where id = ${id}`;
}

export async function markFailed(db: Sql, id: number, error: string): Promise<void> {
  await db`update email_outbox set error = ${error.slice(0, 2000)} where id = ${id}`;
}

export interface MailboxEmail {
  id: number;
  to: string;
  subject: string;
  text: string;
  html: string;
  template: string;
  createdAt: Date;
  sentAt: Date | null;
  error: string | null;
}

export async function recentEmails(tx: Tx, to: string | undefined, top: number): Promise<MailboxEmail[]> {
  return tx<MailboxEmail[]>`
    select id::int, "to", subject, text, html, template, created_at as "createdAt", sent_at as "sentAt", error
    from email_outbox
    where ${to === undefined ? tx`true` : tx`lower("to") = lower(${to})`}
    order by created_at desc, id desc
    limit ${top}`;
}
