// The SMTP mailer (nodemailer, Node's net/tls: an adapter at the edge, wired in by server.ts).
// Every email is still written to the outbox first, as the audit of what was sent; since SMTP is
// then the delivery, the outbox copy has its tokens redacted, so reading the database never
// yields a working reset or invite link. Delivery runs after send() resolves and records its
// outcome (sent_at or error) on the outbox row. A failed delivery is not retried: the person asks
// again (ForgotPassword, ResendInvite), which makes a fresh token anyway.
import nodemailer from "nodemailer";
import type SMTPTransport from "nodemailer/lib/smtp-transport";
import type { Db } from "../db/client.ts";
import * as q from "./email.sql.ts";
import { logLine, outboxMailer, redact, type Mailer } from "./mailer.ts";

export interface MailerConfig {
  /** smtp://user:pass@host:587 or smtps://...:465; unset: the outbox is the delivery. */
  smtpUrl?: string;
  /** The From header, e.g. `Ideally <no-reply@example.com>`. */
  from: string;
  publicUrl: string;
  /** Development only: a line per email naming recipient, subject and links. */
  log?: (line: string) => void;
}

export function createMailer(db: Db, cfg: MailerConfig): Mailer {
  if (!cfg.smtpUrl) return outboxMailer(db, { publicUrl: cfg.publicUrl, log: cfg.log });
  return smtpMailer(db, { ...cfg, smtpUrl: cfg.smtpUrl });
}

export function smtpMailer(db: Db, cfg: MailerConfig & { smtpUrl: string }): Mailer {
  const options: SMTPTransport.Options = {
    url: cfg.smtpUrl,
    // Bounded waits: a mail server that hangs must not pile up deliveries.
    connectionTimeout: 10_000,
    greetingTimeout: 10_000,
    socketTimeout: 20_000,
  };
  const transport = nodemailer.createTransport(options);
  const inFlight = new Set<Promise<void>>();

  async function deliver(id: number, email: Parameters<Mailer["send"]>[0]): Promise<void> {
    try {
      await transport.sendMail({ from: cfg.from, to: email.to, subject: email.subject, text: email.text, html: email.html });
      await q.markSent(db, id);
      cfg.log?.(logLine(email, "sent"));
    } catch (e) {
      const message = (e as Error).message ?? String(e);
      await q.markFailed(db, id, message).catch(() => {});
      cfg.log?.(`[mail] delivery to ${email.to} failed: ${message}`);
    }
  }

  return {
    publicUrl: cfg.publicUrl.replace(/\/+$/, ""),
    async send(email) {
      const id = await q.insertOutbox(db, redact(email));
      const p = deliver(id, email).finally(() => inFlight.delete(p));
      inFlight.add(p);
    },
    async close() {
      while (inFlight.size) await Promise.allSettled([...inFlight]);
    },
  };
}
