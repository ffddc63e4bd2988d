// A run fielded through Dynata's Samplify API (api/src/samplify/client.ts; decision records 0084,
// 0127). Off unless SAMPLIFY_* is configured. One Samplify project per project wave
// (extProjectId ideally-{projectId}-w{wave}), one line item per market (extLineItemId run-{runId})
// with the run's quota (targets and requiredCompletes), its targets and quotas (quotaPlan,
// samplify-plan.ts), incidence (the project's IncidenceEstimate, in percent), length of interview
// (minutes, from the survey's pages) and days in field (to the run's field end). Samplify sends its
// respondents to the run's entry link as the run's sample supplier (the redirect protocol of
// suppliers.ts), so the run needs one (SetSampleSupplier) before Samplify; its test link carries the
// run's test key (test entries count for nothing). Dynata's end links and security keys, from the
// line item's answer, are kept on the run: its respondents are sent back to them (suppliers.ts).
import type { Db, Tx } from "../../db/client.ts";
import { enterTenant } from "../../access/policy.ts";
import { jsonParam } from "../../db/params.ts";
import { ApiError } from "../../errors.ts";
import { Samplify, SamplifyError, samplifyFromEnv, type EndLinks, type Feasibility, type LineItem, type LineItemAction, type LineItemCriteria } from "../../samplify/client.ts";
import { systemCtx } from "../lifecycle/lifecycle.service.ts";
import { pages, type SurveyDefinition } from "./engine.ts";
import { SURVEY_STATUS, surveyUrl } from "./fielding.service.ts";
import { samplifyPlan } from "./samplify-plan.ts";
import { dynataEndLinksProblem } from "./suppliers.ts";

const system = <T>(db: Db, fn: (tx: Tx) => Promise<T>) => enterTenant(db, systemCtx(), fn);

export const SAMPLIFY_NOT_CONFIGURED = "Samplify is not configured: set SAMPLIFY_CLIENT_ID, SAMPLIFY_USERNAME and SAMPLIFY_PASSWORD";

/** ISO 3166 countries of the markets (US states field in the USA). */
export function countryOf(regionId: number): string | null {
  if (regionId === 1) return "NZ";
  if (regionId === 2) return "AU";
  if (regionId === 15 || (regionId >= 56 && regionId <= 104)) return "US";
  if (regionId === 17) return "SG";
  return null;
}

/** Seconds a respondent spends per page, for the length of interview Samplify prices on. */
const SECONDS_PER_PAGE = 20;

export function client(): Samplify {
  const cfg = samplifyFromEnv();
  if (!cfg) throw new ApiError("ServiceUnavailable", SAMPLIFY_NOT_CONFIGURED);
  return new Samplify(cfg);
}

export const configured = () => samplifyFromEnv() !== null;

interface RunForSamplify {
  id: number;
  regionId: number;
  targetCompletes: number | null;
  surveyLink: string;
  definition: SurveyDefinition | null;
  fieldEndAt: string | null;
  sampleSupplierId: number | null;
  entryParameter: string | null;
  testEntryKey: string;
  samplifyProjectId: string | null;
  samplifyLineItemId: string | null;
  projectId: number;
  projectName: string;
  incidence: number | null;
  fieldPeriodDays: number | null;
  wave: number | null;
  emails: string[];
}

async function load(tx: Tx, runId: number): Promise<RunForSamplify> {
  const [r] = await tx<RunForSamplify[]>`
    select r.id, r.region_id as "regionId", r.target_completes as "targetCompletes", r.survey_link::text as "surveyLink", r.definition,
           r.field_end_at as "fieldEndAt", r.sample_supplier_id as "sampleSupplierId", r.samplify_project_id as "samplifyProjectId",
           (select entry_parameter from sample_suppliers x where x.id = r.sample_supplier_id) as "entryParameter", r.test_entry_key::text as "testEntryKey",
           r.samplify_line_item_id as "samplifyLineItemId", p.id as "projectId", p.project_name as "projectName",
           p.incidence_estimate::float8 as incidence, p.field_period_days as "fieldPeriodDays",
           (select min(wave_number) from project_schedules s where s.survey_run_id = r.id) as wave,
           coalesce((select array_agg(u.email order by u.id) from users u where u.id = p.owner_user_id), '{}') as emails
    from survey_runs r
    join project_schedules s0 on s0.survey_run_id = r.id
    join projects p on p.id = s0.project_id
    where r.id = ${runId}
    limit 1`;
  if (!r) throw new ApiError("NotFound", `No survey run ${runId}`);
  if (!r.definition) throw new ApiError("Conflict", `Survey run ${runId} has no survey yet: create it with CreateDecipherSurveys`);
  return r;
}

/** Where Dynata puts its respondent id in a survey URL (the reference's surveyURL examples). */
export const DYNATA_RESPONDENT_ID = "<#IdParameter[Value]>";
/** Where Dynata puts the project's Secure Key 2 (the reference's `k2=<#Project[Secure Key 2]>`): checked on entry (suppliers.ts verifyEntry). */
export const DYNATA_SECURE_KEY_2 = "<#Project[Secure Key 2]>";

/**
 * The run's line item, and what of its targets and quotas could not be sent (named). The live URL
 * is the supplier's entry link with Dynata's k2 and respondent id, where the reference's example
 * puts them (`...&k2=<#Project[Secure Key 2]>&psid=<#IdParameter[Value]>`); the test URL is the same
 * with the run's test key before them (`test={key}`), so a test entry is told apart and counts for
 * nothing.
 */
export function lineItemOf(r: RunForSamplify, publicUrl: string, now = Date.now()): { item: LineItemCriteria; warnings: string[] } {
  const country = countryOf(r.regionId);
  if (!country) throw new ApiError("Conflict", `Samplify does not field region ${r.regionId} (${r.definition!.regionName}): only New Zealand, Australia, the USA and Singapore`);
  if (r.sampleSupplierId === null) {
    throw new ApiError("Conflict", `Survey run ${r.id} has no sample supplier: set the supplier Samplify sends respondents as (SetSampleSupplier) first`);
  }
  if (r.entryParameter === "k2")
    throw new ApiError("Conflict", `The run's supplier takes its respondent id in k2, where Dynata puts its security key: give the supplier another entry parameter (psid)`);
  const def = r.definition!;
  const base = `${surveyUrl(publicUrl, r.surveyLink)}?supplier=${r.sampleSupplierId}`;
  const rid = `k2=${DYNATA_SECURE_KEY_2}&${r.entryParameter ?? "rid"}=${DYNATA_RESPONDENT_ID}`;
  const days = r.fieldEndAt ? Math.max(1, Math.ceil((new Date(r.fieldEndAt).getTime() - now) / 86_400_000)) : (r.fieldPeriodDays ?? 14);
  const order = def.testOptions.map((t) => t.id);
  const minutes = Math.max(1, Math.ceil((pages(def, def.design === "monadic" ? order.slice(0, 1) : order).length * SECONDS_PER_PAGE) / 60));
  const completes = r.targetCompletes ?? def.targetCompletes;
  const plan = samplifyPlan(def, completes);
  const warnings = [...plan.warnings];
  if (country === "US" && r.regionId !== 15) {
    warnings.push(`The market ${def.regionName} is a US state: Dynata's reference names no state attribute, so Samplify fields the line item across the USA`);
  }
  const item: LineItemCriteria = {
    extLineItemId: `run-${r.id}`,
    title: `${r.projectName}: ${def.regionName}`.slice(0, 200),
    countryISOCode: country,
    languageISOCode: "en",
    surveyURL: `${base}&${rid}`,
    surveyTestURL: `${base}&test=${r.testEntryKey}&${rid}`,
    indicativeIncidence: Math.round((r.incidence ?? 1) * 1000) / 10,
    daysInField: days,
    lengthOfInterview: minutes,
    requiredCompletes: completes,
    targets: [{ type: "COMPLETE", count: completes }],
    quotaPlan: plan.quotaPlan,
    deliveryType: "BALANCED",
  };
  return { item, warnings };
}

async function call<T>(fn: () => Promise<T>): Promise<T> {
  try {
    return await fn();
  } catch (e) {
    if (e instanceof SamplifyError) throw new ApiError(e.status === 400 || e.status === 422 ? "Conflict" : "ServiceUnavailable", e.message);
    throw e;
  }
}

export interface SamplifyLineItemState {
  surveyRunId: number;
  extProjectId: string;
  extLineItemId: string;
  state: string;
  lineItem: LineItemCriteria;
  warnings: string[];
}

/**
 * Dynata's end links from a line item's answer, to keep on the run, or null (and why, as a
 * warning) when they are absent or carry a placeholder Ideally cannot fill: then the run's
 * supplier's own end links stay in use.
 */
function endLinksOf(li: LineItem | undefined, warnings: string[]): EndLinks | null {
  const e = li?.endLinks;
  if (!e) return null;
  const problem = dynataEndLinksProblem(e);
  if (problem) {
    warnings.push(`Dynata's end links are not used: ${problem}; respondents go back to the supplier's own end links`);
    return null;
  }
  return e;
}

/**
 * What CreateOrUpdateSamplifyProject needs before it changes anything: a run with a survey, in a
 * market Samplify fields, with a sample supplier. The route checks this before it sets the run's
 * quota, so a refused order leaves the run as it was (409 and nothing written).
 */
export async function assertOrderable(db: Db, runId: number, publicUrl: string): Promise<void> {
  lineItemOf(await system(db, (tx) => load(tx, runId)), publicUrl);
}

/**
 * CreateOrUpdateSamplifyProject (with Samplify configured): the run's line item is created (in its
 * wave's Samplify project, created with it when it is the first market) or updated.
 */
export async function createOrUpdate(db: Db, runId: number, publicUrl: string): Promise<SamplifyLineItemState> {
  const s = client();
  const r = await system(db, (tx) => load(tx, runId));
  const { item, warnings } = lineItemOf(r, publicUrl);
  const extProjectId = r.samplifyProjectId ?? `ideally-${r.projectId}-w${r.wave ?? 1}`;
  const siblings = await system(db, (tx) => tx<{ id: number }[]>`select id from survey_runs where samplify_project_id = ${extProjectId} and id <> ${runId}`);
  let answered: LineItem | undefined;
  let state: string;
  if (r.samplifyLineItemId) {
    answered = await call(() => s.updateLineItem(extProjectId, item));
    state = answered.state;
  } else if (siblings.length) {
    answered = await call(() => s.addLineItem(extProjectId, item));
    state = answered.state;
  } else {
    const p = await call(() =>
      s.createProject({
        extProjectId,
        title: `${r.projectName}${r.wave && r.wave > 1 ? ` (wave ${r.wave})` : ""}`.slice(0, 200),
        notificationEmails: r.emails.length ? r.emails : ["fielding@ideally.invalid"],
        devices: ["mobile", "desktop", "tablet"],
        category: { surveyTopic: ["SHOPPING"] },
        lineItems: [item],
      }),
    );
    answered = p.lineItems.find((l) => l.extLineItemId === item.extLineItemId);
    state = answered?.state ?? p.state;
  }
  const endLinks = endLinksOf(answered, warnings);
  // The key Dynata fills k2 with; an answer without it keeps the one given before.
  const entryKey = answered?.endLinks?.securityKey2 || null;
  await system(db, async (tx) => {
    await tx`
      update survey_runs set samplify_project_id = ${extProjectId}, samplify_line_item_id = ${item.extLineItemId}, samplify_state = ${state},
        samplify_warnings = ${warnings}::text[], updated_at = now()
      where id = ${runId}`;
    // An answer without end links keeps the ones Samplify gave before.
    if (endLinks) await tx`update survey_runs set samplify_end_links = ${jsonParam(tx, endLinks)} where id = ${runId}`;
    if (entryKey) await tx`update survey_runs set samplify_entry_key = ${entryKey} where id = ${runId}`;
  });
  return { surveyRunId: runId, extProjectId, extLineItemId: item.extLineItemId, state, lineItem: item, warnings };
}

/** Launch (buying the line item first while it is only provisioned), pause or close the run's line item. */
export async function setState(db: Db, runId: number, action: LineItemAction, publicUrl: string): Promise<{ surveyRunId: number; extProjectId: string; extLineItemId: string; state: string }> {
  const s = client();
  const r = await system(db, (tx) => load(tx, runId));
  if (!r.samplifyProjectId || !r.samplifyLineItemId) throw new ApiError("Conflict", `Survey run ${runId} has no Samplify line item: CreateOrUpdateSamplifyProject first`);
  const [st] = await system(db, (tx) => tx<{ state: string | null }[]>`select samplify_state as state from survey_runs where id = ${runId}`);
  if (action === "launch" && (st?.state ?? "PROVISIONED") === "PROVISIONED") {
    const { item } = lineItemOf(r, publicUrl);
    await call(() => s.buy(r.samplifyProjectId!, [{ extLineItemId: r.samplifyLineItemId!, surveyURL: item.surveyURL, surveyTestURL: item.surveyTestURL }]));
  }
  const li = await call(() => s.lineItemState(r.samplifyProjectId!, r.samplifyLineItemId!, action));
  await system(db, (tx) => tx`update survey_runs set samplify_state = ${li.state}, updated_at = now() where id = ${runId}`);
  return { surveyRunId: runId, extProjectId: r.samplifyProjectId, extLineItemId: r.samplifyLineItemId, state: li.state };
}

/** The run's line item's feasibility and cost (Samplify's estimate: cost per interview x quota). */
export async function feasibility(db: Db, runId: number): Promise<{ surveyRunId: number; extLineItemId: string; requiredCompletes: number; feasibility: Feasibility; estimatedCost: number | null }> {
  const s = client();
  const r = await system(db, (tx) => load(tx, runId));
  if (!r.samplifyProjectId || !r.samplifyLineItemId) throw new ApiError("Conflict", `Survey run ${runId} has no Samplify line item: CreateOrUpdateSamplifyProject first`);
  const all = await call(() => s.feasibility(r.samplifyProjectId!));
  const mine = all.find((x) => x.extLineItemId === r.samplifyLineItemId);
  if (!mine) throw new ApiError("ServiceUnavailable", `Samplify has no feasibility for line item ${r.samplifyLineItemId} yet`);
  const required = r.targetCompletes ?? r.definition!.targetCompletes;
  const f = mine.feasibility;
  return {
    surveyRunId: runId,
    extLineItemId: r.samplifyLineItemId,
    requiredCompletes: required,
    feasibility: { status: f.status, costPerInterview: f.costPerInterview, currency: f.currency, feasible: f.feasible, totalCount: f.totalCount },
    estimatedCost: f.status === "READY" ? Math.round(f.costPerInterview * required * 100) / 100 : null,
  };
}

/** Line item states after which Samplify sends nobody (nothing to close). */
const ENDED = ["CLOSED", "COMPLETED", "CANCELLED", "REJECTED", "INVOICED"];

/**
 * Closing a run (at its quota, its field end, or by ForceCloseSurvey) closes its Samplify line item:
 * the closed runs (all, or `runIds`) whose line item has not ended. Called after the closing
 * transaction (never a network call inside it): ForceCloseSurvey at once, the fielding tick for the
 * rest, so a failed call is tried again a minute later. Nothing to do while Samplify is off.
 */
export async function closeLineItemsOfClosedRuns(db: Db, publicUrl: string, runIds?: number[]): Promise<{ closed: number[]; failed: { surveyRunId: number; message: string }[] }> {
  const out = { closed: [] as number[], failed: [] as { surveyRunId: number; message: string }[] };
  if (!configured()) return out;
  const due = await system(
    db,
    (tx) => tx<{ id: number }[]>`
    select id from survey_runs
    where survey_status_id = ${SURVEY_STATUS.Closed} and samplify_line_item_id is not null and coalesce(samplify_state, '') <> all(${ENDED}::text[])
      ${runIds ? tx`and id = any(${runIds}::int[])` : tx``}
    order by id`,
  );
  for (const r of due) {
    try {
      await setState(db, r.id, "close", publicUrl);
      out.closed.push(r.id);
    } catch (e) {
      out.failed.push({ surveyRunId: r.id, message: e instanceof Error ? e.message : String(e) });
    }
  }
  return out;
}
