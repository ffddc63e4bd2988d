// Outside sample suppliers by the redirect protocol panels use (docs/decisions.md "Sample
// suppliers"). Staff keep a supplier's name, the entry parameter that carries its respondent id
// (default `rid`), its four end links (complete, screen-out, over-quota, quality-terminate, each
// with `{rid}`) and an optional shared secret. A run takes respondents from one supplier:
//   entry  {PUBLIC_URL}/s/{surveyLink}?supplier={supplierId}&rid={rid}[&sig={hex HMAC-SHA256 of
//          the URL before "&sig=", keyed by the secret}]
//   end    the matching template with {rid} filled in, and with a secret "&sig=" (or "?sig=" when
//          the link has no query) + the HMAC of the link before it.
// With a secret an unsigned or wrongly signed entry is refused (403); a rid enters a run once
// (the same rid resumes its own session); the reconciliation CSV lists every supplier respondent.
import type { Db, Tx } from "../../db/client.ts";
import { enterTenant } from "../../access/policy.ts";
import { ApiError } from "../../errors.ts";
import { systemCtx } from "../lifecycle/lifecycle.service.ts";

const system = <T>(db: Db, fn: (tx: Tx) => Promise<T>) => enterTenant(db, systemCtx(), fn);

export interface Supplier {
  id: number;
  name: string;
  entryParameter: string;
  completeUrl: string;
  screenOutUrl: string;
  overQuotaUrl: string;
  qualityTerminateUrl: string;
  hasSecret: boolean;
  createdAt: string;
  updatedAt: string | null;
}

interface SupplierRow extends Supplier {
  secret: string | null;
}

export interface SupplierInput {
  name: string;
  entryParameter?: string;
  completeUrl: string;
  screenOutUrl: string;
  overQuotaUrl: string;
  qualityTerminateUrl: string;
  /** null removes the secret; absent keeps it (PATCH). */
  secret?: string | null;
}

const COLUMNS = `id, name, entry_parameter as "entryParameter", complete_url as "completeUrl", screen_out_url as "screenOutUrl",
  over_quota_url as "overQuotaUrl", quality_terminate_url as "qualityTerminateUrl", secret, secret is not null as "hasSecret",
  to_json(created_at)#>>'{}' as "createdAt", to_json(updated_at)#>>'{}' as "updatedAt"`;

/** Never leaves the server: the secret. */
const pub = ({ secret: _, ...s }: SupplierRow): Supplier => s;

async function row(tx: Tx, id: number): Promise<SupplierRow | undefined> {
  // COLUMNS is a constant of this file: no input in the text.
  const [r] = await tx.unsafe<SupplierRow[]>(`select ${COLUMNS} from sample_suppliers where id = $1 and deleted_at is null`, [id]);
  return r;
}

export async function listSuppliers(db: Db): Promise<Supplier[]> {
  return system(db, async (tx) => (await tx.unsafe<SupplierRow[]>(`select ${COLUMNS} from sample_suppliers where deleted_at is null order by id`)).map(pub));
}

export async function getSupplier(db: Db, id: number): Promise<Supplier> {
  return system(db, async (tx) => {
    const r = await row(tx, id);
    if (!r) throw new ApiError("NotFound", `SampleSuppliers(${id}) not found`);
    return pub(r);
  });
}

/**
 * What is wrong with an end-link template, or null. It is checked as it will be stored (no
 * control character: `new URL()` drops tabs and line breaks, so a raw CR LF once passed the check
 * and was stored), and `{rid}`, which a respondent of an unsigned supplier controls, may stand
 * only in the path, query or fragment: never in the scheme, user, password, host or port.
 */
function templateProblem(v: string): string | null {
  if ([...v].some((ch) => ch <= "\u001f" || ch === "\u007f")) return "Must not contain control characters (line breaks, tabs)";
  const authority = /^https?:\/\/([^/?#]*)/i.exec(v);
  if (!authority) return "Must be an http(s) link, starting https:// or http://";
  if (authority[1]!.includes("{rid}")) return "{rid} must be in the link's path or query, not its host, port or user";
  try {
    new URL(v.replaceAll("{rid}", "x"));
  } catch {
    return "Must be an http(s) link";
  }
  if (!v.includes("{rid}")) return "Must contain {rid}, where the supplier's respondent id goes";
  return null;
}

function checkTemplates(input: Partial<SupplierInput>): void {
  const errors: { path: string; message: string }[] = [];
  for (const k of ["completeUrl", "screenOutUrl", "overQuotaUrl", "qualityTerminateUrl"] as const) {
    const v = input[k];
    if (v === undefined) continue;
    const problem = templateProblem(v);
    if (problem) errors.push({ path: k, message: problem });
  }
  if (errors.length) throw new ApiError("ValidationError", errors.map((e) => `${e.path}: ${e.message}`).join("; "), undefined, errors);
}

export async function createSupplier(db: Db, input: SupplierInput): Promise<Supplier> {
  checkTemplates(input);
  return system(db, async (tx) => {
    const [r] = await tx<{ id: number }[]>`
      insert into sample_suppliers (name, entry_parameter, complete_url, screen_out_url, over_quota_url, quality_terminate_url, secret)
      values (${input.name}, ${input.entryParameter ?? "rid"}, ${input.completeUrl}, ${input.screenOutUrl}, ${input.overQuotaUrl},
              ${input.qualityTerminateUrl}, ${input.secret ?? null})
      returning id`;
    return pub((await row(tx, r!.id))!);
  });
}

export async function updateSupplier(db: Db, id: number, input: Partial<SupplierInput>): Promise<Supplier> {
  checkTemplates(input);
  return system(db, async (tx) => {
    const cur = await row(tx, id);
    if (!cur) throw new ApiError("NotFound", `SampleSuppliers(${id}) not found`);
    await tx`
      update sample_suppliers set
        name = ${input.name ?? cur.name}, entry_parameter = ${input.entryParameter ?? cur.entryParameter},
        complete_url = ${input.completeUrl ?? cur.completeUrl}, screen_out_url = ${input.screenOutUrl ?? cur.screenOutUrl},
        over_quota_url = ${input.overQuotaUrl ?? cur.overQuotaUrl}, quality_terminate_url = ${input.qualityTerminateUrl ?? cur.qualityTerminateUrl},
        secret = ${input.secret === undefined ? cur.secret : input.secret}, updated_at = now()
      where id = ${id}`;
    return pub((await row(tx, id))!);
  });
}

export async function deleteSupplier(db: Db, id: number): Promise<void> {
  await system(db, async (tx) => {
    const r = await tx`update sample_suppliers set deleted_at = now() where id = ${id} and deleted_at is null`;
    if (!r.count) throw new ApiError("NotFound", `SampleSuppliers(${id}) not found`);
  });
}

/**
 * SetSampleSupplier: the run takes respondents from this supplier (null: from none). A supplier's
 * run takes no simulated respondent, ever (issue 36), so a run the simulated panel has already
 * answered cannot be given a supplier: its results would mix the two.
 */
export async function setRunSupplier(db: Db, runId: number, supplierId: number | null): Promise<void> {
  await system(db, async (tx) => {
    const [run] = await tx<{ status: number; simulated: number }[]>`
      select survey_status_id as status, (select count(*)::int from survey_sessions s where s.survey_run_id = r.id and s.is_simulated) as simulated
      from survey_runs r where id = ${runId} for update`;
    if (!run) throw new ApiError("NotFound", `No survey run ${runId}`);
    if (run.status === 90) throw new ApiError("Conflict", `Survey run ${runId} is Closed: its supplier cannot change`);
    if (supplierId !== null && run.simulated > 0) {
      throw new ApiError("Conflict", `Survey run ${runId} has ${run.simulated} simulated respondents: a supplier's run takes only the supplier's respondents, so set the supplier before the run launches (CreateDecipherSurveys, SetSampleSupplier, LaunchSurvey)`);
    }
    if (supplierId !== null && !(await row(tx, supplierId))) throw new ApiError("NotFound", `SampleSuppliers(${supplierId}) not found`);
    await tx`update survey_runs set sample_supplier_id = ${supplierId}, updated_at = now() where id = ${runId}`;
  });
}

// ---- signatures ----

const enc = new TextEncoder();

/** Hex HMAC-SHA256 of `message` keyed by `secret` (Web Crypto: runs on Bun and Deno). */
export async function hmacHex(secret: string, message: string): Promise<string> {
  const key = await crypto.subtle.importKey("raw", enc.encode(secret), { name: "HMAC", hash: "SHA-256" }, false, ["sign"]);
  const mac = new Uint8Array(await crypto.subtle.sign("HMAC", key, enc.encode(message)));
  return [...mac].map((b) => b.toString(16).padStart(2, "0")).join("");
}

/** Compares two hex strings in time independent of where they differ. */
function sameHex(a: string, b: string): boolean {
  const x = a.toLowerCase();
  const y = b.toLowerCase();
  let diff = x.length ^ y.length;
  for (let i = 0; i < Math.max(x.length, y.length); i++) diff |= (x.charCodeAt(i) || 0) ^ (y.charCodeAt(i) || 0);
  return diff === 0;
}

/** A signed link: the link, then "&sig=" (or "?sig=") and the hex HMAC of the link. */
export async function signUrl(secret: string, url: string): Promise<string> {
  return `${url}${url.includes("?") ? "&" : "?"}sig=${await hmacHex(secret, url)}`;
}

export interface SupplierEntry {
  supplierId: number;
  rid: string;
}

const REFUSED = "This survey link is not valid";

/**
 * The entry of a supplier's respondent: `query` is the page's query string as received (without
 * "?"). Checks the supplier is the run's, reads the rid from its entry parameter, and with a
 * secret the signature over `{publicUrl}/s/{link}?{query before &sig=}`. Refusals are 403s.
 */
export async function verifyEntry(tx: Tx, run: { id: number; sampleSupplierId: number | null }, link: string, publicUrl: string, query: string): Promise<SupplierEntry> {
  const cut = query.indexOf("&sig=");
  const signed = cut >= 0 ? query.slice(0, cut) : query;
  const sig = cut >= 0 ? query.slice(cut + 5) : null;
  const params = new URLSearchParams(signed);
  const supplierId = Number(params.get("supplier"));
  if (!Number.isInteger(supplierId) || supplierId <= 0) throw new ApiError("Forbidden", REFUSED, "no supplier in the entry link");
  const s = await row(tx, supplierId);
  if (!s || run.sampleSupplierId !== supplierId) throw new ApiError("Forbidden", REFUSED, "this supplier does not send respondents to this survey");
  const rid = params.get(s.entryParameter);
  if (!rid || rid.length > 200) throw new ApiError("Forbidden", REFUSED, `no ${s.entryParameter} in the entry link`);
  if (s.secret !== null) {
    if (!sig) throw new ApiError("Forbidden", REFUSED, "the entry link is not signed");
    const expected = await hmacHex(s.secret, `${publicUrl.replace(/\/$/, "")}/s/${link}?${signed}`);
    if (!/^[0-9a-f]{64}$/i.test(sig) || !sameHex(sig, expected)) throw new ApiError("Forbidden", REFUSED, "the entry link's signature does not match");
  }
  return { supplierId, rid };
}

export type EndKind = "complete" | "screenOut" | "overQuota" | "qualityTerminate";

/** Where a supplier's respondent goes at the end: the template with {rid}, signed with a secret. */
export async function endRedirect(tx: Tx, supplierId: number, rid: string, kind: EndKind): Promise<string | null> {
  const s = await row(tx, supplierId);
  if (!s) return null;
  const template = { complete: s.completeUrl, screenOut: s.screenOutUrl, overQuota: s.overQuotaUrl, qualityTerminate: s.qualityTerminateUrl }[kind];
  const url = template.replaceAll("{rid}", encodeURIComponent(rid));
  return s.secret !== null ? signUrl(s.secret, url) : url;
}

// ---- reconciliation ----

const CSV_DANGER = /^[=+\-@\t\r]/;
export function csvCell(v: string | null): string {
  let s = v ?? "";
  if (CSV_DANGER.test(s)) s = `'${s}`; // a spreadsheet would run it as a formula
  return /[",\r\n]/.test(s) ? `"${s.replaceAll('"', '""')}"` : s;
}

/**
 * The end link a finished session is sent back to its supplier with; null while in progress. The
 * respondent's redirect (fielding.service.ts viewOf) and the reconciliation both read it, so the
 * supplier invoices exactly what it was told (issue 36: a respondent in the survey when the field
 * end closed the run was sent the over-quota link and listed as "removed").
 */
export function endKindOf(status: string, endReason: string | null, flags: readonly string[]): EndKind | null {
  if (status === "InProgress") return null;
  if (status === "Complete") return flags.length ? "qualityTerminate" : "complete";
  if (status === "ScreenedOut") return endReason === "attention check" ? "qualityTerminate" : "screenOut";
  if (status === "OverQuota") return "overQuota";
  // Removed: excluded for quality, or the run closed on them.
  return flags.length ? "qualityTerminate" : "overQuota";
}

const OUTCOME_NAMES: Record<EndKind, string> = { complete: "complete", screenOut: "screen-out", overQuota: "over-quota", qualityTerminate: "quality-terminate" };

/** The supplier's outcome name for a session: the end link it was sent back with. */
export function reconciliationStatus(status: string, endReason: string | null, flags: string[]): string {
  const kind = endKindOf(status, endReason, flags);
  return kind ? OUTCOME_NAMES[kind] : "in-progress";
}

/** ReconciliationCsv: every supplier respondent of the run (rid, status, start, end, quality flags), as suppliers invoice from it. */
export async function reconciliationCsv(db: Db, runId: number): Promise<string> {
  return system(db, async (tx) => {
    const [run] = await tx<{ id: number }[]>`select id from survey_runs where id = ${runId}`;
    if (!run) throw new ApiError("NotFound", `No survey run ${runId}`);
    const rows = await tx<{ rid: string; status: string; endReason: string | null; start: string; end: string | null; flags: string[]; supplier: string }[]>`
      select s.supplier_rid as rid, s.status, s.end_reason as "endReason", to_json(s.started_at)#>>'{}' as start,
             to_json(s.completed_at)#>>'{}' as "end", s.quality_flags as flags, p.name as supplier
      from survey_sessions s join sample_suppliers p on p.id = s.sample_supplier_id
      where s.survey_run_id = ${runId} and s.supplier_rid is not null
      order by s.started_at, s.id`;
    const lines = ["rid,status,start,end,quality_flags,supplier"];
    for (const r of rows) {
      lines.push([r.rid, reconciliationStatus(r.status, r.endReason, r.flags), new Date(r.start).toISOString(), r.end ? new Date(r.end).toISOString() : "", r.flags.join(";"), r.supplier].map(csvCell).join(","));
    }
    return `${lines.join("\r\n")}\r\n`;
  });
}
