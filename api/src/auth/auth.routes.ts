// /auth/Login/*: the sign-in calls of SPEC.md section 7 ("Auth calls"). Anonymous by design; the
// refresh token travels only in an httpOnly cookie scoped to /auth.
import { z } from "@hono/zod-openapi";
import { deleteCookie, getCookie, setCookie } from "hono/cookie";
import type { App, AppEnv, AuthRouteDeps } from "../app-types.ts";
import type { Context } from "hono";
import { addRoute, commonErrors, errorResponse } from "../openapi.ts";
import { access } from "../access/policy.ts";
import * as svc from "./auth.service.ts";
import { MAX_PASSWORD_LENGTH } from "./passwords.ts";
import { verifyAccessToken } from "./jwt.ts";
import { registerSamlRoutes } from "./saml.routes.ts";
import { registerLinkedInRoutes } from "./oidc.routes.ts";
import { defaultSso } from "./sso.ts";
import { registerAccountRoutes } from "./account.routes.ts";
import { outboxMailer, type Mailer } from "../email/mailer.ts";
import { AccessToken } from "./schemas.ts";
import { DEVICE_COOKIE, DEVICE_DAYS } from "./device-cookie.ts";

export const REFRESH_COOKIE = "ideally_refresh";

const LoginMethods = z
  .object({
    password: z.boolean(),
    saml: z.object({ providerName: z.string() }).nullable().describe("Single sign-on through the email domain's identity provider"),
    linkedIn: z.boolean(),
  })
  .openapi("LoginMethods");

const tags = ["Auth"];
const authErrors = {
  400: commonErrors[400],
  429: errorResponse("Too many attempts; see Retry-After"),
};

function setRefreshCookie(c: Context<AppEnv>, token: string, secure: boolean) {
  setCookie(c, REFRESH_COOKIE, token, {
    httpOnly: true,
    secure,
    sameSite: "Strict",
    path: "/auth",
    maxAge: svc.SESSION_DAYS * 24 * 3600,
  });
}

export function registerAuthRoutes(app: App, routeDeps: AuthRouteDeps, mailer?: Mailer): void {
  const m = mailer ?? routeDeps.mailer ?? outboxMailer(routeDeps.db);
  const deps: AuthRouteDeps = { ...routeDeps, mailer: m };
  const meta = (c: Context<AppEnv>) => ({ ip: deps.clientIp(c.req.raw), userAgent: c.req.header("user-agent") ?? null });

  addRoute(
    app,
    {
      access: access.anonymous,
      method: "get",
      path: "/auth/Login/GetLoginMethods/{email}",
      tags,
      operationId: "Login_GetLoginMethods",
      summary: "How an email can sign in (password, SAML single sign-on, LinkedIn)",
      request: { params: z.object({ email: z.string().email().max(320) }) },
      responses: { 200: { description: "The sign-in methods", content: { "application/json": { schema: LoginMethods } } }, ...authErrors },
    },
    async (c) => c.json(await svc.loginMethods(deps, c.req.valid("param").email), 200),
  );

  addRoute(
    app,
    {
      access: access.anonymous,
      method: "post",
      path: "/auth/Login/PasswordLogin",
      tags,
      operationId: "Login_PasswordLogin",
      summary: "Sign in with email and password",
      description: "Answers an access token and sets the refresh token in an httpOnly cookie (ideally_refresh, path /auth).",
      request: {
        body: {
          required: true,
          content: {
            "application/json": {
              schema: z.strictObject({ email: z.string().email().max(320), password: z.string().min(1).max(MAX_PASSWORD_LENGTH) }).openapi("PasswordLogin"),
            },
          },
        },
      },
      responses: {
        200: { description: "Signed in", content: { "application/json": { schema: AccessToken } } },
        ...authErrors,
        401: errorResponse("Email or password is incorrect"),
        403: errorResponse("A temporary password (typename NewPasswordRequired): choose a new one with NewPasswordRequired"),
      },
    },
    async (c) => {
      const issued = await svc.passwordLogin(deps, c.req.valid("json"), { ...meta(c), deviceCookie: getCookie(c, DEVICE_COOKIE) ?? null });
      setRefreshCookie(c, issued.refreshToken, deps.secureCookies);
      setCookie(c, DEVICE_COOKIE, issued.deviceCookie, { httpOnly: true, secure: deps.secureCookies, sameSite: "Strict", path: "/auth", maxAge: DEVICE_DAYS * 24 * 3600 });
      return c.json({ accessToken: issued.accessToken }, 200);
    },
  );

  addRoute(
    app,
    {
      access: access.anonymous,
      method: "post",
      path: "/auth/Login/Refresh",
      tags,
      operationId: "Login_Refresh",
      summary: "A new access token for the refresh-token cookie (which is rotated)",
      responses: {
        200: { description: "A fresh access token", content: { "application/json": { schema: AccessToken } } },
        422: errorResponse("The session has ended (typename AuthFailureDto): sign in again"),
        429: authErrors[429],
      },
    },
    async (c) => {
      try {
        const issued = await svc.refresh(deps, getCookie(c, REFRESH_COOKIE), meta(c));
        setRefreshCookie(c, issued.refreshToken, deps.secureCookies);
        return c.json({ accessToken: issued.accessToken }, 200);
      } catch (e) {
        deleteCookie(c, REFRESH_COOKIE, { path: "/auth" });
        throw e;
      }
    },
  );

  addRoute(
    app,
    {
      access: access.anonymous,
      method: "post",
      path: "/auth/Login/Logout",
      tags,
      operationId: "Login_Logout",
      summary: "Sign out: ends the login session (refresh token and access tokens)",
      responses: { 204: { description: "Signed out" } },
    },
    async (c) => {
      const bearer = c.req.header("authorization")?.replace(/^Bearer\s+/, "");
      // An expired access token still names its session; a forged one names nothing.
      const sid = bearer
        ? await verifyAccessToken(deps.key, bearer, Date.now(), { allowExpired: true }).then(
            (cl) => cl.sid,
            () => undefined,
          )
        : undefined;
      await svc.logout(deps, getCookie(c, REFRESH_COOKIE), sid);
      deleteCookie(c, REFRESH_COOKIE, { path: "/auth" });
      return c.body(null, 204);
    },
  );

  const sso = deps.sso ?? defaultSso();
  registerSamlRoutes(app, deps, sso, (c, token) => setRefreshCookie(c, token, deps.secureCookies));
  registerLinkedInRoutes(app, deps.db, sso);
  registerAccountRoutes(app, deps, m, (c, token) => setRefreshCookie(c, token, deps.secureCookies));
}
