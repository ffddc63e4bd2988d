// The dev mailbox: recent emails of the outbox, read in a staff tenant transaction (row-level
// security on email_outbox shows it to staff only).
import { enterTenant } from "../access/policy.ts";
import type { RequestCtx } from "../access/principal.ts";
import type { Db } from "../db/client.ts";
import * as q from "./email.sql.ts";

const LINK = /https?:\/\/[^\s"'<>]+/g;

export async function listMailbox(db: Db, ctx: RequestCtx, input: { to?: string; top?: number }) {
  const rows = await enterTenant(db, ctx, (tx) => q.recentEmails(tx, input.to, input.top ?? 20));
  return rows.map((r) => ({
    ...r,
    links: [...new Set(r.text.match(LINK) ?? [])],
    createdAt: r.createdAt.toISOString(),
    sentAt: r.sentAt?.toISOString() ?? null,
  }));
}
