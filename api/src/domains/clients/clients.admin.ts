// Staff's client actions (SPEC 7): Clients AdminUpdate, ValidateDomainRecord, SetupTrialAccount;
// TranslatedTextRegions AdminFiltered and AddDemographicTranslations. Each change leaves an audit
// row in DataEventsLog (who, what, when).
import type { Db, Tx } from "../../db/client.ts";
import { enterTenant } from "../../access/policy.ts";
import type { RequestCtx } from "../../access/principal.ts";
import { ApiError } from "../../errors.ts";
import { createClient } from "../tenancy/tenancy.service.ts";
import { inviteToClient, type InviteDeps } from "../invites/invites.service.ts";
import { jsonParam } from "../../db/params.ts";

async function audit(tx: Tx, ctx: RequestCtx, clientId: number | null, entityType: string, entityId: number | null, event: string, data: Record<string, unknown>) {
  await tx`insert into data_events_log (client_id, user_id, entity_type, entity_id, event, data)
           values (${clientId}, ${ctx.principal.userId}, ${entityType}, ${entityId}, ${event}, ${jsonParam(tx, data)})`;
}

const staff = (ctx: RequestCtx): RequestCtx => ({ ...ctx, clientId: null, descendants: false });

// ---- AdminUpdate ----

export interface AdminUpdateInput {
  name?: string;
  industry?: string | null;
  hsCompanyId?: string | null;
  parentId?: number | null;
  isTrial?: boolean;
  trialEndsAt?: string | null;
}

const FIELDS: Record<keyof AdminUpdateInput, string> = {
  name: "name",
  industry: "industry",
  hsCompanyId: "hs_company_id",
  parentId: "parent_id",
  isTrial: "is_trial",
  trialEndsAt: "trial_ends_at",
};

export async function adminUpdate(db: Db, ctx: RequestCtx, clientId: number, input: AdminUpdateInput) {
  return enterTenant(db, staff(ctx), async (tx) => {
    const [before] = await tx<Record<string, unknown>[]>`
      select name, industry, hs_company_id as "hsCompanyId", parent_id as "parentId", is_trial as "isTrial", to_json(trial_ends_at)#>>'{}' as "trialEndsAt"
      from clients where id = ${clientId} for update`;
    if (!before) throw new ApiError("NotFound", `No client ${clientId}`);
    const changes: Record<string, { from: unknown; to: unknown }> = {};
    for (const k of Object.keys(FIELDS) as (keyof AdminUpdateInput)[]) {
      if (input[k] === undefined || input[k] === before[k]) continue;
      changes[k] = { from: before[k], to: input[k] };
    }
    if (Object.keys(changes).length) {
      const set = Object.keys(changes).map((k) => tx`${tx(FIELDS[k as keyof AdminUpdateInput])} = ${input[k as keyof AdminUpdateInput] ?? null}`);
      await tx`update clients set ${set.reduce((a, b) => tx`${a}, ${b}`)}, updated_at = now() where id = ${clientId}`.catch((e: { code?: string; message?: string; detail?: string }) => {
        if (e.code === "23514" || e.code === "23503") throw new ApiError("ValidationError", e.message ?? "The change breaks a rule of the client tree", e.detail);
        throw e;
      });
      await audit(tx, ctx, clientId, "Client", clientId, "AdminUpdated", { changes });
    }
    const [after] = await tx<Record<string, unknown>[]>`
      select id, name, tier, industry, hs_company_id as "hsCompanyId", parent_id as "parentId", is_trial as "isTrial",
             to_json(trial_ends_at)#>>'{}' as "trialEndsAt", domain
      from clients where id = ${clientId}`;
    return { client: after!, changes };
  });
}

// ---- ValidateDomainRecord ----

export type ResolveTxt = (hostname: string) => Promise<string[][]>;

/** The TXT value a client publishes to prove it owns a domain: its random token (migration 0022). */
export function verificationValue(token: string): string {
  return `ideally-verification=${token}`;
}

/**
 * ValidateDomainRecord: a client owns an email domain once its TXT record holds the client's value
 * (or, with `approve`, once staff vouch for it without DNS, e.g. after checking by other means).
 * Ownership is what lets the client's identity providers route that domain's sign-ins (migration
 * 0035); a domain has one owner, and a newer proof moves it.
 */
export async function validateDomainRecord(db: Db, ctx: RequestCtx, clientId: number, rawDomain: string, resolveTxt: ResolveTxt, opts: { approve?: boolean } = {}) {
  const domain = rawDomain.trim().toLowerCase().replace(/\.$/, "");
  if (!/^(?=.{1,253}$)([a-z0-9](-?[a-z0-9])*\.)+[a-z]{2,63}$/.test(domain))
    throw new ApiError("ValidationError", "domain: a domain name such as example.com", undefined, [{ path: "domain", message: "A domain name such as example.com" }]);
  const expected = await enterTenant(db, staff(ctx), async (tx) => {
    const [c] = await tx<{ token: string }[]>`select domain_verification_token::text as token from clients where id = ${clientId}`;
    if (!c) throw new ApiError("NotFound", `No client ${clientId}`);
    return verificationValue(c.token);
  });
  let records: string[][] = [];
  if (!opts.approve) {
    try {
      records = await resolveTxt(domain);
    } catch (e) {
      const code = (e as { code?: string }).code;
      if (code !== "ENOTFOUND" && code !== "ENODATA") throw new ApiError("ServiceUnavailable", `The DNS lookup of ${domain} failed (${code ?? "error"}); try again later`, undefined, undefined, 60);
    }
  }
  const found = !!opts.approve || records.some((r) => r.join("") === expected);
  const method = opts.approve ? "staff" : "dns";
  return enterTenant(db, staff(ctx), async (tx) => {
    if (found) {
      await tx`update clients set domain = ${domain}, domain_verified_at = now(), updated_at = now() where id = ${clientId}`;
      await tx`
        insert into verified_email_domains (domain, client_id, method, verified_by_user_id)
        values (${domain}, ${clientId}, ${method}, ${ctx.principal.userId})
        on conflict (domain) do update set client_id = excluded.client_id, method = excluded.method,
          verified_by_user_id = excluded.verified_by_user_id, verified_at = now()`;
    }
    await audit(tx, ctx, clientId, "Client", clientId, opts.approve ? "DomainApproved" : "DomainValidation", { domain, verified: found, method });
    return {
      clientId,
      domain,
      verified: found,
      record: { type: "TXT" as const, name: domain, value: expected },
      message: found ? (opts.approve ? `${domain} is verified (approved by staff)` : `${domain} is verified`) : `Add a TXT record to ${domain} with the value ${expected}, then validate again`,
    };
  });
}

// ---- SetupTrialAccount ----

export interface TrialInput {
  name: string;
  industry?: string | null;
  adminEmail: string;
  firstName?: string;
  lastName?: string;
  credits?: number;
  trialDays?: number;
}

/** A new Team on a trial: trial flag and end date, a Freebie (86) of credits, and its first Admin invited. */
export async function setupTrialAccount(deps: InviteDeps, ctx: RequestCtx, input: TrialInput) {
  const team = await createClient(deps.db, staff(ctx), { tier: "Team", name: input.name, industry: input.industry ?? null });
  const days = input.trialDays ?? 30;
  const credits = input.credits ?? 500;
  await enterTenant(deps.db, staff(ctx), async (tx) => {
    await tx`update clients set is_trial = true, trial_ends_at = now() + ${days} * interval '1 day', updated_at = now() where id = ${team.id}`;
    if (credits > 0) {
      await tx`insert into credit_logs (client_id, type, credit_amount, description, created_by_user_id)
               values (${team.id}, 86, ${credits}, ${`Trial credits (${days} days)`}, ${ctx.principal.userId})`;
    }
    await audit(tx, ctx, team.id, "Client", team.id, "TrialAccountSetUp", { name: input.name, adminEmail: input.adminEmail, credits, trialDays: days });
  });
  const outcome = await inviteToClient(deps, { ...ctx, clientId: team.id }, { email: input.adminEmail, firstName: input.firstName, lastName: input.lastName, roleId: 1 });
  // An existing account is invited (pending until they accept); a new one is the new user's row.
  const invited = outcome.kind === "added" ? (JSON.parse(outcome.user) as Record<string, unknown>) : { ...outcome.invitation };
  return { clientId: team.id, name: input.name, trialDays: days, credits, invited };
}

// ---- translations ----

export interface TranslationFilter {
  regionId?: number;
  languageCode?: string;
  sourceType?: string;
  search?: string;
  isVerified?: boolean;
  top?: number;
  skip?: number;
}

export interface TranslationRow {
  id: number;
  regionId: number;
  regionName: string;
  languageCode: string;
  sourceType: "SystemQuestion" | "SystemQuestionOption" | "StandardQuestion" | "StandardQuestionOption" | "Survey";
  sourceId: number | null;
  sourceText: string;
  translatedText: string;
  isVerified: boolean;
  updatedByUserId: number | null;
  changedAt: string;
}

export async function adminFiltered(db: Db, ctx: RequestCtx, f: TranslationFilter) {
  return enterTenant(db, staff(ctx), async (tx) => {
    const like = f.search ? `%${f.search.replace(/[\\%_]/g, (m) => `\\${m}`)}%` : null;
    const where = tx`
      where (${f.regionId ?? null}::int is null or t.region_id = ${f.regionId ?? null}::int)
        and (${f.languageCode ?? null}::text is null or t.language_code = ${f.languageCode ?? null}::text)
        and (${f.sourceType ?? null}::text is null or t.source_type = ${f.sourceType ?? null}::text)
        and (${f.isVerified ?? null}::boolean is null or t.is_verified = ${f.isVerified ?? null}::boolean)
        and (${like}::text is null or t.source_text ilike ${like} or t.translated_text ilike ${like})`;
    const [{ count }] = await tx<{ count: number }[]>`select count(*)::int as count from translated_text_regions t ${where}`;
    const value = await tx<TranslationRow[]>`
      select t.id, t.region_id as "regionId", r.region_name as "regionName", t.language_code as "languageCode", t.source_type as "sourceType",
             t.source_id as "sourceId", t.source_text as "sourceText", t.translated_text as "translatedText", t.is_verified as "isVerified",
             t.updated_by_user_id as "updatedByUserId", to_json(coalesce(t.updated_at, t.created_at))#>>'{}' as "changedAt"
      from translated_text_regions t join regions r on r.id = t.region_id ${where}
      order by t.region_id, t.language_code, t.source_type, t.source_id nulls last, t.id
      limit ${f.top ?? 100} offset ${f.skip ?? 0}`;
    return { count, value };
  });
}

export interface DemographicTranslation {
  sourceType: "SystemQuestion" | "SystemQuestionOption";
  sourceId: number;
  translatedText: string;
}

/** AddDemographicTranslations: a region's translations of demographic questions and options, upserted (verified: staff wrote them). */
export async function addDemographicTranslations(db: Db, ctx: RequestCtx, input: { regionId: number; languageCode: string; translations: DemographicTranslation[] }) {
  return enterTenant(db, staff(ctx), async (tx) => {
    const [r] = await tx`select 1 from regions where id = ${input.regionId}`;
    if (!r) throw new ApiError("NotFound", `No region ${input.regionId}`);
    const errors: { path: string; message: string }[] = [];
    const rows: { sourceType: string; sourceId: number; sourceText: string; translatedText: string }[] = [];
    for (const [i, t] of input.translations.entries()) {
      const [src] =
        t.sourceType === "SystemQuestion"
          ? await tx<{ text: string }[]>`select question_text as text from system_question where id = ${t.sourceId}`
          : await tx<{ text: string }[]>`select answer_label as text from system_question_option where id = ${t.sourceId}`;
      if (!src) errors.push({ path: `translations.${i}.sourceId`, message: `No ${t.sourceType} ${t.sourceId}` });
      else rows.push({ ...t, sourceText: src.text });
    }
    if (errors.length) throw new ApiError("ValidationError", errors.map((e) => `${e.path}: ${e.message}`).join("; "), undefined, errors);
    let written = 0;
    for (const row of rows) {
      const done = await tx`
        insert into translated_text_regions (region_id, language_code, source_type, source_id, source_text, translated_text, is_verified, updated_by_user_id)
        values (${input.regionId}, ${input.languageCode}, ${row.sourceType}, ${row.sourceId}, ${row.sourceText}, ${row.translatedText}, true, ${ctx.principal.userId})
        on conflict (region_id, language_code, source_type, coalesce(source_id, 0), md5(source_text))
        do update set translated_text = excluded.translated_text, is_verified = true, updated_by_user_id = excluded.updated_by_user_id, updated_at = now()
        where translated_text_regions.translated_text is distinct from excluded.translated_text or not translated_text_regions.is_verified`;
      written += done.count;
    }
    await audit(tx, ctx, null, "TranslatedTextRegions", null, "DemographicTranslationsAdded", { regionId: input.regionId, languageCode: input.languageCode, count: rows.length, written });
    return { regionId: input.regionId, languageCode: input.languageCode, received: rows.length, written };
  });
}
