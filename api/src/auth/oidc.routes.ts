// LinkedIn sign-in (OpenID Connect): start and callback. Registered whether or not LinkedIn is
// configured, so the contract does not depend on the environment; unconfigured or switched off
// (LINKEDIN_DISABLED), both redirect to the web app's error page with reason linkedin_disabled.
import { z } from "@hono/zod-openapi";
import type { App } from "../app-types.ts";
import type { Db } from "../db/client.ts";
import { access } from "../access/policy.ts";
import { addRoute, commonErrors } from "../openapi.ts";
import { oidcCallback, oidcLogin, oidcProvider } from "./oidc.service.ts";
import { REASONS_TEXT, State, redirectResponse } from "./saml.routes.ts";
import { redirectOnFailure, type SsoDeps } from "./sso.ts";

export function registerLinkedInRoutes(app: App, db: Db, sso: SsoDeps): void {
  const tags = ["Auth"];
  // One provider per app: its discovery document and keys are fetched at first use and cached.
  const provider = sso.linkedIn ? oidcProvider("linkedin", sso.linkedIn, sso.fetch) : null;

  addRoute(
    app,
    {
      access: access.anonymous,
      method: "get",
      path: "/auth/LinkedIn/Login",
      tags,
      operationId: "LinkedIn_Login",
      summary: "Start LinkedIn sign-in: redirects to LinkedIn's authorization page",
      description: `OpenID Connect authorization-code flow with state, nonce and PKCE (S256). ${REASONS_TEXT}`,
      request: { query: z.object({ state: State }) },
      responses: { 302: redirectResponse("To LinkedIn, or to the web app's error page"), 400: commonErrors[400] },
    },
    async (c) => {
      const input = c.req.valid("query");
      return c.redirect(await redirectOnFailure(sso, "linkedin login", () => oidcLogin(db, sso, provider, input)), 302);
    },
  );

  const param = z.string().max(4000).optional();
  addRoute(
    app,
    {
      access: access.anonymous,
      method: "get",
      path: "/auth/LinkedIn/Callback",
      tags,
      operationId: "LinkedIn_Callback",
      summary: "LinkedIn's redirect back: verifies the id_token and hands over to the web app",
      description:
        "Redeems the code (with the PKCE verifier), verifies the id_token (RS256 against the provider's JWKS; issuer, audience, " +
        "expiry, nonce) and matches its verified email to an existing account. Success redirects to " +
        "{PUBLIC_URL}/auth/saml/login?code=...&state=..., exchanged like SAML's through GET /auth/Saml/Code. " +
        REASONS_TEXT,
      request: { query: z.object({ code: param, state: param, error: param, error_description: param }) },
      responses: { 302: redirectResponse("To the web app's /auth/saml/login with a code, or to its error page"), 400: commonErrors[400] },
    },
    async (c) => {
      const query = c.req.valid("query");
      return c.redirect(await redirectOnFailure(sso, "linkedin callback", () => oidcCallback(db, sso, provider, query)), 302);
    },
  );
}
