// Users functions and actions (SPEC 7: Me, CognitoStatus, HmacMe, HasPermission, MyPermissions,
// MyPolicies, InheritedUserCount here; Enable, Disable, RemoveFromAccount, ChangeRole (ours: the
// members page), SetNames, SetPassword, SuperAdminUserCreate, SuperAdminUserUpdate and CognitoUsers
// AdminDelete in user-actions.routes.ts; schemas in users.schemas.ts). Thin: validate, call the
// service, answer.
import { z } from "@hono/zod-openapi";
import type { App, AppDeps } from "../../app-types.ts";
import { access } from "../../access/policy.ts";
import { readConfig } from "../../config.ts";
import { addRoute, commonErrors, errorResponse } from "../../openapi.ts";
import * as svc from "./users.service.ts";
import { registerMembershipActions, registerRoleAndNames, registerPasswordAndCreate, registerSuperAdminEdits } from "./user-actions.routes.ts";
import { tags, Me, LoginStatus, Hmac, PermissionName, MyPermissions, HasPermission, MyPolicies, InheritedCount, json } from "./users.schemas.ts";

export function registerUserRoutes(app: App, deps: AppDeps): void {
  registerWhoAmI(app, deps);
  registerPermissionReads(app, deps);
  registerMembershipActions(app, deps);
  registerRoleAndNames(app, deps);
  registerPasswordAndCreate(app, deps);
  registerSuperAdminEdits(app, deps);
}

/** Me, CognitoStatus, HmacMe and HasPermission. */
function registerWhoAmI(app: App, deps: AppDeps): void {
  const db = deps.db;
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
}

/** MyPermissions, MyPolicies and InheritedUserCount. */
function registerPermissionReads(app: App, deps: AppDeps): void {
  const db = deps.db;
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
}
