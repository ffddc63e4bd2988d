// Email: templates (text and HTML, escaped), the outbox (always written; the delivery without
// SMTP), SMTP delivery to a server this test runs on loopback, the dev mailbox for staff, and
// the SMTP_URL / MAIL_FROM configuration.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { createServer, type Server } from "node:net";
import { createTestDb, type TestDb } from "../helpers/db.ts";
import { call, testApp } from "../helpers/app.ts";
import type { App } from "../../api/src/app.ts";
import { outboxMailer } from "../../api/src/email/mailer.ts";
import { createMailer, smtpMailer } from "../../api/src/email/smtp.ts";
import { escapeHtml, passwordReset, teamInvite } from "../../api/src/email/templates.ts";
import { readConfig } from "../../api/src/config.ts";

let tdb: TestDb;
let app: App;
beforeAll(async () => {
  tdb = await createTestDb();
  app = testApp(tdb.db);
});
afterAll(async () => {
  await tdb.drop();
});

/** A minimal SMTP server on loopback that records each message's envelope and DATA. */
interface Received {
  from: string;
  to: string[];
  data: string;
}
async function smtpServer(): Promise<{ port: number; received: Received[]; close: () => Promise<void> }> {
  const received: Received[] = [];
  const server: Server = createServer((sock) => {
    let buf = "";
    let inData = false;
    let envelope: Received = { from: "", to: [], data: "" };
    sock.write("220 test.local ESMTP\r\n");
    sock.on("data", (chunk) => {
      buf += chunk.toString("utf8");
      for (;;) {
        if (inData) {
          const end = buf.indexOf("\r\n.\r\n");
          if (end < 0) return;
          envelope.data = buf.slice(0, end);
          buf = buf.slice(end + 5);
          inData = false;
          received.push(envelope);
          envelope = { from: "", to: [], data: "" };
          sock.write("250 2.0.0 queued\r\n");
          continue;
        }
        const nl = buf.indexOf("\r\n");
        if (nl < 0) return;
        const line = buf.slice(0, nl);
        buf = buf.slice(nl + 2);
        const verb = line.slice(0, 4).toUpperCase();
        if (verb === "EHLO" || verb === "HELO") sock.write("250-test.local\r\n250 8BITMIME\r\n");
        else if (verb === "MAIL") {
          envelope.from = line;
          sock.write("250 2.1.0 ok\r\n");
        } else if (verb === "RCPT") {
          envelope.to.push(line);
          sock.write("250 2.1.5 ok\r\n");
        } else if (verb === "DATA") {
          inData = true;
          sock.write("354 go ahead\r\n");
        } else if (verb === "QUIT") sock.end("221 bye\r\n");
        else sock.write("250 ok\r\n");
      }
    });
    sock.on("error", () => {});
  });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  const port = (server.address() as { port: number }).port;
  return { port, received, close: () => new Promise<void>((r) => server.close(() => r())) };
}

/** The message body as sent: quoted-printable soft breaks and escapes undone. */
const decodeQp = (s: string) => s.replace(/=\r\n/g, "").replace(/=([0-9A-F]{2})/g, (_m, h: string) => String.fromCharCode(parseInt(h, 16)));

describe("templates", () => {
  test("text and HTML from one message; every value is escaped in the HTML", () => {
    const e = teamInvite({
      to: "new@acme.test",
      inviter: { firstName: "Ada", lastName: "<b>Admin</b>", email: "admin@acme.test" },
      clientName: `Acme "R&D" <script>alert(1)</script>`,
      url: "http://ideally.test/auth/accept-invite?token=abc&x=<y>",
      token: "abc",
      expiresDays: 7,
    });
    expect(e.subject).toContain(`Acme "R&D" <script>`);
    expect(e.text, "plain text keeps the values as typed").toContain(`Ada <b>Admin</b> has invited you to join Acme "R&D" <script>alert(1)</script>`);
    expect(e.text).toContain("Accept the invitation: http://ideally.test/auth/accept-invite?token=abc&x=<y>");
    expect(e.html, "no markup from values").not.toContain("<script>");
    expect(e.html).not.toContain("<b>Admin");
    expect(e.html).toContain("Acme &quot;R&amp;D&quot; &lt;script&gt;alert(1)&lt;/script&gt;");
    expect(e.html).toContain('href="http://ideally.test/auth/accept-invite?token=abc&amp;x=&lt;y&gt;"');
    expect(e.links).toEqual(["http://ideally.test/auth/accept-invite?token=abc&x=<y>"]);
    expect(e.secrets).toEqual(["abc"]);
    expect(escapeHtml(`'"&<>`)).toBe("&#39;&quot;&amp;&lt;&gt;");
  });
});

describe("the outbox without SMTP", () => {
  test("every email is kept whole and the development log names recipient, subject and link", async () => {
    const lines: string[] = [];
    const m = outboxMailer(tdb.db, { publicUrl: "http://ideally.test/", log: (l) => lines.push(l) });
    expect(m.publicUrl, "trailing slash trimmed").toBe("http://ideally.test");
    await m.send(passwordReset({ to: "Outbox@Acme.test", url: "http://ideally.test/auth/reset-password?token=tok123", token: "tok123", expiresMinutes: 60 }));
    const [row] = await tdb.db`select "to", subject, text, html, template, sent_at, error from email_outbox where "to" = 'Outbox@Acme.test'`;
    expect(row!.template).toBe("passwordReset");
    expect(row!.text, "without SMTP the outbox is the delivery: the link works").toContain("token=tok123");
    expect(row!.html).toContain("token=tok123");
    expect(row!.sent_at, "not sent by SMTP").toBeNull();
    expect(row!.error).toBeNull();
    expect(lines).toEqual(['[mail] outbox to Outbox@Acme.test: "Reset your Ideally password" http://ideally.test/auth/reset-password?token=tok123']);
  });

  test("createMailer without SMTP_URL is the outbox mailer", async () => {
    const m = createMailer(tdb.db, { from: "Ideally <no-reply@ideally.test>", publicUrl: "http://ideally.test" });
    await m.send(passwordReset({ to: "plain@acme.test", url: "http://ideally.test/x?token=t1", token: "t1", expiresMinutes: 60 }));
    const [row] = await tdb.db`select text from email_outbox where "to" = 'plain@acme.test'`;
    expect(row!.text).toContain("token=t1");
  });
});

describe("SMTP delivery", () => {
  test("the email reaches the SMTP server; the outbox keeps the audit with the token redacted", async () => {
    const smtp = await smtpServer();
    const lines: string[] = [];
    try {
      const m = smtpMailer(tdb.db, {
        smtpUrl: `smtp://127.0.0.1:${smtp.port}`,
        from: "Ideally <no-reply@ideally.test>",
        publicUrl: "http://ideally.test",
        log: (l) => lines.push(l),
      });
      const token = "SecretToken_abc-123";
      await m.send(passwordReset({ to: "smtp@acme.test", url: `http://ideally.test/auth/reset-password?token=${token}`, token, expiresMinutes: 60 }));
      await m.close();

      expect(smtp.received.length, "one message delivered").toBe(1);
      const msg = smtp.received[0]!;
      expect(msg.from).toContain("<no-reply@ideally.test>");
      expect(msg.to.join()).toContain("<smtp@acme.test>");
      expect(msg.data).toContain("Subject: Reset your Ideally password");
      expect(msg.data).toMatch(/multipart\/alternative/);
      expect(msg.data).toContain("text/plain");
      expect(msg.data).toContain("text/html");
      expect(decodeQp(msg.data), "the delivered email carries the working link").toContain(`reset-password?token=${token}`);

      const [row] = await tdb.db`select text, html, sent_at, error from email_outbox where "to" = 'smtp@acme.test'`;
      expect(row!.sent_at, "sent_at records the SMTP server's acceptance").not.toBeNull();
      expect(row!.error).toBeNull();
      expect(row!.text, "the audit copy never holds the token").not.toContain(token);
      expect(row!.html).not.toContain(token);
      expect(row!.text).toContain("token=[redacted]");
      expect(lines.some((l) => l.startsWith("[mail] sent to smtp@acme.test"))).toBe(true);
    } finally {
      await smtp.close();
    }
  });

  test("a failed delivery is recorded on the outbox row and does not fail the sender", async () => {
    const smtp = await smtpServer();
    const port = smtp.port;
    await smtp.close(); // nothing listens there now
    const m = smtpMailer(tdb.db, { smtpUrl: `smtp://127.0.0.1:${port}`, from: "Ideally <no-reply@ideally.test>", publicUrl: "http://ideally.test" });
    await m.send(passwordReset({ to: "down@acme.test", url: "http://ideally.test/x?token=zzz", token: "zzz", expiresMinutes: 60 }));
    await m.close();
    const [row] = await tdb.db`select sent_at, error, text from email_outbox where "to" = 'down@acme.test'`;
    expect(row!.sent_at).toBeNull();
    expect(row!.error, "why it failed").toBeTruthy();
    expect(row!.text).not.toContain("zzz");
  });
});

describe("the dev mailbox", () => {
  test("staff read recent emails, newest first, filtered by recipient; links are listed", async () => {
    const m = outboxMailer(tdb.db, { publicUrl: "http://ideally.test" });
    await m.send(passwordReset({ to: "box@acme.test", url: "http://ideally.test/auth/reset-password?token=first", token: "first", expiresMinutes: 60 }));
    await m.send(passwordReset({ to: "BOX@acme.test", url: "http://ideally.test/auth/reset-password?token=second", token: "second", expiresMinutes: 60 }));
    const res = await call(app, "ops", null, "GET", "/api/v1/DevMailbox?to=box@acme.test");
    expect(res.status).toBe(200);
    expect(
      res.body.value.map((e: { links: string[] }) => e.links[0]),
      "newest first, case-insensitive recipient",
    ).toEqual(["http://ideally.test/auth/reset-password?token=second", "http://ideally.test/auth/reset-password?token=first"]);
    const one = res.body.value[0];
    expect(Object.keys(one).sort()).toEqual(["createdAt", "error", "html", "id", "links", "sentAt", "subject", "template", "text", "to"]);
    const top = await call(app, "staff", 1003, "GET", "/api/v1/DevMailbox?top=1");
    expect(top.status, "staff with a clientId header too").toBe(200);
    expect(top.body.value.length).toBe(1);
  });

  test("members are refused; a bad top is a 400", async () => {
    for (const who of ["acmeAdmin", "acmeUser", "acmeViewer"] as const) {
      expect((await call(app, who, 1003, "GET", "/api/v1/DevMailbox")).status, who).toBe(403);
    }
    expect((await call(app, null, null, "GET", "/api/v1/DevMailbox")).status).toBe(401);
    expect((await call(app, "ops", null, "GET", "/api/v1/DevMailbox?top=1000")).status).toBe(400);
  });

  test("row-level security: the app role sees the outbox only as staff", async () => {
    const rows = await tdb.db.begin(async (tx) => {
      await tx.unsafe("set local role ideally_app");
      await tx`select set_config('app.user_id', '9003', true)`;
      return tx`select count(*)::int as n from email_outbox`;
    });
    expect(rows[0]!.n, "a member reading the table directly sees nothing").toBe(0);
    const staff = await tdb.db.begin(async (tx) => {
      await tx.unsafe("set local role ideally_app");
      await tx`select set_config('app.user_id', '9002', true)`;
      return tx`select count(*)::int as n from email_outbox`;
    });
    expect(staff[0]!.n, "staff do").toBeGreaterThan(0);
  });
});

describe("configuration", () => {
  test("SMTP_URL must be smtp(s)://; MAIL_FROM defaults to no-reply at the public host", () => {
    expect(() => readConfig({ SMTP_URL: "http://mail.example.com" })).toThrow("SMTP_URL must be an smtp:// or smtps:// URL");
    expect(() => readConfig({ MAIL_FROM: "nobody" })).toThrow("MAIL_FROM");
    const cfg = readConfig({ SMTP_URL: "smtps://user:pw@mail.example.com:465", PUBLIC_URL: "https://app.ideally.example" });
    expect(cfg.smtpUrl).toBe("smtps://user:pw@mail.example.com:465");
    expect(cfg.mailFrom).toBe("Ideally <no-reply@app.ideally.example>");
    expect(readConfig({}).smtpUrl).toBeUndefined();
    expect(readConfig({ MAIL_FROM: "Research <research@acme.test>" }).mailFrom).toBe("Research <research@acme.test>");
  });
});
