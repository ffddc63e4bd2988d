// FeatureFlags actions (SPEC 7: Enable, Disable, EnableIdeally, DisableIdeally) and the resolved
// flag set of the request's client (FeatureFlags/Resolved).
import { z } from "@hono/zod-openapi";
import type { App, AppDeps } from "../../app-types.ts";
import { access } from "../../access/policy.ts";
import { addRoute, commonErrors, errorResponse } from "../../openapi.ts";
import * as svc from "./flags.service.ts";
import type { FlagSwitch } from "./flags.sql.ts";

const tags = ["FeatureFlags"];

const KeyParams = z.object({
  key: z
    .string()
    .regex(/^-?\d{1,9}$/, "must be an integer")
    .openapi({ param: { name: "key", in: "path" }, description: "FeatureFlags key" }),
});
const keyOf = (c: { req: { valid(target: "param"): { key: string } } }) => Number(c.req.valid("param").key);

export const FeatureFlagState = z
  .object({
    id: z.number().int(),
    ff: z.string(),
    description: z.string().nullable(),
    isEnabled: z.boolean().describe("On for everyone (unless a client switches it off)"),
    isEnabledForStaff: z.boolean().describe("On for provider staff (the Ideally switch)"),
    createdAt: z.string().datetime(),
    updatedAt: z.string().datetime().nullable(),
  })
  .openapi("FeatureFlagState");

export const ResolvedFlag = z
  .object({
    id: z.number().int(),
    ff: z.string().describe("The flag's key, e.g. MarketReach"),
    isEnabled: z.boolean(),
    source: z.enum(["global", "client", "ideally"]).describe("What decided: the global switch, the client's ClientFeatures override, or the Ideally switch (staff only)"),
  })
  .openapi("ResolvedFeatureFlag");

const ResolvedFlags = z
  .object({
    clientId: z.number().int().nullable().describe("The client resolved for (clientId header), or null"),
    value: z.array(ResolvedFlag),
  })
  .openapi("ResolvedFeatureFlags");

const SWITCHES: { name: string; which: FlagSwitch; on: boolean; summary: string }[] = [
  { name: "Enable", which: "global", on: true, summary: "Switch a flag on for everyone (clients may still switch it off)" },
  { name: "Disable", which: "global", on: false, summary: "Switch a flag off globally (clients may still switch it on)" },
  { name: "EnableIdeally", which: "staff", on: true, summary: "Switch a flag on for Ideally staff only" },
  { name: "DisableIdeally", which: "staff", on: false, summary: "Switch the Ideally-staff-only switch of a flag off" },
];

export function registerFlagRoutes(app: App, deps: AppDeps): void {
  addRoute(
    app,
    {
      access: access.signedIn,
      method: "get",
      path: "/api/v1/FeatureFlags/Resolved",
      tags,
      operationId: "FeatureFlags_Resolved",
      summary: "Every feature flag as it applies to the caller on the request's client",
      description:
        "Layers: the client's ClientFeatures row (on or off) when it has one, else the global switch; for Ideally staff, " +
        "the Ideally switch turns on what the others leave off. Without a clientId header: the global and staff layers only.",
      responses: {
        200: { description: "The resolved flags", content: { "application/json": { schema: ResolvedFlags } } },
        ...commonErrors,
      },
    },
    async (c) => c.json(await svc.resolved(deps.db, c.get("ctx")), 200),
  );

  for (const s of SWITCHES) {
    addRoute(
      app,
      {
        access: access.staff,
        method: "post",
        path: `/api/v1/FeatureFlags/{key}/${s.name}`,
        tags,
        operationId: `FeatureFlags_${s.name}`,
        summary: s.summary,
        request: { params: KeyParams },
        responses: {
          200: { description: "The flag's switches after the change", content: { "application/json": { schema: FeatureFlagState } } },
          ...commonErrors,
          404: errorResponse("No such flag"),
        },
      },
      async (c) => c.json(await svc.setSwitch(deps.db, c.get("ctx"), { id: keyOf(c), which: s.which, on: s.on }), 200),
    );
  }
}
