// Staff's client actions (SPEC 7): Clients AdminUpdate, ValidateDomainRecord, SetupTrialAccount;
// TranslatedTextRegions AdminFiltered and AddDemographicTranslations.
import { resolveTxt } from "node:dns/promises";
import { z } from "@hono/zod-openapi";
import type { App, AppDeps } from "../../app-types.ts";
import { access } from "../../access/policy.ts";
import { addRoute, commonErrors, errors, keyOf, keyParams } from "../../openapi.ts";
import { outboxMailer } from "../../email/mailer.ts";
import * as svc from "./clients.admin.ts";
import { ClientFields } from "../../entities/tenancy.ts";

const Key = keyParams("Clients");
const ok = <T extends z.ZodType>(schema: T, description: string) => ({ 200: { description, content: { "application/json": { schema } } } });
const json = <T extends z.ZodType>(schema: T) => ({ body: { required: true, content: { "application/json": { schema } } } });

const ClientState = z.record(z.string(), z.unknown());
const AdminUpdate = z
  .strictObject({
    name: ClientFields.name.optional(),
    industry: ClientFields.industry.nullable().optional(),
    hsCompanyId: ClientFields.hsCompanyId.nullable().optional(),
    parentId: z.number().int().nullable().optional(),
    isTrial: z.boolean().optional(),
    trialEndsAt: z.string().datetime({ offset: true }).nullable().optional(),
  })
  .openapi("ClientAdminUpdate");
const Domain = z
  .object({
    clientId: z.number().int(),
    domain: z.string(),
    verified: z.boolean(),
    record: z.object({ type: z.literal("TXT"), name: z.string(), value: z.string() }),
    message: z.string(),
  })
  .openapi("ValidateDomainRecordResult");
const Trial = z
  .strictObject({
    name: ClientFields.name,
    industry: ClientFields.industry.nullable().optional(),
    adminEmail: z.string().email().max(320),
    firstName: z.string().max(100).optional(),
    lastName: z.string().max(100).optional(),
    credits: z.number().min(0).max(100000).optional(),
    trialDays: z.number().int().min(1).max(365).optional(),
  })
  .openapi("SetupTrialAccount");

export function registerClientAdminRoutes(app: App, deps: AppDeps): void {
  registerClientAdminActions(app, deps);
  registerTranslationsAdmin(app, deps);
  registerTranslationsAdd(app, deps);
}

/** Clients AdminUpdate, ValidateDomainRecord and SetupTrialAccount. */
function registerClientAdminActions(app: App, deps: AppDeps): void {
  const db = deps.db;
  const lookup: svc.ResolveTxt = deps.resolveTxt ?? resolveTxt;
  addRoute(
    app,
    {
      access: access.staff,
      method: "post",
      path: "/api/v1/Clients/{key}/AdminUpdate",
      tags: ["Clients"],
      operationId: "Clients_AdminUpdate",
      summary: "Change a client's account fields (staff)",
      description: "Name, industry, HubSpot company id, place in the client tree (parentId, within the tree's rules), trial flag and end. Unchanged fields are not written; the changes are audited.",
      request: { params: Key, ...json(AdminUpdate) },
      responses: { ...ok(z.object({ client: ClientState, changes: z.record(z.string(), z.object({ from: z.unknown(), to: z.unknown() })) }).openapi("ClientAdminUpdateResult"), "The client and what changed"), ...commonErrors, 404: errors[404] },
    },
    async (c) => c.json(await svc.adminUpdate(db, c.get("ctx"), keyOf(c), c.req.valid("json")), 200),
  );
  addRoute(
    app,
    {
      access: access.staff,
      method: "post",
      path: "/api/v1/Clients/{key}/ValidateDomainRecord",
      tags: ["Clients"],
      operationId: "Clients_ValidateDomainRecord",
      summary: "Verify a client's email domain by DNS (or approve it as staff)",
      description:
        "Looks up the domain's TXT records for the client's verification value; when present the client owns the domain (a domain has one owner; " +
        "a newer proof moves it). With approve: true, staff vouch for it without DNS. An owned domain is what lets the client's SAML identity " +
        "providers route its sign-ins. The answer always gives the record to publish.",
      request: {
        params: Key,
        ...json(
          z
            .strictObject({
              domain: z.string().min(3).max(253),
              approve: z.boolean().optional().describe("Staff approval without the DNS record (audited as DomainApproved)"),
            })
            .openapi("ValidateDomainRecord"),
        ),
      },
      responses: { ...ok(Domain, "The check"), ...commonErrors, 404: errors[404] },
    },
    async (c) => {
      const b = c.req.valid("json");
      return c.json(await svc.validateDomainRecord(db, c.get("ctx"), keyOf(c), b.domain, lookup, { approve: b.approve }), 200);
    },
  );
  addRoute(
    app,
    {
      access: access.staff,
      method: "post",
      path: "/api/v1/Clients/SetupTrialAccount",
      tags: ["Clients"],
      operationId: "Clients_SetupTrialAccount",
      summary: "Set up a trial team",
      description: "A new Team on a trial (default 30 days) with a Freebie (86) of credits (default 500), and its first Admin invited by email.",
      request: json(Trial),
      responses: { ...ok(z.object({ clientId: z.number().int(), name: z.string(), trialDays: z.number().int(), credits: z.number(), invited: z.record(z.string(), z.unknown()) }).openapi("SetupTrialAccountResult"), "The trial team"), ...commonErrors },
    },
    async (c) => c.json(await svc.setupTrialAccount({ db, registry: deps.registry, mailer: deps.mailer ?? outboxMailer(db, { publicUrl: deps.publicUrl }) }, c.get("ctx"), c.req.valid("json")), 200),
  );
}

/** TranslatedTextRegions AdminFiltered. */
function registerTranslationsAdmin(app: App, deps: AppDeps): void {
  const db = deps.db;
  addRoute(
    app,
    {
      access: access.staff,
      method: "get",
      path: "/api/v1/TranslatedTextRegions/AdminFiltered",
      tags: ["TranslatedTextRegions"],
      operationId: "TranslatedTextRegions_AdminFiltered",
      summary: "Translations, filtered (staff)",
      description: "Survey translations by region, language, source type, verification and text, with the total for paging.",
      request: {
        query: z.object({
          regionId: z.string().regex(/^\d{1,9}$/).optional().openapi({ param: { name: "regionId", in: "query" } }),
          languageCode: z.string().max(20).optional().openapi({ param: { name: "languageCode", in: "query" } }),
          sourceType: z.enum(["SystemQuestion", "SystemQuestionOption", "StandardQuestion", "StandardQuestionOption", "Survey"]).optional().openapi({ param: { name: "sourceType", in: "query" } }),
          isVerified: z.enum(["true", "false"]).optional().openapi({ param: { name: "isVerified", in: "query" } }),
          search: z.string().max(200).optional().openapi({ param: { name: "search", in: "query" } }),
          top: z.string().regex(/^\d{1,4}$/).optional().openapi({ param: { name: "top", in: "query" }, description: "At most 1000, default 100" }),
          skip: z.string().regex(/^\d{1,9}$/).optional().openapi({ param: { name: "skip", in: "query" } }),
        }),
      },
      responses: {
        ...ok(
          z
            .object({
              count: z.number().int(),
              value: z.array(
                z.object({
                  id: z.number().int(),
                  regionId: z.number().int(),
                  regionName: z.string(),
                  languageCode: z.string(),
                  sourceType: z.enum(["SystemQuestion", "SystemQuestionOption", "StandardQuestion", "StandardQuestionOption", "Survey"]),
                  sourceId: z.number().int().nullable(),
                  sourceText: z.string(),
                  translatedText: z.string(),
                  isVerified: z.boolean(),
                  updatedByUserId: z.number().int().nullable(),
                  changedAt: z.string().openapi({ format: "date-time", description: "Last edit, else creation" }),
                }),
              ),
            })
            .openapi("TranslationsFiltered"),
          "Translations",
        ),
        ...commonErrors,
      },
    },
    async (c) => {
      const x = c.req.valid("query");
      return c.json(
        await svc.adminFiltered(db, c.get("ctx"), {
          regionId: x.regionId ? Number(x.regionId) : undefined,
          languageCode: x.languageCode,
          sourceType: x.sourceType,
          isVerified: x.isVerified === undefined ? undefined : x.isVerified === "true",
          search: x.search,
          top: x.top ? Math.min(1000, Number(x.top)) : undefined,
          skip: x.skip ? Number(x.skip) : undefined,
        }),
        200,
      );
    },
  );
}

/** TranslatedTextRegions AddDemographicTranslations. */
function registerTranslationsAdd(app: App, deps: AppDeps): void {
  const db = deps.db;
  addRoute(
    app,
    {
      access: access.staff,
      method: "post",
      path: "/api/v1/TranslatedTextRegions/AddDemographicTranslations",
      tags: ["TranslatedTextRegions"],
      operationId: "TranslatedTextRegions_AddDemographicTranslations",
      summary: "Add a region's demographic translations",
      description: "Translations of demographic (system) questions and options for a region and language, written as verified; an unchanged one is not written again. Surveys take them when their runs are created, or through ReuploadTranslations.",
      request: json(
        z
          .strictObject({
            regionId: z.number().int(),
            languageCode: z.string().regex(/^[a-z]{2,3}(-[A-Za-z0-9]+)*$/),
            translations: z.array(z.strictObject({ sourceType: z.enum(["SystemQuestion", "SystemQuestionOption"]), sourceId: z.number().int(), translatedText: z.string().min(1).max(2000) })).min(1).max(1000),
          })
          .openapi("AddDemographicTranslations"),
      ),
      responses: { ...ok(z.object({ regionId: z.number().int(), languageCode: z.string(), received: z.number().int(), written: z.number().int() }).openapi("AddDemographicTranslationsResult"), "Written"), ...commonErrors, 404: errors[404] },
    },
    async (c) => c.json(await svc.addDemographicTranslations(db, c.get("ctx"), c.req.valid("json")), 200),
  );
}
