// The Users functions' and actions' schemas (moved from users.routes.ts, issue 34): shared by
// users.routes.ts and user-actions.routes.ts.
import { z } from "@hono/zod-openapi";
import { MAX_PASSWORD_LENGTH, MIN_PASSWORD_LENGTH } from "../../auth/passwords.ts";
import { ResolvedFlag } from "../flags/flags.routes.ts";
import { PERMISSION_NAMES, PERMISSIONS, POLICY_NAMES } from "./permissions.ts";

export const tags = ["Users"];
export const dt = () => z.iso.datetime({ offset: true });

export const RoleRef = z.object({ id: z.number().int(), roleName: z.string() });
export const ClientTier = z.enum(["Enterprise", "Org", "Team"]);
export const ClientRef = z.object({ id: z.number().int(), name: z.string(), tier: ClientTier, parentId: z.number().int().nullable() });

export const Me = z
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

export const LoginStatus = z
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

export const Hmac = z
  .object({
    userId: z.number().int(),
    email: z.string(),
    hmac: z.string().describe("Hex HMAC-SHA256 of '{userId}:{email}' with HMAC_SECRET"),
  })
  .openapi("UserHmac");

export const PermissionName = z.enum(PERMISSION_NAMES).describe(`Permission vocabulary (docs/decisions.md): ${PERMISSION_NAMES.map((p) => `${p} (${PERMISSIONS[p].description})`).join("; ")}`);

export const MyPermissions = z
  .object({
    clientId: z.number().int().nullable(),
    role: RoleRef.nullable().describe("The caller's effective role on the client; null for staff without a membership or without a client"),
    isStaff: z.boolean(),
    value: z.array(PermissionName),
  })
  .openapi("UserPermissions");

export const HasPermission = z.object({ permission: PermissionName, clientId: z.number().int().nullable(), value: z.boolean() }).openapi("UserHasPermission");

export const MyPolicies = z
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

export const InheritedCount = z
  .object({
    clientId: z.number().int(),
    value: z.number().int().describe("Enabled users who reach the client only through a membership of a client above it"),
    directUserCount: z.number().int().describe("Enabled users with a membership of the client itself"),
  })
  .openapi("UserInheritedCount");

export const UserState = z
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

export const name = z.string().trim().min(1).max(100);

export const ChangeRoleBody = z
  .strictObject({ roleId: z.union([z.literal(1), z.literal(2), z.literal(3)]).describe("The new role on the client: 1 Admin, 2 User, 3 Viewer") })
  .openapi("UserChangeRole");

export const SetNamesBody = z.strictObject({ firstName: name, lastName: name }).openapi("UserSetNames");

export const SetPasswordBody = z
  .strictObject({
    currentPassword: z.string().min(1).max(MAX_PASSWORD_LENGTH),
    newPassword: z.string().min(MIN_PASSWORD_LENGTH).max(MAX_PASSWORD_LENGTH),
  })
  .openapi("UserSetPassword");

export const Membership = z.strictObject({
  clientId: z.number().int().positive(),
  roleId: z.union([z.literal(1), z.literal(2), z.literal(3)]).describe("1 Admin, 2 User, 3 Viewer"),
});

export const superAdminFields = {
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

export const SuperAdminUserCreateBody = z.strictObject({ email: z.string().trim().email().max(320), ...superAdminFields }).openapi("UserSuperAdminCreate");

export const SuperAdminUserUpdateBody = z
  .strictObject({
    email: z.string().trim().email().max(320).optional(),
    ...superAdminFields,
    resetPassword: z.boolean().optional().describe("Issue a new temporary password (answered once); the user must change it"),
  })
  .openapi("UserSuperAdminUpdate");

export const AdminUser = z
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

export const json = <T extends z.ZodType>(description: string, schema: T) => ({ description, content: { "application/json": { schema } } });
export const jsonBody = <T extends z.ZodType>(schema: T) => ({ required: true, content: { "application/json": { schema } } });
