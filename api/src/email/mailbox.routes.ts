// GET /api/v1/DevMailbox: the emails in the outbox, for provider staff. In development (no SMTP)
// it is how an invite or reset link is read; with SMTP it lists the same outbox as an audit, with
// tokens redacted.
import { z } from "@hono/zod-openapi";
import type { App, AppDeps } from "../app.ts";
import { access } from "../access/policy.ts";
import { addRoute, commonErrors } from "../openapi.ts";
import { listMailbox } from "./mailbox.service.ts";

const MailboxEmail = z
  .object({
    id: z.number().int(),
    to: z.string(),
    subject: z.string(),
    text: z.string(),
    html: z.string(),
    template: z.string().describe("teamInvite, teamInviteExisting, signInFailures, passwordReset, registrationVerify, registrationExistingAccount"),
    links: z.array(z.string()).describe("The links in the email (tokens redacted when SMTP delivered it)"),
    createdAt: z.string(),
    sentAt: z.string().nullable().describe("When the SMTP server accepted it; null without SMTP"),
    error: z.string().nullable().describe("Why SMTP delivery failed"),
  })
  .openapi("MailboxEmail");

const Query = z.object({
  to: z.string().max(320).optional().describe("Only emails to this address (case-insensitive)"),
  top: z.coerce.number().int().min(1).max(100).optional().describe("How many, newest first (default 20, at most 100)"),
});

export function registerMailboxRoutes(app: App, deps: AppDeps): void {
  addRoute(
    app,
    {
      access: access.staff,
      method: "get",
      path: "/api/v1/DevMailbox",
      tags: ["DevMailbox"],
      operationId: "DevMailbox_list",
      summary: "Recent emails of the outbox (staff)",
      description:
        "Every email the product sends is written to the outbox. Without SMTP_URL (development) this is where invite, " +
        "reset and registration links are read; with SMTP it is the audit of what was sent, with tokens redacted.",
      request: { query: Query },
      responses: {
        200: { description: "Newest first", content: { "application/json": { schema: z.object({ value: z.array(MailboxEmail) }) } } },
        ...commonErrors,
      },
    },
    async (c) => c.json({ value: await listMailbox(deps.db, c.get("ctx"), c.req.valid("query") as z.infer<typeof Query>) }, 200),
  );
}
