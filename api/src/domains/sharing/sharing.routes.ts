// Sharing (SPEC 7): Projects({key})/Share and DELETE ProjectShares({key}) (replacing the generic
// delete, which would leave the share's link usable and write no audit row). Thin.
import { z } from "@hono/zod-openapi";
import type { App, AppDeps } from "../../app-types.ts";
import { access } from "../../access/policy.ts";
import { addRoute, commonErrors, errors } from "../../openapi.ts";
import { ApiError } from "../../errors.ts";
import { outboxMailer } from "../../email/mailer.ts";
import * as svc from "./sharing.service.ts";

const KeyParams = (set: string) =>
  z.object({
    key: z
      .string()
      .regex(/^-?\d{1,9}$/, "must be an integer")
      .openapi({ param: { name: "key", in: "path" }, description: `${set} key` }),
  });

const Share = z
  .strictObject({
    emails: z.array(z.string().trim().email().max(320)).min(1).max(50).describe("People to share with: accounts or outside emails"),
    message: z.string().trim().max(2000).optional().describe("A note for the email and notification"),
  })
  .openapi("ShareProject");
const ShareResult = z
  .object({
    projectId: z.number().int(),
    results: z.array(
      z.object({
        email: z.string(),
        status: z
          .enum(["shared", "invited", "alreadyShared", "member", "disabled"])
          .describe("shared: an account, readable now; invited: an outside email, sent a share link; member: already in the team; disabled: not shared"),
        projectShareId: z.number().int().nullable(),
        userId: z.number().int().nullable(),
        linkInviteId: z.number().int().nullable(),
      }),
    ),
  })
  .openapi("ShareProjectResult");

const Access = z
  .object({
    projectId: z.number().int(),
    clientId: z.number().int().describe("The project's own client (team)"),
    clientName: z.string(),
    shared: z.boolean().describe("Readable only through a share: the caller is not a member of the project's client"),
    sharedBy: z.string().nullable().describe("Who shared it with the caller"),
    roleId: z.number().int().nullable().describe("The caller's effective role on the project's client (1 Admin, 2 User, 3 Viewer); null when shared"),
    canWrite: z.boolean().describe("May change the project (rename, clone, objectives, filter sets, schedule, set-up)"),
  })
  .openapi("ProjectAccess");

export function registerSharingRoutes(app: App, deps: AppDeps): void {
  const d: svc.SharingDeps = { db: deps.db, mailer: deps.mailer ?? outboxMailer(deps.db, { publicUrl: deps.publicUrl }) };
  const keyOf = (raw: string) => {
    const k = Number(raw);
    if (!Number.isSafeInteger(k)) throw new ApiError("BadRequest", "The key must be an integer");
    return k;
  };

  addRoute(
    app,
    {
      access: access.user,
      method: "post",
      path: "/api/v1/Projects/{key}/Share",
      tags: ["Projects"],
      operationId: "Projects_Share",
      summary: "Share a project with people outside its team (read only)",
      description:
        "An email of an account: the project is readable to them at once, with a ProjectShared notification and an email. " +
        `Another email: a share link (valid ${svc.SHARE_LINK_DAYS} days, for that address only) is emailed to them; they register through it ` +
        "(VerifyRegistrationEmail, AcceptInvitation) and then see the project. Each share is audited ('Shared').",
      request: { params: KeyParams("Projects"), body: { required: true, content: { "application/json": { schema: Share } } } },
      responses: {
        200: { description: "What happened per email", content: { "application/json": { schema: ShareResult } } },
        ...commonErrors,
        404: errors[404],
      },
    },
    async (c) => c.json(await svc.share(d, c.get("ctx"), keyOf(c.req.valid("param").key), c.req.valid("json")), 200),
  );

  addRoute(
    app,
    {
      access: access.user,
      method: "delete",
      path: "/api/v1/ProjectShares/{key}",
      tags: ["ProjectShares"],
      operationId: "ProjectShares_delete",
      summary: "Revoke a project share",
      description: "The person can no longer read the project; the share's link for their email is withdrawn. Audited ('Unshared').",
      request: { params: KeyParams("ProjectShares") },
      responses: { 204: { description: "Revoked" }, ...commonErrors, 404: errors[404] },
    },
    async (c) => {
      await svc.revoke(d.db, c.get("ctx"), keyOf(c.req.valid("param").key));
      return c.body(null, 204);
    },
  );

  addRoute(
    app,
    {
      access: access.viewer,
      method: "get",
      path: "/api/v1/Projects/{key}/Access",
      tags: ["Projects"],
      operationId: "Projects_Access",
      summary: "What the caller may do with a project, and whose it is",
      description:
        "For pages that offer only what the role can do: canWrite (staff, or an Admin or User of the project's client; never a Viewer or a reader " +
        "of a project shared with them), the caller's role, and for a shared project the owning client's name and who shared it.",
      request: { params: KeyParams("Projects") },
      responses: { 200: { description: "The access", content: { "application/json": { schema: Access } } }, ...commonErrors, 404: errors[404] },
    },
    async (c) => c.json(await svc.projectAccess(d.db, c.get("ctx"), keyOf(c.req.valid("param").key)), 200),
  );
}
