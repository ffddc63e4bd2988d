// /auth/Login/* account calls of SPEC.md section 7 ("Auth calls"): ForgotPassword, ResetPassword,
// GetInvite, AcceptInvitation, NewPasswordRequired, VerifyRegistrationEmail,
// GetRegistrationInvite, GetRegistrationLoginMethods. Anonymous by design: nobody is signed in
// yet. There is no open sign-up: an account is made through a team invite or a share link.
import { z } from "@hono/zod-openapi";
import type { Context } from "hono";
import type { App, AppEnv } from "../app-types.ts";
import { access } from "../access/policy.ts";
import { addRoute, commonErrors, errorResponse } from "../openapi.ts";
import type { Mailer } from "../email/mailer.ts";
import { LinkLanding } from "../domains/invites/invites.routes.ts";
import { AccessToken } from "./schemas.ts";
import type { AuthRouteDeps } from "../app-types.ts";
import { MAX_PASSWORD_LENGTH, MIN_PASSWORD_LENGTH } from "./passwords.ts";
import * as svc from "./account.service.ts";

const tags = ["Auth"];
const email = () => z.string().trim().email().max(320);
const newPassword = () =>
  z.string().min(MIN_PASSWORD_LENGTH, `at least ${MIN_PASSWORD_LENGTH} characters`).max(MAX_PASSWORD_LENGTH).describe(`${MIN_PASSWORD_LENGTH} to ${MAX_PASSWORD_LENGTH} characters`);
const token = () => z.string().min(1).max(200).describe("The token from the emailed link");

const body = <T extends z.ZodType>(schema: T) => ({ body: { required: true, content: { "application/json": { schema } } } });
const tooMany = errorResponse("Too many requests; see Retry-After");
const badLink = errorResponse("The link's token is not valid, used, replaced or expired (detail: token_invalid, token_used, token_replaced, token_expired), or the body is invalid");

const PendingInvite = z
  .object({
    email: z.string(),
    pending: z.boolean().describe("The token given is this email's live team invite (false without a token: nobody learns who was invited)"),
    clientName: z.string().nullable().describe("The client that invited them; only with the invite's token"),
    expiresAt: z.string().nullable(),
  })
  .openapi("PendingInvite");

const RegistrationLoginMethods = z
  .object({
    accountExists: z.boolean().describe("An account with this email exists: sign in, then LinkInvites/AcceptShare"),
    register: z.boolean().describe("No account yet: VerifyRegistrationEmail, then AcceptInvitation with the emailed token"),
    password: z.boolean().describe("The existing account has a password"),
    saml: z.object({ providerName: z.string() }).nullable().describe("The email domain's single sign-on"),
    linkedIn: z.boolean(),
  })
  .openapi("RegistrationLoginMethods");

/** Sets the refresh-token cookie as PasswordLogin does (auth.routes.ts owns the cookie). */
export type SetRefreshCookie = (c: Context<AppEnv>, refreshToken: string) => void;

export function registerAccountRoutes(app: App, deps: AuthRouteDeps, mailer: Mailer, setRefreshCookie: SetRefreshCookie): void {
  const d: svc.AccountDeps = { ...deps, mailer };
  const meta = (c: Context<AppEnv>): svc.Meta => ({ ip: deps.clientIp(c.req.raw), userAgent: c.req.header("user-agent") ?? null });

  addRoute(
    app,
    {
      access: access.anonymous,
      method: "post",
      path: "/auth/Login/ForgotPassword",
      tags,
      operationId: "Login_ForgotPassword",
      summary: "Email a password-reset link",
      description:
        "Always 204, whether or not the email has an account. An account gets a link to " +
        "/auth/reset-password?token=... (single use, valid 1 hour; a newer request replaces it) and a PasswordReset notification. " +
        "Limited to 3 requests per email and 20 per IP address an hour.",
      request: body(z.strictObject({ email: email() }).openapi("ForgotPassword")),
      responses: { 204: { description: "Done (whatever the email)" }, 400: commonErrors[400], 429: tooMany },
    },
    async (c) => {
      await svc.forgotPassword(d, c.req.valid("json"), meta(c));
      return c.body(null, 204);
    },
  );

  addRoute(
    app,
    {
      access: access.anonymous,
      method: "post",
      path: "/auth/Login/ResetPassword",
      tags,
      operationId: "Login_ResetPassword",
      summary: "Set a new password with the emailed reset token",
      description: "The token dies, and every login session of the person ends (sign in again with the new password).",
      request: body(z.strictObject({ token: token(), password: newPassword() }).openapi("ResetPassword")),
      responses: { 204: { description: "The password is changed" }, 400: badLink, 429: tooMany },
    },
    async (c) => {
      await svc.resetPassword(d, c.req.valid("json"), meta(c));
      return c.body(null, 204);
    },
  );

  addRoute(
    app,
    {
      access: access.anonymous,
      method: "get",
      path: "/auth/Login/GetInvite/{email}",
      tags,
      operationId: "Login_GetInvite",
      summary: "The team invite of this email's token: the inviting client and the expiry",
      description:
        "Only with `token` (from the invite's link) that is a live team invite for this email does it name the client; " +
        "otherwise the same empty answer for every email. Limited to 60 lookups per IP address in 15 minutes.",
      request: { params: z.object({ email: email() }), query: z.object({ token: token().optional() }) },
      responses: { 200: { description: "The pending invite, if any", content: { "application/json": { schema: PendingInvite } } }, 400: commonErrors[400], 429: tooMany },
    },
    async (c) => c.json(await svc.getInvite(d, c.req.valid("param").email, c.req.valid("query").token, meta(c)), 200),
  );

  addRoute(
    app,
    {
      access: access.anonymous,
      method: "post",
      path: "/auth/Login/AcceptInvitation",
      tags,
      operationId: "Login_AcceptInvitation",
      summary: "Accept an invitation: set a password and sign in",
      description:
        "The token is a team invite's (/auth/accept-invite?token=...) or a share-link registration's " +
        "(/invites/demo?identifier=...&token=..., from VerifyRegistrationEmail; the account is created and the project shared with it). " +
        "Answers an access token and sets the refresh cookie, as PasswordLogin does.",
      request: {
        ...body(
          z
            .strictObject({
              token: token(),
              password: newPassword(),
              firstName: z.string().trim().min(1).max(100).optional(),
              lastName: z.string().trim().min(1).max(100).optional(),
            })
            .openapi("AcceptInvitation"),
        ),
      },
      responses: {
        200: { description: "Signed in", content: { "application/json": { schema: AccessToken } } },
        400: badLink,
        403: errorResponse("The share link was made for another email address"),
        404: errorResponse("The shared project is no longer available"),
        409: errorResponse("An account for this email was created meanwhile"),
        429: tooMany,
      },
    },
    async (c) => {
      const issued = await svc.acceptInvitation(d, c.req.valid("json"), meta(c));
      setRefreshCookie(c, issued.refreshToken);
      return c.json({ accessToken: issued.accessToken }, 200);
    },
  );

  addRoute(
    app,
    {
      access: access.anonymous,
      method: "post",
      path: "/auth/Login/NewPasswordRequired",
      tags,
      operationId: "Login_NewPasswordRequired",
      summary: "Replace a temporary password and sign in",
      description:
        "For accounts made by staff with a temporary password (CognitoStatus FORCE_CHANGE_PASSWORD). Counts towards " +
        "PasswordLogin's limits; a wrong password and an unknown email answer alike (401).",
      request: body(z.strictObject({ email: email(), password: z.string().min(1).max(MAX_PASSWORD_LENGTH), newPassword: newPassword() }).openapi("NewPasswordRequired")),
      responses: {
        200: { description: "Signed in", content: { "application/json": { schema: AccessToken } } },
        400: errorResponse("Invalid body, or the account has no temporary password (detail: not_required)"),
        401: errorResponse("Email or password is incorrect"),
        429: tooMany,
      },
    },
    async (c) => {
      const issued = await svc.newPasswordRequired(d, c.req.valid("json"), meta(c));
      setRefreshCookie(c, issued.refreshToken);
      return c.json({ accessToken: issued.accessToken }, 200);
    },
  );

  addRoute(
    app,
    {
      access: access.anonymous,
      method: "post",
      path: "/auth/Login/VerifyRegistrationEmail",
      tags,
      operationId: "Login_VerifyRegistrationEmail",
      summary: "Email a share link's visitor a link that proves their address",
      description:
        "204 whatever the email: a new address gets /invites/demo?identifier=...&token=... (valid 24 hours; " +
        "AcceptInvitation with the token creates the account), an existing account is told to sign in instead. " +
        "Limited to 3 emails per address and 20 per IP address an hour.",
      request: body(z.strictObject({ inviteIdentifier: z.string().max(100), email: email() }).openapi("VerifyRegistrationEmail")),
      responses: {
        204: { description: "Done (whatever the email)" },
        400: errorResponse("Invalid body, or the link expired (detail: link_expired)"),
        403: errorResponse("The link was made for another email address"),
        404: errorResponse("No such link, or its project is gone"),
        429: tooMany,
      },
    },
    async (c) => {
      await svc.verifyRegistrationEmail(d, c.req.valid("json"), meta(c));
      return c.body(null, 204);
    },
  );

  addRoute(
    app,
    {
      access: access.anonymous,
      method: "get",
      path: "/auth/Login/GetRegistrationInvite/{inviteIdentifier}",
      tags,
      operationId: "Login_GetRegistrationInvite",
      summary: "A share link's landing data: project, sharing client, expired or not",
      request: {
        params: z.object({
          inviteIdentifier: z
            .string()
            .max(100)
            .openapi({ param: { name: "inviteIdentifier", in: "path" } }),
        }),
      },
      responses: {
        200: { description: "The landing data", content: { "application/json": { schema: LinkLanding } } },
        400: commonErrors[400],
        404: errorResponse("No such link (or it was withdrawn)"),
      },
    },
    async (c) => c.json(await svc.registrationInvite(d, c.req.valid("param").inviteIdentifier), 200),
  );

  addRoute(
    app,
    {
      access: access.anonymous,
      method: "get",
      path: "/auth/Login/GetRegistrationLoginMethods",
      tags,
      operationId: "Login_GetRegistrationLoginMethods",
      summary: "How this email reaches a share link's project: sign in (existing account) or register",
      description: "Answers only for a real link; limited to 60 lookups per IP address in 15 minutes.",
      request: { query: z.object({ inviteIdentifier: z.string().max(100), email: email() }) },
      responses: {
        200: { description: "The ways in", content: { "application/json": { schema: RegistrationLoginMethods } } },
        400: commonErrors[400],
        404: errorResponse("No such link"),
        429: tooMany,
      },
    },
    async (c) => c.json(await svc.registrationLoginMethods(d, c.req.valid("query"), meta(c)), 200),
  );
}
