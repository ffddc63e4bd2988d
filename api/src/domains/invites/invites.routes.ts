// Team invites (POST /Users, Users/{key}/ResendInvite) and share links (LinkInvites functions).
// POST /Users replaces the generic create: inviting is the only way a client gains a person.
import { z } from "@hono/zod-openapi";
import type { TypedResponse } from "hono";
import type { JSONParsed } from "hono/utils/types";
import type { App, AppDeps } from "../../app-types.ts";
import { access } from "../../access/policy.ts";
import { addRoute, commonErrors, errorResponse } from "../../openapi.ts";
import { schemasFor } from "../../entities/schemas.ts";
import { outboxMailer } from "../../email/mailer.ts";
import * as svc from "./invites.service.ts";

const InviteUser = z
  .strictObject({
    email: z.string().trim().email().max(320),
    firstName: z.string().trim().min(1).max(100).optional(),
    lastName: z.string().trim().min(1).max(100).optional(),
    roleId: z.union([z.literal(1), z.literal(2), z.literal(3)]).describe("The role on the client: 1 Admin, 2 User, 3 Viewer"),
  })
  .openapi("InviteUser");

const PendingInvitation = z
  .object({
    email: z.string(),
    pending: z.literal(true),
    clientId: z.number().int(),
    roleId: z.number().int(),
    expiresAt: z.string(),
  })
  .openapi("PendingInvitation");

const Invitation = z
  .object({
    clientId: z.number().int(),
    clientName: z.string(),
    roleId: z.number().int().describe("1 Admin, 2 User, 3 Viewer"),
    invitedBy: z.string().nullable(),
    expiresAt: z.string(),
  })
  .openapi("Invitation");

export const LinkLanding = z
  .object({
    identifier: z.string(),
    inviteType: z.enum(["ProjectShare", "Demo"]),
    clientName: z.string().describe("The client that shared the project"),
    invitedByName: z.string().nullable().describe("Who made the link, when known"),
    projectId: z.number().int().nullable(),
    projectName: z.string().nullable(),
    projectType: z.string().nullable().describe("Idea, Message, Question or Npd"),
    projectTypeId: z.number().int().nullable(),
    expired: z.boolean(),
    expiresAt: z.string().nullable(),
    forOneEmail: z.boolean().describe("The link was made for one email address; only that address may use it"),
  })
  .openapi("LinkLanding");

const keyParam = z.object({
  key: z
    .string()
    .regex(/^-?\d+$/, "must be an integer")
    .openapi({ param: { name: "key", in: "path" }, description: "Users key" }),
});

/**
 * A JSON text forwarded as is (the entity serializer's, as GET /Users({key}) shows the person),
 * typed as the answer of the schema S it follows. The one assertion here: Hono brands only the
 * answers of c.json() as TypedResponse, and a Response built by hand is a plain Response.
 */
const rawJson = <S extends z.ZodType, C extends 201>(_schema: S, raw: string, status: C) =>
  new Response(raw, { status, headers: { "content-type": "application/json; charset=utf-8" } }) as Response & TypedResponse<JSONParsed<z.output<S>>, C, "json">;

export function registerInviteRoutes(app: App, deps: AppDeps): void {
  registerInviteAndAccept(app, deps);
  registerDeclineAndResend(app, deps);
  registerAcceptShare(app, deps);
}

/** Users POST (an invite), MyInvitations and AcceptMembership. */
function registerInviteAndAccept(app: App, deps: AppDeps): void {
  const d: svc.InviteDeps = { db: deps.db, registry: deps.registry, mailer: deps.mailer ?? outboxMailer(deps.db, { publicUrl: deps.publicUrl }) };
  const users = deps.registry.get("Users");
  const User = users ? schemasFor(deps.registry, users).entity : z.object({});
  addRoute(
    app,
    {
      access: access.admin,
      method: "post",
      path: "/api/v1/Users",
      tags: ["Users"],
      operationId: "Users_create",
      summary: "Invite a person to the request's client",
      description:
        "A new email: creates the account, adds it to the client (clientId header) with the role, and emails an invite link " +
        "(/auth/accept-invite?token=..., valid 7 days; AcceptInvitation sets the password): 201 with the person. " +
        "An email that already has an account (another client's member, provider staff): invited, not added. A pending " +
        "membership waits 7 days for the person to accept (Users/AcceptMembership; the invite link if they never activated), " +
        "and the answer (202) says only that: nothing of the person's profile. The person gets a UserAddedToTeam notification.",
      request: { body: { required: true, content: { "application/json": { schema: InviteUser } } } },
      responses: {
        201: {
          description: "A new person, added: as GET /Users({key}) shows them",
          content: { "application/json": { schema: User } },
        },
        202: { description: "An existing account, invited: pending until they accept", content: { "application/json": { schema: PendingInvitation } } },
        ...commonErrors,
        404: errorResponse("No such client"),
        409: errorResponse("Already a member of the client, or the account is disabled"),
      },
    },
    async (c) => {
      const out = await svc.inviteToClient(d, c.get("ctx"), c.req.valid("json"));
      return out.kind === "added" ? rawJson(User, out.user, 201) : c.json(out.invitation, 202);
    },
  );

  addRoute(
    app,
    {
      access: access.signedIn,
      method: "get",
      path: "/api/v1/Users/MyInvitations",
      tags: ["Users"],
      operationId: "Users_MyInvitations",
      summary: "The signed-in person's invitations to clients, waiting to be accepted",
      responses: { 200: { description: "Live invitations", content: { "application/json": { schema: z.object({ value: z.array(Invitation) }).openapi("MyInvitations") } } }, ...commonErrors },
    },
    async (c) => c.json(await svc.myInvitations(d.db, c.get("ctx")), 200),
  );

  addRoute(
    app,
    {
      access: access.signedIn,
      method: "post",
      path: "/api/v1/Users/AcceptMembership",
      tags: ["Users"],
      operationId: "Users_AcceptMembership",
      summary: "Accept one's invitation to a client: the membership, with the invited role",
      request: { body: { required: true, content: { "application/json": { schema: z.strictObject({ clientId: z.number().int().min(1).max(2147483647) }).openapi("AcceptMembership") } } } },
      responses: {
        200: { description: "A member now", content: { "application/json": { schema: z.object({ clientId: z.number().int(), roleId: z.number().int() }).openapi("MembershipAccepted") } } },
        ...commonErrors,
        404: errorResponse("No live invitation of that client for you"),
      },
    },
    async (c) => c.json(await svc.acceptMembership(d.db, c.get("ctx"), c.req.valid("json").clientId), 200),
  );
}

/** Users DeclineMembership and ResendInvite, LinkInvites GetDemoProjectByIdentifier. */
function registerDeclineAndResend(app: App, deps: AppDeps): void {
  const d: svc.InviteDeps = { db: deps.db, registry: deps.registry, mailer: deps.mailer ?? outboxMailer(deps.db, { publicUrl: deps.publicUrl }) };
  addRoute(
    app,
    {
      access: access.signedIn,
      method: "post",
      path: "/api/v1/Users/DeclineMembership",
      tags: ["Users"],
      operationId: "Users_DeclineMembership",
      summary: "Decline one's invitation to a client: it is withdrawn, and no membership is made",
      request: { body: { required: true, content: { "application/json": { schema: z.strictObject({ clientId: z.number().int().min(1).max(2147483647) }).openapi("DeclineMembership") } } } },
      responses: {
        204: { description: "Declined" },
        ...commonErrors,
        404: errorResponse("No live invitation of that client for you"),
      },
    },
    async (c) => {
      await svc.declineMembership(d.db, c.get("ctx"), c.req.valid("json").clientId);
      return c.body(null, 204);
    },
  );

  addRoute(
    app,
    {
      access: access.admin,
      method: "post",
      path: "/api/v1/Users/{key}/ResendInvite",
      tags: ["Users"],
      operationId: "Users_ResendInvite",
      summary: "Email a member who has not accepted yet a new invite link",
      description: "A new link valid 7 days; the previous one stops working.",
      request: { params: keyParam },
      responses: {
        204: { description: "Sent" },
        ...commonErrors,
        404: errorResponse("Not a member of the request's client"),
        409: errorResponse("The person has already activated their account, or it is disabled"),
      },
    },
    async (c) => {
      await svc.resendInvite(d, c.get("ctx"), Number(c.req.valid("param").key));
      return c.body(null, 204);
    },
  );

  addRoute(
    app,
    {
      access: access.signedIn,
      method: "get",
      path: "/api/v1/LinkInvites/GetDemoProjectByIdentifier",
      tags: ["LinkInvites"],
      operationId: "LinkInvites_GetDemoProjectByIdentifier",
      summary: "The project a share link opens (the /invites/demo landing)",
      description: "SPEC writes it GetDemoProjectByIdentifier(identifier='...'); as a collection function the identifier is a query parameter.",
      request: { query: z.object({ identifier: z.string().max(100).describe("The link's identifier (a UUID)") }) },
      responses: {
        200: { description: "The landing data", content: { "application/json": { schema: LinkLanding } } },
        ...commonErrors,
        404: errorResponse("No such link, or its project is gone"),
      },
    },
    async (c) => c.json(await svc.demoProjectByIdentifier(deps.db, c.get("ctx"), c.req.valid("query").identifier), 200),
  );
}

/** LinkInvites AcceptShare. */
function registerAcceptShare(app: App, deps: AppDeps): void {
  addRoute(
    app,
    {
      access: access.signedIn,
      method: "post",
      path: "/api/v1/LinkInvites/AcceptShare",
      tags: ["LinkInvites"],
      operationId: "LinkInvites_AcceptShare",
      summary: "Accept a share link: the project becomes readable to the signed-in person",
      description: "Makes (or keeps) a ProjectShares row for the caller and the link's project. Refused when the link expired, " + "or when it was made for another email address.",
      request: {
        body: {
          required: true,
          content: { "application/json": { schema: z.strictObject({ identifier: z.string().max(100) }).openapi("AcceptShare") } },
        },
      },
      responses: {
        200: {
          description: "Shared",
          content: {
            "application/json": {
              schema: z.object({ projectShareId: z.number().int(), projectId: z.number().int(), clientId: z.number().int().describe("The sharing client") }).openapi("AcceptedShare"),
            },
          },
        },
        ...commonErrors,
        404: errorResponse("No such link, or its project is gone"),
      },
    },
    async (c) => c.json(await svc.acceptShare(deps.db, c.get("ctx"), c.req.valid("json").identifier), 200),
  );
}
