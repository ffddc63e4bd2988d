// The client tree: POST Enterprises / Orgs / Teams (replacing the generic POST: the client node
// and its tier row together), Orgs and Teams Rename, Teams ExtrapolatedUsers (SPEC 7).
import { z } from "@hono/zod-openapi";
import type { App, AppDeps } from "../../app-types.ts";
import { access, type Access } from "../../access/policy.ts";
import { addRoute, commonErrors, errorResponse } from "../../openapi.ts";
import * as svc from "./tenancy.service.ts";
import { ClientFields } from "../../entities/tenancy.ts";

const dt = () => z.iso.datetime({ offset: true });

const keyParams = (set: string) =>
  z.object({
    key: z
      .string()
      .regex(/^-?\d{1,9}$/, "must be an integer")
      .openapi({ param: { name: "key", in: "path" }, description: `${set} key (the client's id)` }),
  });
const keyOf = (c: { req: { valid(t: "param"): { key: string } } }) => Number(c.req.valid("param").key);

const clientName = ClientFields.name;
const domain = z
  .string()
  .trim()
  .toLowerCase()
  .regex(/^(?=.{1,253}$)([a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?\.)+[a-z]{2,63}$/, "must be a domain name");

const parentId = z.number().int().positive().nullable().optional().describe("The client it sits under; defaults to the request's client (clientId header). null: top level (staff only)");

const common = {
  name: clientName,
  industry: ClientFields.industry.nullable().optional().describe("An industry code; defaults to the parent's"),
};
const security = {
  ssoRequired: z.boolean().optional().describe("Members must sign in through single sign-on"),
  allowedEmailDomains: z.array(domain).max(50).optional().describe("E-mail domains allowed to sign in"),
};

const EnterpriseCreate = z.strictObject({ ...common, hsCompanyId: ClientFields.hsCompanyId.nullable().optional().describe("CRM (HubSpot) company id"), ...security }).openapi("EnterpriseNew");
const OrgCreate = z.strictObject({ ...common, parentId, ...security }).openapi("OrgNew");
const TeamCreate = z
  .strictObject({
    ...common,
    parentId,
    autoProjectWatch: z.boolean().optional().describe("New projects get every team member as a watcher"),
    defaultRegionId: z.number().int().positive().optional().describe("Default 1"),
  })
  .openapi("TeamNew");

const nodeFields = {
  id: z.number().int().describe("The new client's id (also the tier row's key)"),
  clientId: z.number().int(),
  name: z.string(),
  parentId: z.number().int().nullable(),
  industry: z.string().nullable(),
  hsCompanyId: z.string().nullable(),
  createdAt: dt(),
};
const EnterpriseCreated = z.object({ ...nodeFields, tier: z.literal("Enterprise"), ssoRequired: z.boolean(), allowedEmailDomains: z.array(z.string()) }).openapi("EnterpriseCreated");
const OrgCreated = z.object({ ...nodeFields, tier: z.literal("Org"), ssoRequired: z.boolean(), allowedEmailDomains: z.array(z.string()) }).openapi("OrgCreated");
const TeamCreated = z.object({ ...nodeFields, tier: z.literal("Team"), autoProjectWatch: z.boolean(), defaultRegionId: z.number().int() }).openapi("TeamCreated");

const RenameBody = z.strictObject({ name: clientName }).openapi("ClientRename");
const Renamed = z
  .object({
    id: z.number().int(),
    name: z.string(),
    tier: z.enum(["Org", "Team"]),
    parentId: z.number().int().nullable(),
    updatedAt: dt().nullable(),
    renamed: z.boolean().describe("false: the name was unchanged and nothing was written"),
  })
  .openapi("ClientRenamed");

const ExtrapolatedUsers = z
  .object({
    teamId: z.number().int(),
    value: z.array(
      z.object({
        userId: z.number().int(),
        email: z.string(),
        firstName: z.string().nullable(),
        lastName: z.string().nullable(),
        roleId: z.number().int().describe("Effective role: the most privileged membership of the team or a client above it"),
        roleName: z.string(),
        isInherited: z.boolean().describe("The role comes from a membership of a client above the team"),
        hasDirectMembership: z.boolean().describe("The user also holds a membership of the team itself"),
        sourceClientId: z.number().int().describe("The client whose membership grants the role"),
        sourceClientName: z.string(),
        sourceTier: z.enum(["Enterprise", "Org", "Team"]),
        sourceUserAndClientId: z.number().int(),
        disabledAt: dt().nullable(),
      }),
    ),
  })
  .openapi("TeamExtrapolatedUsers");

const TIERS = [
  {
    set: "Enterprises",
    tier: "Enterprise",
    access: access.staff,
    body: EnterpriseCreate,
    created: EnterpriseCreated,
    who: "Ideally staff.",
  },
  {
    set: "Orgs",
    tier: "Org",
    access: access.admin,
    body: OrgCreate,
    created: OrgCreated,
    who: "Staff, or an Admin of the parent enterprise (which defaults to the request's client).",
  },
  {
    set: "Teams",
    tier: "Team",
    access: access.admin,
    body: TeamCreate,
    created: TeamCreated,
    who: "Staff, or an Admin of the parent org or enterprise (which defaults to the request's client).",
  },
] as const satisfies readonly { set: string; tier: "Enterprise" | "Org" | "Team"; access: Access; body: z.ZodType; created: z.ZodType; who: string }[];

export function registerTenancyRoutes(app: App, deps: AppDeps): void {
  const db = deps.db;

  for (const t of TIERS) {
    addRoute(
      app,
      {
        access: t.access,
        method: "post",
        path: `/api/v1/${t.set}`,
        tags: [t.set],
        operationId: `${t.set}_create`,
        summary: `Create a ${t.tier} client (the client node and its ${t.set} row)`,
        description: `Who: ${t.who} A Team sits under an Org or an Enterprise (or nothing), an Org under an Enterprise (or nothing).`,
        request: { body: { required: true, content: { "application/json": { schema: t.body } } } },
        responses: {
          201: { description: "Created", content: { "application/json": { schema: t.created } } },
          ...commonErrors,
        },
      },
      async (c) => c.json(await svc.createClient(db, c.get("ctx"), { ...c.req.valid("json"), tier: t.tier }), 201),
    );
  }

  for (const t of [
    { set: "Orgs", tier: "Org" },
    { set: "Teams", tier: "Team" },
  ] as const) {
    addRoute(
      app,
      {
        access: access.admin,
        method: "post",
        path: `/api/v1/${t.set}/{key}/Rename`,
        tags: [t.set],
        operationId: `${t.set}_Rename`,
        summary: `Rename a ${t.tier}; skipped when the name is unchanged`,
        description: `The ${t.tier} is the request's client, or a client beneath it with requestscope descendants; the caller is an Admin there (roles inherit down) or staff.`,
        request: { params: keyParams(t.set), body: { required: true, content: { "application/json": { schema: RenameBody } } } },
        responses: {
          200: { description: "The client after the rename", content: { "application/json": { schema: Renamed } } },
          ...commonErrors,
          404: errorResponse(`No such ${t.tier} in the request's scope`),
        },
      },
      async (c) => c.json(await svc.rename(db, c.get("ctx"), { tier: t.tier, id: keyOf(c), name: c.req.valid("json").name }), 200),
    );
  }

  addRoute(
    app,
    {
      access: access.viewer,
      method: "get",
      path: "/api/v1/Teams/{key}/ExtrapolatedUsers",
      tags: ["Teams"],
      operationId: "Teams_ExtrapolatedUsers",
      summary: "Every user with access to the team, direct or inherited, with their effective role and where it comes from",
      request: { params: keyParams("Teams") },
      responses: {
        200: { description: "The team's users", content: { "application/json": { schema: ExtrapolatedUsers } } },
        ...commonErrors,
        404: errorResponse("No such team in the request's scope"),
      },
    },
    async (c) => c.json(await svc.extrapolatedUsers(db, c.get("ctx"), { teamId: keyOf(c) }), 200),
  );
}
