// Sending email. The Mailer interface is what services use; this file is Web-standard (it runs on
// Deno too). The outbox mailer keeps every email in email_outbox, which is the delivery when no
// SMTP server is configured (development: the dev mailbox reads it, and the server log names the
// recipient, subject and links). The SMTP mailer (smtp.ts, Node's net/tls through nodemailer)
// is wired in by the Bun server.
import type { Db } from "../db/client.ts";
import * as q from "./email.sql.ts";

export interface Email {
  to: string;
  subject: string;
  text: string;
  html: string;
  /** Which template made it (kept in the outbox). */
  template: string;
  /** The links in the email (named in the development log line). */
  links: string[];
  /** Values that grant access (tokens); kept out of the outbox whenever SMTP is the delivery. */
  secrets: string[];
}

export interface Mailer {
  /** Where links in emails point: the web app as its users reach it (PUBLIC_URL). */
  readonly publicUrl: string;
  /**
   * Sends an email. Resolves once it is in the outbox; SMTP delivery may finish later (its
   * outcome is recorded on the outbox row), so a slow mail server never slows a request down.
   */
  send(email: Email): Promise<void>;
  /** Waits for deliveries still under way (shutdown, tests). */
  close(): Promise<void>;
}

export interface OutboxOptions {
  publicUrl?: string;
  /** Development: one line per email naming recipient, subject and links. Never in production. */
  log?: (line: string) => void;
}

/** Where links point when nobody configured it (apps built without a mailer, e.g. under Deno). */
export const DEFAULT_PUBLIC_URL = "http://localhost:3000";

export function logLine(e: Email, how: string): string {
  return `[mail] ${how} to ${e.to}: "${e.subject}"${e.links.length ? ` ${e.links.join(" ")}` : ""}`;
}

/** Every email goes to the outbox, whole: without SMTP it is the only way the email is read. */
export function outboxMailer(db: Db, opts: OutboxOptions = {}): Mailer {
  return {
    publicUrl: (opts.publicUrl ?? DEFAULT_PUBLIC_URL).replace(/\/+$/, ""),
    async send(email) {
      await q.insertOutbox(db, email);
      opts.log?.(logLine(email, "outbox"));
    },
    async close() {},
  };
}

/** The email with each secret replaced, for an outbox that is only the audit. */
export function redact(email: Email): Email {
  let { text, html } = email;
  for (const s of email.secrets) {
    if (!s) continue;
    text = text.split(s).join("[redacted]");
    html = html.split(s).join("[redacted]");
  }
  return { ...email, text, html, links: email.links.map((l) => email.secrets.reduce((acc, s) => (s ? acc.split(s).join("[redacted]") : acc), l)) };
}
