// Users actions (SPEC 7: Enable, Disable, RemoveFromAccount, ChangeRole, SetNames, SetPassword,
// SuperAdminUserCreate, SuperAdminUserUpdate) and CognitoUsers AdminDelete, moved from users.routes.ts
// (issue 34). Thin: validate, call the service, answer.
import { z } from "@hono/zod-openapi";
import type { App, AppDeps } from "../../app-types.ts";
import { access } from "../../access/policy.ts";
import { addRoute, commonErrors, errorResponse, keyOf, keyParams } from "../../openapi.ts";
import * as svc from "./users.service.ts";
import { tags, RoleRef, UserState, ChangeRoleBody, SetNamesBody, SetPasswordBody, SuperAdminUserCreateBody, SuperAdminUserUpdateBody, AdminUser, json, jsonBody } from "./users.schemas.ts";

/** Enable, Disable and RemoveFromAccount. */
export function registerMembershipActions(app: App, deps: AppDeps): void {
  const db = deps.db;
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
          "Staff: every user (staff accounts: super admins only). An Admin of the request's client: a user whose memberships all lie " + "in that client or beneath it. Nobody disables themselves.",
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
        200: json("Removed", z.object({ userId: z.number().int(), clientId: z.number().int(), removedRole: RoleRef }).openapi("UserRemovedFromAccount")),
        ...commonErrors,
        404: errorResponse("The user has no membership of the client"),
        409: errorResponse("The client would be left without an Admin"),
      },
    },
    async (c) => c.json(await svc.removeFromAccount(db, c.get("ctx"), { userId: keyOf(c) }), 200),
  );
}

/** ChangeRole and SetNames. */
export function registerRoleAndNames(app: App, deps: AppDeps): void {
  const db = deps.db;
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
        200: json("Changed", z.object({ userId: z.number().int(), clientId: z.number().int(), role: RoleRef, previousRole: RoleRef }).openapi("UserRoleChanged")),
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
}

/** SetPassword and SuperAdminUserCreate. */
export function registerPasswordAndCreate(app: App, deps: AppDeps): void {
  const db = deps.db;
  const passwords = () => deps.auth?.passwords;
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
}

/** SuperAdminUserUpdate and CognitoUsers AdminDelete. */
export function registerSuperAdminEdits(app: App, deps: AppDeps): void {
  const db = deps.db;
  const passwords = () => deps.auth?.passwords;
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
        200: json("Updated", z.object({ user: AdminUser, temporaryPassword: z.string().optional(), endedSessions: z.number().int() }).openapi("UserSuperAdminUpdated")),
        ...commonErrors,
        404: errorResponse("No such user"),
        409: errorResponse("Email taken, a client's last Admin, or one's own super admin role"),
        503: errorResponse("Password hashing is not available on this server"),
      },
    },
    async (c) => c.json(await svc.superAdminUserUpdate(db, c.get("ctx"), { ...c.req.valid("json"), userId: keyOf(c) }, passwords()), 200),
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
