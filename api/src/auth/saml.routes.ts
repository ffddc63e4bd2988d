// SAML single sign-on routes. The security page's actions (CognitoIdps CreateSaml / UpdateSaml,
// for a client's Admins) are registered with the domain routes, so every app serves them; the
// anonymous sign-in calls (/auth/Saml/*) are registered with the other sign-in routes.
import { z } from "@hono/zod-openapi";
import type { Context } from "hono";
import type { App, AppEnv } from "../app-types.ts";
import type { Db } from "../db/client.ts";
import { access } from "../access/policy.ts";
import { addRoute, commonErrors, errorResponse, errors } from "../openapi.ts";
import type { AuthDeps } from "./auth.service.ts";
import { AccessToken } from "./schemas.ts";
import { exchangeCode } from "./codes.service.ts";
import * as svc from "./saml.service.ts";
import { LOOPBACK_REDIRECT, SSO_REASONS, STATE_PATTERN, redirectOnFailure, type SsoDeps } from "./sso.ts";

// ---- the security page ----

const Domain = z
  .string()
  .max(253)
  .regex(/^([a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?\.)+[a-z]{2,63}$/i, "must be a domain name such as example.com");

const idpFields = {
  metadataXml: z.string().min(1).max(200_000).optional().describe("The IdP's SAML 2.0 metadata document (EntityDescriptor with an IDPSSODescriptor); or give entryPoint, idpCert and idpIssuer"),
  entryPoint: z.string().min(1).max(2000).optional().describe("The IdP's single sign-on URL (HTTP-Redirect binding)"),
  idpCert: z.string().min(1).max(20_000).optional().describe("The IdP's signing certificate: PEM, or the base64 of an X509Certificate element"),
  idpIssuer: z.string().min(1).max(1024).optional().describe("The IdP's entity id: the Issuer of its assertions"),
  isEnabled: z.boolean().optional().describe("Off: nobody signs in through this IdP (default on)"),
};

const CreateSaml = z
  .strictObject({
    providerName: z
      .string()
      .regex(/^[A-Za-z0-9_.-]{1,32}$/, "1-32 letters, digits, '_', '.' or '-'")
      .describe("A name unique across the product (e.g. AcmeSSO); part of the linked identities' usernames"),
    ...idpFields,
    emailDomains: z
      .array(Domain)
      .min(1)
      .max(20)
      .describe(
        "Email domains whose users sign in through this IdP, once the client owns them (verifiedEmailDomains). Refused (409): another client's verified domain, the provider's own, another IdP's verified claim",
      ),
  })
  .openapi("CreateSaml");

const UpdateSaml = z.strictObject({ ...idpFields, emailDomains: z.array(Domain).min(1).max(20).optional() }).openapi("UpdateSaml");

const SamlIdp = z
  .object({
    id: z.number().int(),
    clientId: z.number().int(),
    providerName: z.string(),
    providerType: z.string(),
    entryPoint: z.string().nullable(),
    idpIssuer: z.string().nullable(),
    certificates: z.array(z.object({ subject: z.string(), notAfter: z.string(), fingerprintSha256: z.string() })),
    wantAuthnRequestsSigned: z.boolean(),
    emailDomains: z.array(z.string()),
    verifiedEmailDomains: z
      .array(z.string())
      .describe("The claimed domains the client (or a client above it) owns, by DNS (ValidateDomainRecord) or staff approval: sign-in routes by these only; the others are pending"),
    isEnabled: z.boolean(),
    createdAt: z.string(),
    updatedAt: z.string().nullable(),
  })
  .openapi("SamlIdentityProvider");

const json = <T extends z.ZodType>(schema: T) => ({ required: true, content: { "application/json": { schema } } });

export function registerSamlAdminRoutes(app: App, db: Db): void {
  const tags = ["CognitoIdps"];
  addRoute(
    app,
    {
      access: access.admin,
      method: "get",
      path: "/api/v1/CognitoIdps/SamlProviders",
      tags,
      operationId: "CognitoIdps_SamlProviders",
      summary: "The client's SAML identity providers, with which claimed email domains are verified (security page)",
      description:
        "Each IdP of the request's client with its emailDomains and verifiedEmailDomains: sign-in routes by the verified ones only; " +
        "a claimed domain not verified is pending until the client proves it owns it (Clients ValidateDomainRecord's DNS record) or staff approve it.",
      responses: {
        200: { description: "The identity providers", content: { "application/json": { schema: z.object({ value: z.array(SamlIdp) }).openapi("SamlIdentityProviders") } } },
        ...commonErrors,
      },
    },
    async (c) => c.json(await svc.listSaml(db, c.get("ctx")), 200),
  );

  addRoute(
    app,
    {
      access: access.admin,
      method: "post",
      path: "/api/v1/CognitoIdps/CreateSaml",
      tags,
      operationId: "CognitoIdps_CreateSaml",
      summary: "Add a SAML identity provider to the client (security page)",
      description:
        "Validates the metadata or the certificate (a bad one is a 400 naming the field). Users whose email is in emailDomains " +
        "and whose memberships all lie on this client or beneath it can then sign in through the IdP. Our service-provider " +
        "metadata (entity id, ACS URL) is at GET /auth/Saml/Metadata.",
      request: { body: json(CreateSaml) },
      responses: {
        201: { description: "The identity provider", content: { "application/json": { schema: SamlIdp } } },
        ...commonErrors,
        409: errors[409],
      },
    },
    async (c) => c.json(await svc.createSaml(db, c.get("ctx"), c.req.valid("json")), 201),
  );

  addRoute(
    app,
    {
      access: access.admin,
      method: "post",
      path: "/api/v1/CognitoIdps/{key}/UpdateSaml",
      tags,
      operationId: "CognitoIdps_UpdateSaml",
      summary: "Change a SAML identity provider: metadata or parts, email domains, on/off",
      request: {
        params: z.object({
          key: z
            .string()
            .regex(/^-?\d+$/, "must be an integer")
            .openapi({ param: { name: "key", in: "path" }, description: "CognitoIdps key" }),
        }),
        body: json(UpdateSaml),
      },
      responses: {
        200: { description: "The identity provider", content: { "application/json": { schema: SamlIdp } } },
        ...commonErrors,
        404: errors[404],
        409: errors[409],
      },
    },
    async (c) => {
      const key = Number(c.req.valid("param").key);
      return c.json(await svc.updateSaml(db, c.get("ctx"), key, c.req.valid("json")), 200);
    },
  );
}

// ---- the sign-in calls ----

export const State = z
  .string()
  .regex(STATE_PATTERN, "8-200 URL-safe characters (A-Z a-z 0-9 . _ ~ -)")
  .describe("The web app's random state; it comes back on the final redirect, for the web app to check");

export const redirectResponse = (description: string) => ({
  description,
  headers: z.object({ location: z.string().describe("Where the browser goes next") }),
});

export const REASONS_TEXT = `Failures redirect to {PUBLIC_URL}/auth/saml/error?reason=<code>, code one of: ${SSO_REASONS.join(", ")}.`;

export function registerSamlRoutes(app: App, deps: AuthDeps & { clientIp: (req: Request) => string | null }, sso: SsoDeps, setRefreshCookie: (c: Context<AppEnv>, token: string) => void): void {
  const tags = ["Auth"];

  addRoute(
    app,
    {
      access: access.anonymous,
      method: "get",
      path: "/auth/Saml/Login",
      tags,
      operationId: "Saml_Login",
      summary: "Start SAML single sign-on: redirects to the identity provider of the email's domain",
      description: `Sends an AuthnRequest (HTTP-Redirect binding; signed when the service has a SAML key) with the state as RelayState. ${REASONS_TEXT}`,
      request: {
        query: z.object({
          email: z.string().email().max(320),
          state: State,
          redirectUri: z
            .string()
            .max(200)
            .regex(LOOPBACK_REDIRECT, "a loopback address: http://127.0.0.1:PORT/path or http://[::1]:PORT/path")
            .optional()
            .describe("A native app's loopback address (RFC 8252), e.g. the CLI's http://127.0.0.1:PORT/callback: the code goes there instead of the web app"),
        }),
      },
      responses: { 302: redirectResponse("To the identity provider, or to the web app's error page"), 400: commonErrors[400] },
    },
    async (c) => {
      const input = c.req.valid("query");
      return c.redirect(await redirectOnFailure(sso, "saml login", () => svc.samlLogin(deps.db, sso, input)), 302);
    },
  );

  addRoute(
    app,
    {
      access: access.anonymous,
      method: "post",
      path: "/auth/Saml/Acs",
      tags,
      operationId: "Saml_Acs",
      summary: "Assertion consumer service: the identity provider posts its SAML Response here",
      description:
        "Checks the assertion's signature against the IdP's certificate, its audience (our entity id), validity window, " +
        "InResponseTo (a sign-in we started, once) and one-time use, then the account (an existing user in the IdP's " +
        `domains whose memberships lie on the IdP's client or beneath it). Success redirects to {PUBLIC_URL}/auth/saml/login?code=...&state=... ` +
        `(a single-use code for GET /auth/Saml/Code, valid 60 s). ${REASONS_TEXT}`,
      request: {
        body: {
          required: false,
          content: {
            "application/x-www-form-urlencoded": {
              schema: z.object({ SAMLResponse: z.string().optional(), RelayState: z.string().optional() }).openapi("SamlPost"),
            },
          },
        },
      },
      responses: { 302: redirectResponse("To the web app's /auth/saml/login with a code, or to its error page"), 400: commonErrors[400] },
    },
    async (c) => {
      const form = c.req.valid("form");
      return c.redirect(await redirectOnFailure(sso, "saml acs", () => svc.samlAcs(deps.db, sso, form)), 302);
    },
  );

  addRoute(
    app,
    {
      access: access.anonymous,
      method: "get",
      path: "/auth/Saml/Code",
      tags,
      operationId: "Saml_Code",
      summary: "Exchange the single-use code of a SAML or LinkedIn sign-in for an access token",
      description:
        "Like PasswordLogin: answers an access token and sets the refresh token in an httpOnly cookie (ideally_refresh, path /auth). " +
        "The code is valid once, for 60 seconds, with the state it was issued with.",
      request: { query: z.object({ code: z.string().min(1).max(200), state: State }) },
      responses: {
        200: { description: "Signed in", content: { "application/json": { schema: AccessToken } } },
        400: commonErrors[400],
        422: errorResponse("Unknown, used or expired code, or another state (typename AuthFailureDto): sign in again"),
      },
    },
    async (c) => {
      const input = c.req.valid("query");
      const issued = await exchangeCode(deps, input, { ip: deps.clientIp(c.req.raw), userAgent: c.req.header("user-agent") ?? null });
      setRefreshCookie(c, issued.refreshToken);
      return c.json({ accessToken: issued.accessToken }, 200);
    },
  );

  addRoute(
    app,
    {
      access: access.anonymous,
      method: "get",
      path: "/auth/Saml/Metadata",
      tags,
      operationId: "Saml_Metadata",
      summary: "Our SAML service-provider metadata, for configuring the identity provider",
      responses: {
        200: { description: "SAML 2.0 metadata (entity id, ACS URL, signing certificate)", content: { "application/samlmetadata+xml": { schema: z.string() } } },
      },
    },
    (c) => c.body(svc.spMetadata(sso), 200, { "content-type": "application/samlmetadata+xml; charset=utf-8" }),
  );
}
