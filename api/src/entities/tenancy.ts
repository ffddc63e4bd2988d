// Tenancy: clients (Enterprise -> Org -> Team), people and memberships, logins, invites.
// Tables: migrations/0002_create_tenancy.sql (link_invites: 0003); views: 0007.
import { z } from "@hono/zod-openapi";
import { entity, f, nav, type EntitySetDef } from "./types.ts";
import { linkInvitesWriteGuard, usersWriteGuard } from "../domains/users/write-rules.ts";

/**
 * Client fields that domain routes write besides the generic PATCH (POST Enterprises, Orgs and
 * Teams, Rename, AdminUpdate, SetupTrialAccount), declared once (issue 34, as ProjectFields).
 */
export const ClientFields = {
  name: z.string().trim().min(1).max(200),
  /** An industry code (industries.code); a project's productType is one too. */
  industry: z.string().max(50),
  hsCompanyId: z.string().trim().max(100),
};

const stamps = { createdAt: f.createdAt(), updatedAt: f.updatedAt() };

/** Settings shared by the Enterprise and Org tiers (their security pages). */
const securityFields = {
  ssoRequired: f.boolean(),
  allowedEmailDomains: f.json({ description: "JSON array of e-mail domains allowed to sign in." }),
};

export const tenancySets: EntitySetDef[] = [
  entity({
    name: "Clients",
    writeAccess: "staff",
    table: "clients",
    scope: "client",
    clientColumn: "id",
    verbs: ["patch", "delete"],
    defaultOrder: "name",
    description: "A tenant: one node of Enterprise -> Org -> Team.",
    fields: {
      id: f.key(),
      name: f.string({ required: true, schema: ClientFields.name }),
      // Moving a client in the tree or changing its tier is staff work (AdminUpdate).
      tier: f.string({ readOnly: true, enumValues: ["Enterprise", "Org", "Team"] }),
      parentId: f.int({ nullable: true, readOnly: true }),
      hsCompanyId: f.string({ nullable: true, readOnly: true, schema: ClientFields.hsCompanyId, description: "CRM (HubSpot) company id." }),
      industry: f.string({ nullable: true, schema: ClientFields.industry, description: "An industry code (telecommunications, energy, ...)." }),
      domain: f.string({ nullable: true, readOnly: true, description: "Verified e-mail domain." }),
      // Clients are written by staff only (writeAccess), so these two are theirs to set.
      overdraftLimit: f.number({ description: "How far below zero credits may go (0 unless staff set one)." }),
      requiresProjectApproval: f.boolean({ description: "Submitted projects wait for an Admin's approval (status 50)." }),
      isTrial: f.boolean({ readOnly: true }),
      trialEndsAt: f.datetime({ nullable: true, readOnly: true }),
      ...stamps,
    },
    nav: {
      parent: nav.one("Clients", "parentId"),
      children: nav.many("Clients", "parentId"),
      enterprise: nav.one("Enterprises", "id"),
      org: nav.one("Orgs", "id"),
      team: nav.one("Teams", "id"),
      hubspotCompanies: nav.many("LinkedClients", "clientId"),
      creditLogs: nav.many("CreditLogs", "clientId"),
      userAndClients: nav.many("UserAndClients", "clientId"),
      clientFeatures: nav.many("ClientFeatures", "clientId"),
      cognitoIdps: nav.many("CognitoIdps", "clientId"),
      projects: nav.many("Projects", "clientId"),
      extendedTeams: nav.many("ExtendedTeams", "clientId"),
    },
  }),

  entity({
    name: "Enterprises",
    writeAccess: "admin",
    table: "enterprises",
    scope: "client",
    verbs: ["post"],
    description: "What is particular to an Enterprise client; keyed by the client's id.",
    fields: {
      id: f.key({ description: "The Enterprise client's id." }),
      clientId: f.clientId(),
      tier: f.string({ readOnly: true, enumValues: ["Enterprise"] }),
      ...securityFields,
      ...stamps,
    },
    nav: {
      client: nav.one("Clients", "id"),
      children: nav.many("Clients", "parentId"),
    },
  }),

  entity({
    name: "Orgs",
    writeAccess: "admin",
    table: "orgs",
    scope: "client",
    verbs: ["post", "patch"],
    description: "What is particular to an Org client; keyed by the client's id.",
    fields: {
      id: f.key({ description: "The Org client's id." }),
      clientId: f.clientId(),
      tier: f.string({ readOnly: true, enumValues: ["Org"] }),
      ...securityFields,
      ...stamps,
    },
    nav: {
      client: nav.one("Clients", "id"),
      children: nav.many("Clients", "parentId"),
    },
  }),

  entity({
    name: "Teams",
    writeAccess: "admin",
    table: "teams",
    scope: "client",
    verbs: ["post", "patch"],
    description: "What is particular to a Team client (projects belong to teams); keyed by the client's id.",
    fields: {
      id: f.key({ description: "The Team client's id." }),
      clientId: f.clientId(),
      tier: f.string({ readOnly: true, enumValues: ["Team"] }),
      autoProjectWatch: f.boolean({ description: "New projects get every team member as a watcher." }),
      defaultRegionId: f.int(),
      ...stamps,
    },
    nav: {
      client: nav.one("Clients", "id"),
      defaultRegion: nav.one("Regions", "defaultRegionId"),
      extendedTeam: nav.one("ExtendedTeams", "id", "teamId"),
      projects: nav.many("Projects", "clientId"),
    },
  }),

  entity({
    name: "ExtendedTeams",
    table: "extended_teams",
    key: "teamId",
    scope: "client",
    view: true,
    defaultOrder: "teamName",
    description: "Each team with its org and enterprise (computed).",
    fields: {
      teamId: f.int({ readOnly: true }),
      clientId: f.clientId(),
      teamName: f.string({ readOnly: true }),
      orgId: f.int({ nullable: true, readOnly: true }),
      orgName: f.string({ nullable: true, readOnly: true }),
      enterpriseId: f.int({ nullable: true, readOnly: true }),
      enterpriseName: f.string({ nullable: true, readOnly: true }),
    },
    nav: {
      client: nav.one("Clients", "clientId"),
      team: nav.one("Teams", "teamId"),
      org: nav.one("Orgs", "orgId"),
      enterprise: nav.one("Enterprises", "enterpriseId"),
    },
  }),

  entity({
    name: "LinkedClients",
    table: "linked_clients",
    scope: "client",
    description: "A CRM (HubSpot) company linked to a client (Client.hubspotCompanies).",
    fields: {
      id: f.key(),
      clientId: f.clientId(),
      hsCompanyId: f.string(),
      name: f.string(),
      industry: f.string({ nullable: true }),
      domain: f.string({ nullable: true }),
      properties: f.json({ description: "CRM custom properties." }),
      syncedAt: f.datetime({ nullable: true }),
      ...stamps,
    },
    nav: { client: nav.one("Clients", "clientId") },
  }),

  entity({
    name: "Users",
    writeAccess: "staff",
    // Only a super admin deletes or changes staff; nobody deletes their own account or a client's last Admin.
    guard: usersWriteGuard,
    table: "users",
    scope: "client",
    clientVia: "userAndClients",
    // A person always sees their own row, whichever client the request names.
    ownRowField: "id",
    verbs: ["post", "patch", "delete"],
    defaultOrder: "email",
    description: "A person. Linked to clients through UserAndClients; password hashes are never exposed.",
    fields: {
      id: f.key(),
      email: f.string({ required: true, updatable: false, maxLength: 320 }),
      firstName: f.string({ nullable: true, maxLength: 100 }),
      lastName: f.string({ nullable: true, maxLength: 100 }),
      // Staff status, the user role and disabling go through staff actions (SuperAdminUserUpdate,
      // Enable, Disable), never a plain PATCH.
      isStaff: f.boolean({ readOnly: true }),
      roleId: f.int({ readOnly: true }),
      defaultClientId: f.int({ nullable: true }),
      phone: f.string({ nullable: true, maxLength: 50 }),
      jobTitle: f.string({ nullable: true, maxLength: 200 }),
      hsContactId: f.string({ nullable: true, readOnly: true }),
      invitedAt: f.datetime({ nullable: true, readOnly: true }),
      onboardedAt: f.datetime({ nullable: true, readOnly: true }),
      lastLoginAt: f.datetime({ nullable: true, readOnly: true }),
      disabledAt: f.datetime({ nullable: true, readOnly: true }),
      ...stamps,
    },
    nav: {
      role: nav.one("UserRoles", "roleId"),
      defaultClient: nav.one("Clients", "defaultClientId"),
      userAndClients: nav.many("UserAndClients", "userId"),
      cognitoUsers: nav.many("CognitoUsers", "userId"),
      notifications: nav.many("Notifications", "userId"),
      aiConversations: nav.many("AiConversations", "userId"),
    },
  }),

  entity({
    name: "UserAndClients",
    table: "user_and_clients",
    scope: "client",
    description: "A user's membership of a client, with a client role (1 Admin, 2 User, 3 Viewer).",
    fields: {
      id: f.key(),
      userId: f.int({ readOnly: true }),
      clientId: f.clientId(),
      roleId: f.int({ readOnly: true, enumValues: [1, 2, 3] }),
      ...stamps,
    },
    nav: {
      user: nav.one("Users", "userId"),
      client: nav.one("Clients", "clientId"),
      role: nav.one("UserClientRoles", "roleId"),
    },
  }),

  entity({
    name: "ExtrapolatedUserAndClients",
    table: "extrapolated_user_and_clients",
    scope: "client",
    view: true,
    description: "Every client a user reaches, directly or inherited from an ancestor's membership (computed). " + "Key: '{userId}-{clientId}'.",
    fields: {
      id: f.string({ readOnly: true }),
      userId: f.int({ readOnly: true }),
      clientId: f.clientId(),
      roleId: f.int({ readOnly: true }),
      sourceClientId: f.int({ readOnly: true, description: "The client whose membership grants the role." }),
      sourceUserAndClientId: f.int({ readOnly: true }),
      isInherited: f.boolean({ readOnly: true }),
      depth: f.int({ readOnly: true }),
    },
    nav: {
      user: nav.one("Users", "userId"),
      client: nav.one("Clients", "clientId"),
      role: nav.one("UserClientRoles", "roleId"),
      sourceClient: nav.one("Clients", "sourceClientId"),
      sourceUserAndClient: nav.one("UserAndClients", "sourceUserAndClientId"),
    },
  }),

  entity({
    name: "UserRoles",
    table: "user_roles",
    scope: "global",
    description: "A user's own role: 1 User, 2 Staff, 3 SuperAdmin.",
    fields: { id: f.fixedKey(), roleName: f.string({ required: true }), ...stamps },
    nav: { users: nav.many("Users", "roleId") },
  }),

  entity({
    name: "UserClientRoles",
    table: "user_client_roles",
    scope: "global",
    description: "Client roles: 1 Admin, 2 User, 3 Viewer.",
    fields: { id: f.fixedKey(), roleName: f.string({ required: true }), ...stamps },
  }),

  entity({
    name: "CognitoIdps",
    writeAccess: "admin",
    table: "cognito_idps",
    scope: "client",
    verbs: ["delete"],
    description: "A client's SAML identity provider (created and updated through CreateSaml / UpdateSaml).",
    fields: {
      id: f.key(),
      clientId: f.clientId(),
      providerName: f.string({ readOnly: true }),
      providerType: f.string({ readOnly: true, enumValues: ["SAML", "OIDC"] }),
      metadataUrl: f.string({ nullable: true, readOnly: true }),
      metadataXml: f.string({ nullable: true, readOnly: true, filterable: false }),
      emailDomains: f.json({ readOnly: true, shape: z.array(z.string()) }),
      isEnabled: f.boolean({ readOnly: true }),
      ...stamps,
    },
    nav: {
      client: nav.one("Clients", "clientId"),
      cognitoUsers: nav.many("CognitoUsers", "cognitoIdpId"),
    },
  }),

  entity({
    name: "CognitoUsers",
    table: "cognito_users",
    scope: "user",
    description: "A user's login identity: the password login or one per SAML provider.",
    fields: {
      id: f.key(),
      userId: f.int({ readOnly: true }),
      cognitoIdpId: f.int({ nullable: true, readOnly: true }),
      username: f.string({ readOnly: true }),
      status: f.string({
        readOnly: true,
        enumValues: ["UNCONFIRMED", "CONFIRMED", "FORCE_CHANGE_PASSWORD", "RESET_REQUIRED", "EXTERNAL_PROVIDER"],
      }),
      externalSubject: f.string({ nullable: true, readOnly: true }),
      lastLoginAt: f.datetime({ nullable: true, readOnly: true }),
      ...stamps,
    },
    nav: {
      user: nav.one("Users", "userId"),
      cognitoIdp: nav.one("CognitoIdps", "cognitoIdpId"),
    },
  }),

  entity({
    name: "LinkInvites",
    table: "link_invites",
    // Team invites come from POST Users (an Admin's invite), never from a generic create.
    guard: linkInvitesWriteGuard,
    scope: "client",
    verbs: ["post", "delete"],
    description: "An invitation link: to join a team, to open a shared project, or the demo registration.",
    fields: {
      id: f.key(),
      clientId: f.clientId(),
      identifier: f.uuid({ readOnly: true }),
      inviteType: f.string({ required: true, updatable: false, enumValues: ["TeamInvite", "ProjectShare", "Demo"] }),
      projectId: f.int({ nullable: true, updatable: false }),
      email: f.string({ nullable: true, updatable: false, maxLength: 320 }),
      roleId: f.int({ nullable: true, updatable: false, enumValues: [1, 2, 3] }),
      invitedByUserId: f.int({ nullable: true, readOnly: true }),
      expiresAt: f.datetime({ nullable: true }),
      acceptedAt: f.datetime({ nullable: true, readOnly: true }),
      acceptedByUserId: f.int({ nullable: true, readOnly: true }),
      ...stamps,
    },
    nav: {
      client: nav.one("Clients", "clientId"),
      project: nav.one("Projects", "projectId"),
      role: nav.one("UserClientRoles", "roleId"),
      invitedByUser: nav.one("Users", "invitedByUserId"),
      acceptedByUser: nav.one("Users", "acceptedByUserId"),
      projectShares: nav.many("ProjectShares", "linkInviteId"),
    },
  }),
];
