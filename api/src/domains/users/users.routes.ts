// Users functions and actions (SPEC 7: Me, CognitoStatus, HmacMe, HasPermission, MyPermissions,
// MyPolicies, InheritedUserCount; Enable, Disable, RemoveFromAccount, ChangeRole (ours: the members page), SetNames, SetPassword,
// SuperAdminUserCreate, SuperAdminUserUpdate) and CognitoUsers AdminDelete. Thin: validate, call
// the service, answer.
import { z } from "@hono/zod-openapi";
import type { App, AppDeps } from "../../app-types.ts";
import { access } from "../../access/policy.ts";
import { readConfig } from "../../config.ts";
import { addRoute, commonErrors, errorResponse, keyOf, keyParams } from "../../openapi.ts";
import { MAX_PASSWORD_LENGTH, MIN_PASSWORD_LENGTH } from "../../auth/passwords.ts";
import { ResolvedFlag } from "../flags/flags.routes.ts";
import { PERMISSION_NAMES, PERMISSIONS, POLICY_NAMES } from "./permissions.ts";
import * as svc from "./users.service.ts";

const tags = ["Users"];
const dt = () => z.iso.datetime({ offset: true });

const RoleRef = z.object({ id: z.number().int(), roleName: z.string() });
const ClientTier = z.enum(["Enterprise", "Org", "Team"]);
const ClientRef = z.object({ id: z.number().int(), name: z.string(), tier: ClientTier, parentId: z.number().int().nullable() });

const Me = z
  .object({
    id: z.number().int(),
    email: z.string(),
    firstName: z.string().nullable(),
    lastName: z.string().nullable(),
    isStaff: z.boolean(),
    isSuperAdmin: z.boolean(),
    role: RoleRef.describe("The user role: 1 User, 2 Staff, 3 SuperAdmin"),
    cognitoUsers: z.array(
      z.object({
        id: z.number().int(),
        cognitoIdpId: z.number().int().nullable().describe("null: the password login"),
        cognitoIdp: z.object({ id: z.number().int(), providerName: z.string(), providerType: z.string() }).nullable(),
        username: z.string(),
      }),
    ),
    defaultClientId: z.number().int().nullable(),
    defaultClient: ClientRef.nullable().describe("The default client, while the user still reaches it"),
    onboarded: z.boolean().describe("The onboarding user-details step is done (SetNames)"),
    onboardedAt: dt().nullable(),
    client: ClientRef.extend({ role: RoleRef.nullable().describe("The effective client role; null for staff without a membership") })
      .nullable()
      .describe("The request's client (clientId header), or null"),
    featureFlags: z.array(ResolvedFlag).optional().describe("The resolved flags on the request's client; only with a clientId header"),
  })
  .openapi("UserMe");

const LoginStatus = z
  .object({
    clientId: z.number().int().nullable(),
    value: z.array(
      z.object({
        userId: z.number().int(),
        email: z.string(),
        firstName: z.string().nullable(),
        lastName: z.string().nullable(),
        roleId: z.number().int().nullable().describe("Effective client role (1 Admin, 2 User, 3 Viewer); null in the all-users view"),
        isInherited: z.boolean().nullable().describe("The role comes from a membership of a client above"),
        status: z.enum(["invited", "confirmed", "force-change", "external", "disabled"]),
        lastLoginAt: dt().nullable(),
        invitedAt: dt().nullable(),
        disabledAt: dt().nullable(),
        identities: z.array(
          z.object({
            id: z.number().int(),
            cognitoIdpId: z.number().int().nullable(),
            username: z.string(),
            status: z.string(),
            lastLoginAt: dt().nullable(),
          }),
        ),
      }),
    ),
  })
  .openapi("UserLoginStatus");

const Hmac = z
  .object({
    userId: z.number().int(),
    email: z.string(),
    hmac: z.string().describe("Hex HMAC-SHA256 of '{userId}:{email}' with HMAC_SECRET"),
  })
  .openapi("UserHmac");

const PermissionName = z.enum(PERMISSION_NAMES).describe(
  `Permission vocabulary (docs/decisions.md): ${PERMISSION_NAMES.map((p) => `${p} (${PERMISSIONS[p].description})`).join("; ")}`,
);

const MyPermissions = z
  .object({
    clientId: z.number().int().nullable(),
    role: RoleRef.nullable().describe("The caller's effective role on the client; null for staff without a membership or without a client"),
    isStaff: z.boolean(),
    value: z.array(PermissionName),
  })
  .openapi("UserPermissions");

const HasPermission = z
  .object({ permission: PermissionName, clientId: z.number().int().nullable(), value: z.boolean() })
  .openapi("UserHasPermission");

const MyPolicies = z
  .object({
    isIdeallyAdmin: z.boolean(),
    value: z.array(
      z.object({
        clientId: z.number().int(),
        clientName: z.string(),
        tier: ClientTier,
        parentId: z.number().int().nullable(),
        role: RoleRef.nullable().describe("Effective role (roles inherit down the tree)"),
        isDirect: z.boolean().describe("The caller holds a membership of this client itself"),
        policies: z.array(z.enum(POLICY_NAMES)),
      }),
    ),
  })
  .openapi("UserPolicies");

const InheritedCount = z
  .object({
    clientId: z.number().int(),
    value: z.number().int().describe("Enabled users who reach the client only through a membership of a client above it"),
    directUserCount: z.number().int().describe("Enabled users with a membership of the client itself"),
  })
  .openapi("UserInheritedCount");

const UserState = z
  .object({
    id: z.number().int(),
    email: z.string(),
    firstName: z.string().nullable(),
    lastName: z.string().nullable(),
    isStaff: z.boolean(),
    isSuperAdmin: z.boolean(),
    disabledAt: dt().nullable(),
    onboardedAt: dt().nullable(),
  })
  .openapi("UserState");

const name = z.string().trim().min(1).max(100);

const ChangeRoleBody = z
  .strictObject({ roleId: z.union([z.literal(1), z.literal(2), z.literal(3)]).describe("The new role on the client: 1 Admin, 2 User, 3 Viewer") })
  .openapi("UserChangeRole");

const SetNamesBody = z.strictObject({ firstName: name, lastName: name }).openapi("UserSetNames");

const SetPasswordBody = z
  .strictObject({
    currentPassword: z.string().min(1).max(MAX_PASSWORD_LENGTH),
    newPassword: z.string().min(MIN_PASSWORD_LENGTH).max(MAX_PASSWORD_LENGTH),
  })
  .openapi("UserSetPassword");

const Membership = z.strictObject({
  clientId: z.number().int().positive(),
  roleId: z.union([z.literal(1), z.literal(2), z.literal(3)]).describe("1 Admin, 2 User, 3 Viewer"),
});

const superAdminFields = {
  firstName: z.string().trim().max(100).nullable().optional(),
  lastName: z.string().trim().max(100).nullable().optional(),
  isStaff: z.boolean().optional().describe("Provider staff (IdeallyAdmin)"),
  roleId: z
    .union([z.literal(1), z.literal(2), z.literal(3)])
    .optional()
    .describe("User role: 1 User, 2 Staff, 3 SuperAdmin (2 and 3 need isStaff); follows isStaff when omitted"),
  defaultClientId: z.number().int().positive().nullable().optional(),
  memberships: z.array(Membership).max(200).optional().describe("The user's client memberships; on update, replaces them all"),
};

const SuperAdminUserCreateBody = z
  .strictObject({ email: z.string().trim().email().max(320), ...superAdminFields })
  .openapi("UserSuperAdminCreate");

const SuperAdminUserUpdateBody = z
  .strictObject({
    email: z.string().trim().email().max(320).optional(),
    ...superAdminFields,
    resetPassword: z.boolean().optional().describe("Issue a new temporary password (answered once); the user must change it"),
  })
  .openapi("UserSuperAdminUpdate");

const AdminUser = z
  .object({
    id: z.number().int(),
    email: z.string(),
    firstName: z.string().nullable(),
    lastName: z.string().nullable(),
    isStaff: z.boolean(),
    roleId: z.number().int(),
    roleName: z.string(),
    defaultClientId: z.number().int().nullable(),
    invitedAt: dt().nullable(),
    onboardedAt: dt().nullable(),
    disabledAt: dt().nullable(),
    createdAt: dt(),
    memberships: z.array(z.object({ id: z.number().int(), clientId: z.number().int(), clientName: z.string(), tier: ClientTier, roleId: z.number().int() })),
    cognitoUsers: z.array(z.object({ id: z.number().int(), cognitoIdpId: z.number().int().nullable(), username: z.string(), status: z.string() })),
  })
  .openapi("UserAdminView");

const json = <T extends z.ZodType>(description: string, schema: T) => ({ description, content: { "application/json": { schema } } });
const jsonBody = <T extends z.ZodType>(schema: T) => ({ required: true, content: { "application/json": { schema } } });

export function registerUserRoutes(app: App, deps: AppDeps): void {
  const db = deps.db;
  const passwords = () => deps.auth?.passwords;

  // ---- functions (GET) ----

  addRoute(
    app,
    {
      access: access.self,
      method: "get",
      path: "/api/v1/Users/Me",
      tags,
      operationId: "Users_Me",
      summary: "The signed-in user, with the request's client and its resolved feature flags when a clientId header is given",
      responses: { 200: json("The signed-in user", Me), ...commonErrors },
    },
    async (c) => c.json(await svc.me(db, c.get("ctx")), 200),
  );

  addRoute(
    app,
    {
      access: access.admin,
      method: "get",
      path: "/api/v1/Users/CognitoStatus",
      tags,
      operationId: "Users_CognitoStatus",
      summary: "Login status and last login of each user of the request's client (members pages; staff without a client: every user)",
      description: "With requestscope descendants: the users of the client and of every client beneath it.",
      responses: { 200: json("Login status per user", LoginStatus), ...commonErrors },
    },
    async (c) => c.json(await svc.cognitoStatus(db, c.get("ctx")), 200),
  );

  addRoute(
    app,
    {
      access: access.self,
      method: "get",
      path: "/api/v1/Users/HmacMe",
      tags,
      operationId: "Users_HmacMe",
      summary: "The support chat's identity-verification hash of the signed-in user",
      responses: {
        200: json("The hash", Hmac),
        ...commonErrors,
        503: errorResponse("HMAC_SECRET is not configured on this server"),
      },
    },
    async (c) => c.json(await svc.hmacMe(db, c.get("ctx"), { secret: readConfig().hmacSecret }), 200),
  );

  addRoute(
    app,
    {
      access: access.self,
      method: "get",
      path: "/api/v1/Users/HasPermission",
      tags,
      operationId: "Users_HasPermission",
      summary: "Whether the caller holds one permission on the request's client",
      request: { query: z.object({ permission: PermissionName }) },
      responses: { 200: json("The answer", HasPermission), ...commonErrors },
    },
    async (c) => {
      const { permission } = c.req.valid("query");
      return c.json(await svc.hasPermission(db, c.get("ctx"), { permission }), 200);
    },
  );

  addRoute(
    app,
    {
      access: access.self,
      method: "get",
      path: "/api/v1/Users/MyPermissions",
      tags,
      operationId: "Users_MyPermissions",
      summary: "The caller's permissions on the request's client (the vocabulary is in docs/decisions.md)",
      responses: { 200: json("The caller's role and permissions", MyPermissions), ...commonErrors },
    },
    async (c) => c.json(await svc.myPermissions(db, c.get("ctx")), 200),
  );

  addRoute(
    app,
    {
      access: access.self,
      method: "get",
      path: "/api/v1/Users/MyPolicies",
      tags,
      operationId: "Users_MyPolicies",
      summary: "Per client the caller reaches: which of IdeallyAdmin, TeamUser, TeamAdmin, OrgAdmin, EnterpriseAdmin apply",
      description:
        "IdeallyAdmin: provider staff. TeamUser: User or Admin of a Team. TeamAdmin: Admin of a Team. OrgAdmin: Admin of an Org. " +
        "EnterpriseAdmin: Admin of an Enterprise. Roles inherit down the tree. Staff also get the request's client (clientId header).",
      responses: { 200: json("Policies per client", MyPolicies), ...commonErrors },
    },
    async (c) => c.json(await svc.myPolicies(db, c.get("ctx")), 200),
  );

  addRoute(
    app,
    {
      access: access.viewer,
      method: "get",
      path: "/api/v1/Users/InheritedUserCount",
      tags,
      operationId: "Users_InheritedUserCount",
      summary: "How many users reach the request's client only through a membership higher up the tree",
      responses: { 200: json("The counts", InheritedCount), ...commonErrors },
    },
    async (c) => c.json(await svc.inheritedUserCount(db, c.get("ctx")), 200),
  );

  // ---- actions (POST) ----

  for (const [action, enabled] of [
    ["Enable", true],
    ["Disable", false],
  ] as const) {
    addRoute(
      app,
      {
        access: access.admin,
        method: "post",
        path: `/api/v1/Users/{key}/${action}`,
        tags,
        operationId: `Users_${action}`,
        summary: enabled ? "Enable a user's account" : "Disable a user's account and end their sessions",
        description:
          "Staff: any user (staff accounts: super admins only). An Admin of the request's client: a user whose memberships all lie " +
          "in that client or beneath it. Nobody disables themselves.",
        request: { params: keyParams("Users") },
        responses: {
          200: json("The user's state", UserState.extend({ endedSessions: z.number().int() })),
          ...commonErrors,
          404: errorResponse("No such user among the client's members"),
          409: errorResponse("Disabling one's own account"),
        },
      },
      async (c) => c.json(await svc.setEnabled(db, c.get("ctx"), { userId: keyOf(c), enabled }), 200),
    );
  }

  addRoute(
    app,
    {
      access: access.admin,
      method: "post",
      path: "/api/v1/Users/{key}/RemoveFromAccount",
      tags,
      operationId: "Users_RemoveFromAccount",
      summary: "Remove the user's membership of the request's client (and nothing else)",
      request: { params: keyParams("Users") },
      responses: {
        200: json(
          "Removed",
          z.object({ userId: z.number().int(), clientId: z.number().int(), removedRole: RoleRef }).openapi("UserRemovedFromAccount"),
        ),
        ...commonErrors,
        404: errorResponse("The user has no membership of the client"),
        409: errorResponse("The client would be left without an Admin"),
      },
    },
    async (c) => c.json(await svc.removeFromAccount(db, c.get("ctx"), { userId: keyOf(c) }), 200),
  );

  addRoute(
    app,
    {
      access: access.admin,
      method: "post",
      path: "/api/v1/Users/{key}/ChangeRole",
      tags,
      operationId: "Users_ChangeRole",
      summary: "Change the role of the user's membership of the request's client (members page)",
      description: "Nobody changes their own role; the client always keeps an enabled Admin reaching it. A role inherited from a client above is changed there.",
      request: { params: keyParams("Users"), body: jsonBody(ChangeRoleBody) },
      responses: {
        200: json(
          "Changed",
          z.object({ userId: z.number().int(), clientId: z.number().int(), role: RoleRef, previousRole: RoleRef }).openapi("UserRoleChanged"),
        ),
        ...commonErrors,
        404: errorResponse("The user has no membership of the client"),
        409: errorResponse("One's own role, or the client would be left without an Admin"),
      },
    },
    async (c) => {
      const { roleId } = c.req.valid("json");
      return c.json(await svc.changeRole(db, c.get("ctx"), { userId: keyOf(c), roleId }), 200);
    },
  );

  addRoute(
    app,
    {
      access: access.self,
      method: "post",
      path: "/api/v1/Users/SetNames",
      tags,
      operationId: "Users_SetNames",
      summary: "Set one's first and last name; completes onboarding (onboarding/user-details)",
      request: { body: jsonBody(SetNamesBody) },
      responses: { 200: json("The user", UserState), ...commonErrors },
    },
    async (c) => c.json(await svc.setNames(db, c.get("ctx"), c.req.valid("json")), 200),
  );

  addRoute(
    app,
    {
      access: access.self,
      method: "post",
      path: "/api/v1/Users/SetPassword",
      tags,
      operationId: "Users_SetPassword",
      summary: "Change one's password (the current one is verified); ends every other login session",
      request: { body: jsonBody(SetPasswordBody) },
      responses: {
        200: json("Changed", z.object({ endedSessions: z.number().int() }).openapi("UserPasswordChanged")),
        ...commonErrors,
        409: errorResponse("The account has no password (single sign-on)"),
        429: errorResponse("Too many wrong current passwords; see Retry-After"),
        503: errorResponse("Password hashing is not available on this server"),
      },
    },
    async (c) => c.json(await svc.setPassword(db, c.get("ctx"), c.req.valid("json"), passwords()), 200),
  );

  addRoute(
    app,
    {
      access: access.superAdmin,
      method: "post",
      path: "/api/v1/Users/SuperAdminUserCreate",
      tags,
      operationId: "Users_SuperAdminUserCreate",
      summary: "Create a user (staff flag, user role, memberships) with a temporary password, answered once",
      description: "The password login is FORCE_CHANGE_PASSWORD: the user sets a password of their own at first sign-in.",
      request: { body: jsonBody(SuperAdminUserCreateBody) },
      responses: {
        201: json("Created", z.object({ user: AdminUser, temporaryPassword: z.string() }).openapi("UserSuperAdminCreated")),
        ...commonErrors,
        409: errorResponse("A user with this email exists"),
        503: errorResponse("Password hashing is not available on this server"),
      },
    },
    async (c) => c.json(await svc.superAdminUserCreate(db, c.get("ctx"), c.req.valid("json"), passwords()), 201),
  );

  addRoute(
    app,
    {
      access: access.superAdmin,
      method: "post",
      path: "/api/v1/Users/{key}/SuperAdminUserUpdate",
      tags,
      operationId: "Users_SuperAdminUserUpdate",
      summary: "Update any user: names, email, staff flag, user role, default client, memberships (replaced), password reset",
      description: "A change of staff flag, role, email or password ends the user's sessions. A client never loses its last Admin.",
      request: { params: keyParams("Users"), body: jsonBody(SuperAdminUserUpdateBody) },
      responses: {
        200: json(
          "Updated",
          z
            .object({ user: AdminUser, temporaryPassword: z.string().optional(), endedSessions: z.number().int() })
            .openapi("UserSuperAdminUpdated"),
        ),
        ...commonErrors,
        404: errorResponse("No such user"),
        409: errorResponse("Email taken, a client's last Admin, or one's own super admin role"),
        503: errorResponse("Password hashing is not available on this server"),
      },
    },
    async (c) =>
      c.json(
        await svc.superAdminUserUpdate(
          db,
          c.get("ctx"),
          { ...c.req.valid("json"), userId: keyOf(c) },
          passwords(),
        ),
        200,
      ),
  );

  addRoute(
    app,
    {
      access: access.staff,
      method: "post",
      path: "/api/v1/CognitoUsers/{key}/AdminDelete",
      tags: ["CognitoUsers"],
      operationId: "CognitoUsers_AdminDelete",
      summary: "Remove a login identity (the password login or an SSO identity); ends the user's sessions",
      description: "Removing the password login also removes the password.",
      request: { params: keyParams("CognitoUsers") },
      responses: { 204: { description: "Removed" }, ...commonErrors, 404: errorResponse("No such login identity") },
    },
    async (c) => {
      await svc.adminDeleteIdentity(db, c.get("ctx"), { id: keyOf(c) });
      return c.body(null, 204);
    },
  );
}
