// Schemas shared by the sign-in routes (auth.routes.ts) and the routes it registers (SAML, LinkedIn,
// account): in a module of their own, so those never import auth.routes.ts back.
import { z } from "@hono/zod-openapi";

export const AccessToken = z.object({ accessToken: z.string().describe("Bearer token for /api/v1 calls; its claims include the expiry (exp)") }).openapi("AccessToken");
