// Outside sample suppliers by the redirect protocol panels use (docs/suppliers.md; decision records
// 0083, 0114, 0120). Staff keep a supplier's name, the entry parameter that carries its respondent
// id (default `rid`), its four end links (complete, screen-out, over-quota, quality-terminate, each
// with `{rid}`), an optional shared secret with its signature scheme (parameter name, algorithm,
// encoding and what is signed; default `sig`, hex HMAC-SHA256 over the URL), and an optional
// server-to-server callback URL (with `{rid}` and `{outcome}`, the outcome written in the supplier's
// own codes when it names them), and an optional reversal URL. A run takes respondents from one
// supplier:
//   entry     {PUBLIC_URL}/s/{surveyLink}?supplier={supplierId}&{entryParameter}={rid}[&{signatureParameter}={signature}]
//   end       the matching template with {rid} filled in, and with a secret the signature parameter
//   callback  POST to the callback template with {rid} and {outcome} filled in, signed the same way
// With a secret an unsigned or wrongly signed entry is refused (403); a rid enters a run once (the
// same rid resumes its own session); each outcome is recorded once (supplier_outcomes) and the
// redirect, the callback and the reconciliation CSV all read that record. A reported complete that
// staff later remove is reversed (a second record, kind reversal, with its own signed callback;
// decision record 0136).
import { allocationAtEntry, clearAllocations } from "./allocations.ts";
import { createHash, createHmac } from "node:crypto";
import type { Db, Tx } from "../../db/client.ts";
import { enterTenant } from "../../access/policy.ts";
import { jsonParam } from "../../db/params.ts";
import { ApiError } from "../../errors.ts";
import type { EndLinks } from "../../samplify/client.ts";
import { systemCtx } from "../lifecycle/lifecycle.service.ts";

const system = <T>(db: Db, fn: (tx: Tx) => Promise<T>) => enterTenant(db, systemCtx(), fn);

export const SIGNATURE_ALGORITHMS = ["HMAC-SHA256", "HMAC-SHA1", "SHA1-SECRET-SUFFIX", "SHA256-SECRET-SUFFIX"] as const;
export type SignatureAlgorithm = (typeof SIGNATURE_ALGORITHMS)[number];
export const SIGNATURE_ENCODINGS = ["hex", "base64url"] as const;
export type SignatureEncoding = (typeof SIGNATURE_ENCODINGS)[number];
export const SIGNED_PARTS = ["url", "query"] as const;
export type SignedPart = (typeof SIGNED_PARTS)[number];

/** How a supplier signs and checks links: the parameter, algorithm, encoding and what is signed. */
export interface SignatureScheme {
  signatureParameter: string;
  signatureAlgorithm: SignatureAlgorithm;
  signatureEncoding: SignatureEncoding;
  signedPart: SignedPart;
}

export type OutcomeName = "complete" | "screen-out" | "over-quota" | "quality-terminate";
export const OUTCOME_LIST: readonly OutcomeName[] = ["complete", "screen-out", "over-quota", "quality-terminate"];
/** The supplier's own code for each outcome, as a callback's {outcome} carries it (an outcome not named: its own name). */
export type CallbackCodes = Partial<Record<OutcomeName, string>>;
/** A code as it may stand in a link: 1 to 40 URL-safe characters. */
export const CALLBACK_CODE = /^[A-Za-z0-9_.~-]{1,40}$/;

export interface Supplier extends SignatureScheme {
  id: number;
  name: string;
  entryParameter: string;
  completeUrl: string;
  screenOutUrl: string;
  overQuotaUrl: string;
  qualityTerminateUrl: string;
  callbackUrl: string | null;
  callbackCodes: CallbackCodes;
  reversalUrl: string | null;
  hasSecret: boolean;
  /** The simulated panel's own supplier (docs/decisions/0144): it takes the runs whose sample source is simulated. */
  isSimulated: boolean;
  createdAt: string;
  updatedAt: string | null;
}

interface SupplierRow extends Supplier {
  secret: string | null;
}

export interface SupplierInput extends Partial<SignatureScheme> {
  name: string;
  entryParameter?: string;
  completeUrl: string;
  screenOutUrl: string;
  overQuotaUrl: string;
  qualityTerminateUrl: string;
  /** null removes the callback; absent keeps it (PATCH). */
  callbackUrl?: string | null;
  /** null removes the codes (outcomes go by their names); absent keeps them (PATCH). */
  callbackCodes?: CallbackCodes | null;
  /** null: reversals go to the callback URL; absent keeps it (PATCH). */
  reversalUrl?: string | null;
  /** null removes the secret; absent keeps it (PATCH). */
  secret?: string | null;
}

const COLUMNS = `id, name, entry_parameter as "entryParameter", complete_url as "completeUrl", screen_out_url as "screenOutUrl",
  over_quota_url as "overQuotaUrl", quality_terminate_url as "qualityTerminateUrl", callback_url as "callbackUrl",
  callback_codes as "callbackCodes", reversal_url as "reversalUrl", signature_parameter as "signatureParameter", signature_algorithm as "signatureAlgorithm", signature_encoding as "signatureEncoding",
  signed_part as "signedPart", secret, secret is not null as "hasSecret", is_simulated as "isSimulated",
  to_json(created_at)#>>'{}' as "createdAt", to_json(updated_at)#>>'{}' as "updatedAt"`;

/** Never leaves the server: the secret. */
const pub = ({ secret: _, ...s }: SupplierRow): Supplier => s;

/**
 * Reads a respondent's transaction makes of rows it does not write (a supplier's row, a run's
 * Samplify key and end links), made once per transaction: a batch of the simulated panel's people
 * (respondentBatch) enters, ends and is sent back many times in one.
 */
const readsOf = new WeakMap<Tx, Map<string, Promise<unknown>>>();
function once<T>(tx: Tx, key: string, read: () => Promise<T>): Promise<T> {
  const reads = readsOf.get(tx) ?? readsOf.set(tx, new Map()).get(tx)!;
  const kept = reads.get(key) as Promise<T> | undefined;
  if (kept) return kept;
  const p = read();
  reads.set(key, p);
  return p;
}

/** A supplier's row as a respondent's transaction reads it (once: `once`). */
const supplierOf = (tx: Tx, id: number) => once(tx, `supplier ${id}`, () => row(tx, id));

/** A run's Samplify entry key and end links (record 0136), as a respondent's transaction reads them (once). */
const samplifyOf = (tx: Tx, runId: number) =>
  once(tx, `samplify ${runId}`, async () => {
    const [r] = await tx<{ key: string | null; e: EndLinks | null }[]>`select samplify_entry_key as key, samplify_end_links as e from survey_runs where id = ${runId}`;
    return { entryKey: r?.key ?? null, endLinks: r?.e ?? null };
  });

async function row(tx: Tx, id: number): Promise<SupplierRow | undefined> {
  // COLUMNS is a constant of this file: no input in the text.
  const [r] = await tx.unsafe<SupplierRow[]>(`select ${COLUMNS} from sample_suppliers where id = $1 and deleted_at is null`, [id], { prepare: true });
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
 * What is wrong with a link template, or null. It is checked as it will be stored (no control
 * character: `new URL()` drops tabs and line breaks, so a raw CR LF once passed the check and was
 * stored), and `{rid}`, which a respondent of an unsigned supplier controls, may stand only in the
 * path, query or fragment: never in the scheme, user, password, host or port.
 */
function templateProblem(v: string): string | null {
  if ([...v].some((ch) => ch <= "\u001f" || ch === "\u007f")) return "Must not contain control characters (line breaks, tabs)";
  const authority = /^https?:\/\/([^/?#]*)/i.exec(v);
  if (!authority) return "Must be an http(s) link, starting https:// or http://";
  if (authority[1]!.includes("{rid}")) return "{rid} must be in the link's path or query, not its host, port or user";
  if (authority[1]!.includes("{outcome}")) return "{outcome} must be in the link's path or query, not its host, port or user";
  try {
    new URL(v.replaceAll("{rid}", "x").replaceAll("{outcome}", "x"));
  } catch {
    return "Must be an http(s) link";
  }
  if (!v.includes("{rid}")) return "Must contain {rid}, where the supplier's respondent id goes";
  return null;
}

/** The query of a link (after "?", before "#"), or null when it has none. */
function queryOf(url: string): string | null {
  const noFragment = url.split("#")[0]!;
  const q = noFragment.indexOf("?");
  return q < 0 ? null : noFragment.slice(q + 1);
}

const LINKS = ["completeUrl", "screenOutUrl", "overQuotaUrl", "qualityTerminateUrl"] as const;

/**
 * The whole configuration checked as it will be stored (a PATCH merged with what is kept): every
 * problem a 400 naming its field, nothing written.
 */
function checkSupplier(s: Omit<SupplierInput, "secret" | "callbackCodes"> & SignatureScheme & { entryParameter: string; callbackCodes: CallbackCodes }): void {
  const errors: { path: string; message: string }[] = [];
  for (const k of LINKS) {
    const problem = templateProblem(s[k]);
    if (problem) errors.push({ path: k, message: problem });
  }
  if (s.callbackUrl != null) {
    const problem =
      templateProblem(s.callbackUrl) ?? (s.callbackUrl.includes("{outcome}") ? null : "Must contain {outcome}, where the outcome goes (complete, screen-out, over-quota, quality-terminate)");
    if (problem) errors.push({ path: "callbackUrl", message: problem });
  }
  if (s.reversalUrl != null) {
    const problem = templateProblem(s.reversalUrl);
    if (problem) errors.push({ path: "reversalUrl", message: problem });
  }
  for (const [k, v] of Object.entries(s.callbackCodes)) {
    if (!(OUTCOME_LIST as readonly string[]).includes(k)) errors.push({ path: "callbackCodes", message: `${k} is no outcome (${OUTCOME_LIST.join(", ")})` });
    else if (typeof v !== "string" || !CALLBACK_CODE.test(v)) errors.push({ path: `callbackCodes.${k}`, message: "1 to 40 letters, digits, _ . ~ or -" });
  }
  if (s.signatureParameter === s.entryParameter) errors.push({ path: "signatureParameter", message: "Must differ from the entry parameter" });
  for (const k of ["entryParameter", "signatureParameter"] as const) {
    if (s[k] === "supplier") errors.push({ path: k, message: "supplier is the entry link's own parameter (the supplier's id)" });
    if (s[k] === "test") errors.push({ path: k, message: "test is the entry link's own parameter (the run's test key)" });
  }
  if (s.signedPart === "query") {
    // Only the query is signed: a {rid} outside it could be changed without breaking the signature.
    for (const k of [...LINKS, "callbackUrl", "reversalUrl"] as const) {
      const v = s[k];
      if (v == null || errors.some((e) => e.path === k)) continue;
      const q = queryOf(v);
      if (q === null || !q.includes("{rid}") || v.replace(/\?.*$/s, "").includes("{rid}") || (v.includes("#") && v.slice(v.indexOf("#")).includes("{rid}"))) {
        errors.push({ path: k, message: "With signedPart query, {rid} must be in the link's query only (the query is what is signed)" });
      }
    }
  }
  if (errors.length) throw new ApiError("ValidationError", errors.map((e) => `${e.path}: ${e.message}`).join("; "), undefined, errors);
}

const SCHEME_DEFAULTS: SignatureScheme = { signatureParameter: "sig", signatureAlgorithm: "HMAC-SHA256", signatureEncoding: "hex", signedPart: "url" };

export async function createSupplier(db: Db, input: SupplierInput): Promise<Supplier> {
  const s = { ...SCHEME_DEFAULTS, entryParameter: "rid", callbackUrl: null, reversalUrl: null, ...input, callbackCodes: input.callbackCodes ?? {} };
  checkSupplier(s);
  return system(db, async (tx) => {
    const [r] = await tx<{ id: number }[]>`
      insert into sample_suppliers (name, entry_parameter, complete_url, screen_out_url, over_quota_url, quality_terminate_url, callback_url, secret,
                                    signature_parameter, signature_algorithm, signature_encoding, signed_part, callback_codes, reversal_url)
      values (${s.name}, ${s.entryParameter}, ${s.completeUrl}, ${s.screenOutUrl}, ${s.overQuotaUrl}, ${s.qualityTerminateUrl}, ${s.callbackUrl},
              ${s.secret ?? null}, ${s.signatureParameter}, ${s.signatureAlgorithm}, ${s.signatureEncoding}, ${s.signedPart},
              ${jsonParam(tx, s.callbackCodes)}, ${s.reversalUrl})
      returning id`;
    return pub((await row(tx, r!.id))!);
  });
}

export async function updateSupplier(db: Db, id: number, input: Partial<SupplierInput>): Promise<Supplier> {
  return system(db, async (tx) => {
    const cur = await row(tx, id);
    if (!cur) throw new ApiError("NotFound", `SampleSuppliers(${id}) not found`);
    if (cur.isSimulated) throw simulatedIsItsOwn(id);
    // Absent fields keep their values; the result is checked whole (a scheme change can make a kept link wrong).
    const defined = Object.fromEntries(Object.entries(input).filter(([, v]) => v !== undefined)) as Partial<SupplierInput>;
    const s = { ...cur, ...defined, callbackCodes: input.callbackCodes === undefined ? cur.callbackCodes : (input.callbackCodes ?? {}) };
    checkSupplier(s);
    await tx`
      update sample_suppliers set
        name = ${s.name}, entry_parameter = ${s.entryParameter},
        complete_url = ${s.completeUrl}, screen_out_url = ${s.screenOutUrl},
        over_quota_url = ${s.overQuotaUrl}, quality_terminate_url = ${s.qualityTerminateUrl}, callback_url = ${s.callbackUrl},
        signature_parameter = ${s.signatureParameter}, signature_algorithm = ${s.signatureAlgorithm},
        signature_encoding = ${s.signatureEncoding}, signed_part = ${s.signedPart},
        callback_codes = ${jsonParam(tx, s.callbackCodes)}, reversal_url = ${s.reversalUrl},
        secret = ${s.secret}, updated_at = now()
      where id = ${id}`;
    return pub((await row(tx, id))!);
  });
}

export async function deleteSupplier(db: Db, id: number): Promise<void> {
  await system(db, async (tx) => {
    if ((await row(tx, id))?.isSimulated) throw simulatedIsItsOwn(id);
    const r = await tx`update sample_suppliers set deleted_at = now() where id = ${id} and deleted_at is null`;
    if (!r.count) throw new ApiError("NotFound", `SampleSuppliers(${id}) not found`);
  });
}

const simulatedIsItsOwn = (id: number) =>
  new ApiError(
    "Conflict",
    `SampleSuppliers(${id}) is the simulated panel: it is configured by Ideally, takes only the runs whose sample source is simulated, and is switched off with SIMULATED_PANEL=off`,
  );

// ---- the simulated panel, a supplier like the others (docs/decisions/0144) ----

/** Where the simulated panel's people are sent back: reserved names (RFC 2606), never followed outside the process. */
const SIMULATED_END = (outcome: string) => `https://simulated-panel.invalid/${outcome}?rid={rid}`;

/** What the simulated panel, as a supplier, knows of itself: its id, its secret and its scheme (never leaves the server). */
export interface SimulatedSupplier extends SignatureScheme {
  id: number;
  entryParameter: string;
  secret: string;
}

/**
 * The simulated panel's supplier row, made on first use with a secret of its own (one at a time:
 * a unique index; a concurrent first use reads the other's row). The defaults of any supplier:
 * entry parameter rid, hex HMAC-SHA256 of the URL as sig; no callback (it reads its redirects).
 */
export async function simulatedSupplier(tx: Tx): Promise<SimulatedSupplier> {
  const read = () => tx<{ id: number }[]>`select id from sample_suppliers where is_simulated and deleted_at is null`;
  let [r] = await read();
  if (!r) {
    const secret = Buffer.from(crypto.getRandomValues(new Uint8Array(32))).toString("hex");
    await tx`
      insert into sample_suppliers (name, entry_parameter, complete_url, screen_out_url, over_quota_url, quality_terminate_url, secret, is_simulated)
      values ('Ideally simulated panel', 'rid', ${SIMULATED_END("complete")}, ${SIMULATED_END("screen-out")}, ${SIMULATED_END("over-quota")}, ${SIMULATED_END("quality-terminate")}, ${secret}, true)
      on conflict do nothing`;
    [r] = await read();
  }
  const s = (await row(tx, r!.id))!;
  return {
    id: s.id,
    entryParameter: s.entryParameter,
    secret: s.secret!,
    signatureParameter: s.signatureParameter,
    signatureAlgorithm: s.signatureAlgorithm,
    signatureEncoding: s.signatureEncoding,
    signedPart: s.signedPart,
  };
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
      throw new ApiError(
        "Conflict",
        `Survey run ${runId} has ${run.simulated} simulated respondents: a supplier's run takes only the supplier's respondents, so set the supplier before the run launches (CreateDecipherSurveys, SetSampleSupplier, LaunchSurvey)`,
      );
    }
    const supplier = supplierId === null ? null : await row(tx, supplierId);
    if (supplierId !== null && !supplier) throw new ApiError("NotFound", `SampleSuppliers(${supplierId}) not found`);
    if (supplier?.isSimulated) throw simulatedIsItsOwn(supplier.id);
    await tx`update survey_runs set sample_supplier_id = ${supplierId}, updated_at = now() where id = ${runId}`;
    await clearAllocations(tx, runId);
  });
}

// ---- signatures ----

const HASH: Record<SignatureAlgorithm, "sha1" | "sha256"> = {
  "HMAC-SHA256": "sha256",
  "HMAC-SHA1": "sha1",
  "SHA1-SECRET-SUFFIX": "sha1",
  "SHA256-SECRET-SUFFIX": "sha256",
};

/**
 * The signature's bytes (node:crypto, synchronous: every entry and end link is signed or checked,
 * and Web Crypto's importKey and sign cost a key import and a hop off the thread each, seconds of
 * the demo world's build). HMAC-*: the HMAC of `message` keyed by the secret (RFC 2104).
 * *-SECRET-SUFFIX: the plain hash of `message` followed by the secret (PureSpectrum's documented
 * `ps_hash` formula, sha1(full_url + shared_secret)).
 */
async function digest(secret: string, algorithm: SignatureAlgorithm, message: string): Promise<Uint8Array> {
  const hash = HASH[algorithm];
  if (algorithm.startsWith("HMAC-")) return new Uint8Array(createHmac(hash, secret).update(message, "utf8").digest());
  return new Uint8Array(
    createHash(hash)
      .update(message + secret, "utf8")
      .digest(),
  );
}

/** Lower-case hex, or base64url without padding (RFC 4648 section 5). */
function encode(bytes: Uint8Array, encoding: SignatureEncoding): string {
  // Buffer's own encoders: "base64url" is RFC 4648 section 5's alphabet without padding.
  return Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString(encoding === "hex" ? "hex" : "base64url");
}

/** The signature of `message` under a supplier's scheme. */
export async function signature(secret: string, scheme: SignatureScheme, message: string): Promise<string> {
  return encode(await digest(secret, scheme.signatureAlgorithm, message), scheme.signatureEncoding);
}

/** A received signature as its encoding writes it: hex in lower case, base64url without padding. */
function canonical(sig: string, encoding: SignatureEncoding): string | null {
  if (encoding === "hex") return /^[0-9a-f]+$/i.test(sig) ? sig.toLowerCase() : null;
  const bare = sig.replace(/(=|%3D)+$/i, "");
  return /^[A-Za-z0-9_-]+$/.test(bare) ? bare : null;
}

/** Compares two strings in time independent of where they differ. */
function same(a: string, b: string): boolean {
  let diff = a.length ^ b.length;
  for (let i = 0; i < Math.max(a.length, b.length); i++) diff |= (a.charCodeAt(i) || 0) ^ (b.charCodeAt(i) || 0);
  return diff === 0;
}

/**
 * A link signed under the scheme: the signature parameter goes last in the query (before any
 * fragment), after "&" (or "?" when the link has no query). What is signed is the link before it
 * (signedPart url: the whole link without the separator and fragment; query: its query only).
 */
export async function signLink(secret: string, scheme: SignatureScheme, url: string): Promise<string> {
  const hash = url.indexOf("#");
  const base = hash < 0 ? url : url.slice(0, hash);
  const fragment = hash < 0 ? "" : url.slice(hash);
  const message = scheme.signedPart === "url" ? base : (queryOf(base) ?? "");
  return `${base}${base.includes("?") ? "&" : "?"}${scheme.signatureParameter}=${await signature(secret, scheme, message)}${fragment}`;
}

export interface SupplierEntry {
  supplierId: number;
  rid: string;
  /** The run's test key, when the entry came by the run's test link (`test={key}`, signed like the rest). */
  test: string | null;
  /** Whether the supplier is the simulated panel (its respondents are simulated: survey_sessions.is_simulated). */
  simulated?: boolean;
  /** The supplier's allocation of the run is met (allocations.ts): a new rid goes back over quota. */
  full?: boolean;
}

const REFUSED = "This survey link is not valid";

/**
 * The entry of a supplier's respondent: `query` is the page's query string as received (without
 * "?"). Checks the supplier is the run's, reads the rid from its entry parameter, and with a
 * secret the signature (the supplier's parameter, last in the query) over what its scheme signs:
 * `{publicUrl}/s/{link}?{query before the signature parameter}` (url) or that query alone (query).
 * Refusals are 403s.
 */
export async function verifyEntry(tx: Tx, run: { id: number; sampleSupplierId: number | null; sampleSource: string }, link: string, publicUrl: string, query: string): Promise<SupplierEntry> {
  const supplierId = Number(new URLSearchParams(query).get("supplier"));
  if (!Number.isInteger(supplierId) || supplierId <= 0) throw new ApiError("Forbidden", REFUSED, "no supplier in the entry link");
  const s = await supplierOf(tx, supplierId);
  // The simulated panel's supplier sends people to runs without an outside supplier (the tick to
  // those whose source is simulated; staff's RunSimulatedData to a customer panel's too), never to a supplier's.
  // An outside supplier: the run's, or one of its allocations (allocations.ts), with its cap.
  const allocation = s && !s.isSimulated ? await allocationAtEntry(tx, run, supplierId) : null;
  const allocated = s?.isSimulated ? run.sampleSupplierId === null && run.sampleSource !== "supplier" : allocation?.allocated === true;
  if (!s || !allocated) throw new ApiError("Forbidden", REFUSED, "this supplier does not send respondents to this survey");
  const marker = `&${s.signatureParameter}=`;
  const cut = query.indexOf(marker);
  const signed = cut >= 0 ? query.slice(0, cut) : query;
  const sig = cut >= 0 ? query.slice(cut + marker.length) : null;
  const params = new URLSearchParams(signed);
  if (Number(params.get("supplier")) !== supplierId) throw new ApiError("Forbidden", REFUSED, "no supplier in the entry link");
  const rid = params.get(s.entryParameter);
  if (!rid || rid.length > 200) throw new ApiError("Forbidden", REFUSED, `no ${s.entryParameter} in the entry link`);
  if (s.secret !== null) {
    if (sig === null) throw new ApiError("Forbidden", REFUSED, "the entry link is not signed");
    const message = s.signedPart === "url" ? `${publicUrl.replace(/\/$/, "")}/s/${link}?${signed}` : signed;
    const got = canonical(sig, s.signatureEncoding);
    if (got === null || !same(got, await signature(s.secret, s, message))) throw new ApiError("Forbidden", REFUSED, "the entry link's signature does not match");
  }
  // A run fielded through Samplify: Dynata puts the project's Secure Key 2 in k2 (record 0136).
  const { entryKey } = await samplifyOf(tx, run.id);
  if (entryKey) {
    const k2 = params.get("k2");
    if (k2 === null || !same(k2, entryKey)) throw new ApiError("Forbidden", REFUSED, "the entry's k2 is not the Samplify project's security key");
  }
  return { supplierId, rid, test: params.get("test"), simulated: s.isSimulated, full: allocation?.full === true };
}

export type EndKind = "complete" | "screenOut" | "overQuota" | "qualityTerminate";

const TEMPLATE_OF: Record<EndKind, "completeUrl" | "screenOutUrl" | "overQuotaUrl" | "qualityTerminateUrl"> = {
  complete: "completeUrl",
  screenOut: "screenOutUrl",
  overQuota: "overQuotaUrl",
  qualityTerminate: "qualityTerminateUrl",
};

/**
 * Where a supplier's respondent goes at the end: the template with {rid}, signed with a secret. A
 * run fielded through Samplify goes to Dynata's end links instead (`dynata`, kept from the line
 * item's answer: dynataEndLink).
 */
async function endLink(s: SupplierRow, rid: string, kind: EndKind, dynata: EndLinks | null = null): Promise<string> {
  if (dynata) return dynataEndLink(dynata, rid, kind);
  const url = s[TEMPLATE_OF[kind]].replaceAll("{rid}", encodeURIComponent(rid));
  return s.secret !== null ? signLink(s.secret, s, url) : url;
}

// ---- Dynata's end links (a Samplify line item's endLinks; decision record 0127) ----

/** Dynata's placeholders: the respondent's id, and the code its complete link carries. */
const DYNATA_RID = "{psid}";
const DYNATA_CODE = "{calculatedSecurityCode}";

/**
 * How the code is computed where the reference shows only its place (`med={calculatedSecurityCode}`
 * on the complete link, level MEDIUM): a supplier scheme, hex HMAC-SHA256 of the link before the
 * code's parameter, keyed by securityKey1. Key 1, because key 2 travels to the respondent in the
 * entry link (the reference's `k2=<#Project[Secure Key 2]>`), so it cannot be a secret. The
 * parameter keeps the name the template gives it and goes last, where the template has it.
 */
export const DYNATA_SCHEME: Omit<SignatureScheme, "signatureParameter"> = { signatureAlgorithm: "HMAC-SHA256", signatureEncoding: "hex", signedPart: "url" };

/** Dynata has three end links: a quality-terminate goes back as a screen-out. */
const DYNATA_LINK_OF: Record<EndKind, "complete" | "screenout" | "overquota"> = { complete: "complete", screenOut: "screenout", overQuota: "overquota", qualityTerminate: "screenout" };

/** Why Dynata's end links cannot be used as given (a placeholder Ideally cannot fill, a code without its key), or null. */
export function dynataEndLinksProblem(e: EndLinks): string | null {
  for (const k of ["complete", "screenout", "overquota"] as const) {
    const v = e[k];
    if (typeof v !== "string" || templateProblem(v.replaceAll(DYNATA_RID, "{rid}").replaceAll(DYNATA_CODE, "x")) !== null) return `the ${k} link is not an http(s) link with ${DYNATA_RID}`;
    const unknown = v
      .replaceAll(DYNATA_RID, "")
      .replaceAll(DYNATA_CODE, "")
      .match(/\{[^}]*\}/);
    if (unknown) return `the ${k} link carries ${unknown[0]}, which Ideally cannot fill`;
    if (v.includes(DYNATA_CODE) && !e.securityKey1) return `the ${k} link carries ${DYNATA_CODE} but Samplify gave no securityKey1`;
    if (v.includes(DYNATA_CODE) && !/[?&][A-Za-z0-9_]+=\{calculatedSecurityCode\}(&|$)/.test(v.split("#")[0]!)) {
      return `the ${k} link carries ${DYNATA_CODE} outside a query parameter of its own`;
    }
  }
  return null;
}

/** A Dynata end link: {psid} filled with the rid, and {calculatedSecurityCode}'s parameter signed last (DYNATA_SCHEME). */
export async function dynataEndLink(e: EndLinks, rid: string, kind: EndKind): Promise<string> {
  const filled = e[DYNATA_LINK_OF[kind]].replaceAll(DYNATA_RID, encodeURIComponent(rid)).split("#")[0]!;
  const q = filled.indexOf("?");
  if (q < 0 || !filled.includes(DYNATA_CODE)) return filled;
  const params = filled.slice(q + 1).split("&");
  const code = params.find((p) => p.endsWith(`=${DYNATA_CODE}`))!;
  const rest = params.filter((p) => p !== code);
  const unsigned = `${filled.slice(0, q)}${rest.length ? `?${rest.join("&")}` : ""}`;
  return signLink(e.securityKey1!, { ...DYNATA_SCHEME, signatureParameter: code.slice(0, code.indexOf("=")) }, unsigned);
}

/** The Dynata end links kept on a run fielded through Samplify, or null. */
async function runEndLinks(tx: Tx, runId: number): Promise<EndLinks | null> {
  return (await samplifyOf(tx, runId)).endLinks;
}

/**
 * The end link a test entry is sent to for its outcome (the run's test link: Dynata checks its end
 * links with it): the same link a respondent would get, and nothing recorded (no outcome, no
 * callback, no reconciliation row).
 */
export async function testEndLink(tx: Tx, runId: number, entry: SupplierEntry, status: string, endReason: string | null, flags: readonly string[]): Promise<string | null> {
  const kind = endKindOf(status, endReason, flags);
  const s = await supplierOf(tx, entry.supplierId);
  return kind && s ? endLink(s, entry.rid, kind, await runEndLinks(tx, runId)) : null;
}

export type RecordKind = "outcome" | "reversal";

/** Where a supplier's callbacks of a kind go: reversals to the reversal URL, else (and every outcome) the callback URL; null: none. */
const callbackTemplate = (s: Pick<Supplier, "callbackUrl" | "reversalUrl">, kind: RecordKind): string | null => (kind === "reversal" ? (s.reversalUrl ?? s.callbackUrl) : s.callbackUrl);

/**
 * The supplier's callback for an outcome (or a reversal to it): the template with {rid} and
 * {outcome}, the outcome in the supplier's own code when it names one, signed with a secret; null
 * without a template.
 */
async function callbackLink(s: SupplierRow, rid: string, outcome: OutcomeName, kind: RecordKind): Promise<string | null> {
  const template = callbackTemplate(s, kind);
  if (template === null) return null;
  const url = template.replaceAll("{rid}", encodeURIComponent(rid)).replaceAll("{outcome}", encodeURIComponent(s.callbackCodes[outcome] ?? outcome));
  return s.secret !== null ? signLink(s.secret, s, url) : url;
}

// ---- reconciliation ----

const CSV_DANGER = /^[=+\-@\t\r]/;
export function csvCell(v: string | null): string {
  let s = v ?? "";
  if (CSV_DANGER.test(s)) s = `'${s}`; // a spreadsheet would run it as a formula
  return /[",\r\n]/.test(s) ? `"${s.replaceAll('"', '""')}"` : s;
}

/**
 * The end link a finished session is sent back to its supplier with; null while in progress. It is
 * recorded once, when the session ends (recordOutcomes), and the respondent's redirect, the
 * callback and the reconciliation all read the record, so the supplier invoices exactly what it was
 * told (issue 36: a respondent in the survey when the field end closed the run was sent the
 * over-quota link and listed as "removed").
 */
export function endKindOf(status: string, endReason: string | null, flags: readonly string[]): EndKind | null {
  if (status === "InProgress") return null;
  if (status === "Complete") return flags.length ? "qualityTerminate" : "complete";
  if (status === "ScreenedOut") return endReason === "attention check" ? "qualityTerminate" : "screenOut";
  if (status === "OverQuota") return "overQuota";
  // Removed: excluded for quality, or the run closed on them.
  return flags.length ? "qualityTerminate" : "overQuota";
}

const OUTCOME_NAMES: Record<EndKind, OutcomeName> = { complete: "complete", screenOut: "screen-out", overQuota: "over-quota", qualityTerminate: "quality-terminate" };
const KIND_OF: Record<OutcomeName, EndKind> = { complete: "complete", "screen-out": "screenOut", "over-quota": "overQuota", "quality-terminate": "qualityTerminate" };

// ---- outcomes: what each rid was sent back with ----

/**
 * Records the outcome of every finished supplier session of the run that has none yet (one
 * session with `sessionId`), in the caller's transaction: the end it ended with (endKindOf), and,
 * when the supplier has a callback URL, a callback due now. Idempotent: an outcome, once recorded,
 * never changes.
 */
export async function recordOutcomes(tx: Tx, runId: number, sessionId: number | null = null): Promise<void> {
  const ended = await tx<{ id: number; supplierId: number; rid: string; status: string; endReason: string | null; flags: string[]; callback: boolean }[]>`
    select s.id, s.sample_supplier_id as "supplierId", s.supplier_rid as rid, s.status, s.end_reason as "endReason", s.quality_flags as flags,
           p.callback_url is not null as callback
    from survey_sessions s join sample_suppliers p on p.id = s.sample_supplier_id
    where s.survey_run_id = ${runId} and s.supplier_rid is not null and s.status <> 'InProgress'
      and (${sessionId}::int is null or s.id = ${sessionId}::int)
      and not exists (select 1 from supplier_outcomes o where o.survey_session_id = s.id)
    order by s.id`;
  for (const e of ended) {
    const kind = endKindOf(e.status, e.endReason, e.flags)!;
    await tx`
      insert into supplier_outcomes (survey_run_id, sample_supplier_id, rid, survey_session_id, outcome, callback_state, next_attempt_at)
      values (${runId}, ${e.supplierId}, ${e.rid}, ${e.id}, ${OUTCOME_NAMES[kind]}, ${e.callback ? "pending" : "none"}, ${e.callback ? new Date() : null})
      on conflict do nothing`;
  }
}

/**
 * The outcome of one supplier session that has just ended, recorded as recordOutcomes would (its
 * end by endKindOf, a callback due now when the supplier has a callback URL) in one statement;
 * returns it, or null when it was recorded before (or the session has no supplier or has not ended).
 */
export async function recordOutcome(
  tx: Tx,
  s: { id: number; surveyRunId: number; status: string; endReason: string | null; qualityFlags: string[]; sampleSupplierId: number | null; supplierRid: string | null },
  at: Date | null = null,
): Promise<OutcomeName | null> {
  const kind = endKindOf(s.status, s.endReason, s.qualityFlags);
  if (kind === null || s.sampleSupplierId === null || s.supplierRid === null) return null;
  // Decided when the respondent ended: now, or the simulated person's own time (`at`, as their session's end).
  const [added] = await tx<{ outcome: OutcomeName }[]>`
    insert into supplier_outcomes (survey_run_id, sample_supplier_id, rid, survey_session_id, outcome, callback_state, next_attempt_at, decided_at)
    select ${s.surveyRunId}, p.id, ${s.supplierRid}, ${s.id}, ${OUTCOME_NAMES[kind]},
           case when p.callback_url is null then 'none' else 'pending' end, case when p.callback_url is null then null else ${new Date()}::timestamptz end,
           coalesce(${at?.toISOString() ?? null}::timestamptz, now())
    from sample_suppliers p where p.id = ${s.sampleSupplierId}
    on conflict do nothing
    returning outcome`;
  return added?.outcome ?? null;
}

/**
 * A new rid arriving after the run closed: sent back over quota, and that outcome recorded (with
 * its callback) though no session is stored. Null when the rid's outcome was already recorded (a
 * repeated late entry: a duplicate, no fresh link).
 */
export async function recordLateArrival(tx: Tx, runId: number, entry: SupplierEntry): Promise<string | null> {
  const s = await supplierOf(tx, entry.supplierId);
  if (!s) return null;
  const [added] = await tx<{ id: number }[]>`
    insert into supplier_outcomes (survey_run_id, sample_supplier_id, rid, outcome, callback_state, next_attempt_at)
    values (${runId}, ${entry.supplierId}, ${entry.rid}, 'over-quota', ${s.callbackUrl !== null ? "pending" : "none"}, ${s.callbackUrl !== null ? new Date() : null})
    on conflict do nothing
    returning id`;
  return added ? endLink(s, entry.rid, "overQuota", await runEndLinks(tx, runId)) : null;
}

/** Why a reported complete was reversed, as the reversal records it. */
export type ReversalReason = "removed by staff";

/**
 * Reverses the reported completes among `sessionIds` (staff removed them after the supplier was
 * told "complete", by redirect and callback): each gets one reversal record, in the caller's
 * transaction, carrying the final outcome (quality-terminate: rejected in reconciliation) and why,
 * and, when the supplier has a reversal or callback URL, a callback due now (sent after the
 * complete's own). Idempotent: a complete is reversed once; any other outcome stays what it was.
 */
export async function recordReversals(tx: Tx, runId: number, sessionIds: number[], reason: ReversalReason): Promise<number> {
  const added = await tx<{ id: number }[]>`
    insert into supplier_outcomes (survey_run_id, sample_supplier_id, rid, survey_session_id, outcome, kind, reason, callback_state, next_attempt_at)
    select o.survey_run_id, o.sample_supplier_id, o.rid, o.survey_session_id, 'quality-terminate', 'reversal', ${reason},
           case when coalesce(p.reversal_url, p.callback_url) is null then 'none' else 'pending' end,
           case when coalesce(p.reversal_url, p.callback_url) is null then null else now() end
    from supplier_outcomes o join sample_suppliers p on p.id = o.sample_supplier_id
    where o.survey_run_id = ${runId} and o.kind = 'outcome' and o.outcome = 'complete' and o.survey_session_id = any(${sessionIds}::int[])
    on conflict do nothing
    returning id`;
  return added.length;
}

/** Whether the rid already has an outcome in the run (it finished, or arrived after the close). */
export async function hasOutcome(tx: Tx, runId: number, entry: SupplierEntry): Promise<boolean> {
  const [o] = await tx`select 1 from supplier_outcomes where survey_run_id = ${runId} and sample_supplier_id = ${entry.supplierId} and rid = ${entry.rid}`;
  return o !== undefined;
}

/**
 * The end link of a finished supplier session: its recorded outcome's link, signed (recorded now if
 * the session ended before outcomes were kept); null while in progress or without a supplier.
 */
export async function sessionEndLink(
  tx: Tx,
  s: { id: number; surveyRunId: number; status: string; sampleSupplierId: number | null; supplierRid: string | null },
  recorded: OutcomeName | null = null,
): Promise<string | null> {
  if (s.status === "InProgress" || s.sampleSupplierId === null || s.supplierRid === null) return null;
  const read = async () => (recorded ? [{ outcome: recorded }] : tx<{ outcome: OutcomeName }[]>`select outcome from supplier_outcomes where survey_session_id = ${s.id} and kind = 'outcome'`);
  // The outcome (unless just recorded), the supplier and the run's end links asked at once (one round trip).
  let [[o], supplier, links] = await Promise.all([read(), supplierOf(tx, s.sampleSupplierId), runEndLinks(tx, s.surveyRunId)]);
  if (!o) {
    await recordOutcomes(tx, s.surveyRunId, s.id);
    [o] = await read();
  }
  return o && supplier ? endLink(supplier, s.supplierRid, KIND_OF[o.outcome], links) : null;
}

// ---- server-to-server callbacks ----

/** Attempts before a callback is given up (failed). */
export const CALLBACK_MAX_ATTEMPTS = 8;
/** A callback call taking longer than this is a failed attempt. */
export const CALLBACK_TIMEOUT_MS = 10_000;
/** A claimed callback is not claimed again for this long (a process that died mid-call). */
const CALLBACK_LEASE_SECONDS = 300;

/**
 * What a callback's answer means. 2xx (200-299): delivered. 408 Request Timeout, 425 Too Early, 429
 * Too Many Requests, any 5xx, and no answer at all (a network error, the timeout): the supplier may
 * take it later, so it is tried again. Anything else (1xx, 3xx: redirects are not followed; the
 * other 4xx: the supplier refuses this request, e.g. PureSpectrum's 400 "This transaction id
 * already has a final status") would be answered the same again: failed at once.
 */
export function callbackAnswer(httpStatus: number | null): "delivered" | "retry" | "failed" {
  if (httpStatus === null) return "retry";
  if (httpStatus >= 200 && httpStatus <= 299) return "delivered";
  if (httpStatus >= 500 || httpStatus === 408 || httpStatus === 425 || httpStatus === 429) return "retry";
  return "failed";
}

/** Seconds before the next attempt after `failed` failed attempts: 30 s, quadrupling, at most 6 hours. */
export function callbackBackoffSeconds(failed: number): number {
  return Math.min(6 * 3600, 30 * 4 ** Math.max(0, failed - 1));
}

export interface CallbackAttempt {
  supplierOutcomeId: number;
  attempt: number;
  url: string;
  httpStatus: number | null;
  error: string | null;
  delivered: boolean;
}

/**
 * Sends the callbacks that are due (a reversal only once its outcome's own callback is no longer
 * pending, so the supplier hears of the complete before its reversal), each outside any transaction: claimed in a short transaction
 * (leased, so no other process sends it meanwhile), called (POST, 10 s, redirects not followed; a
 * 2xx answer delivers it), and the attempt recorded in another. A failed attempt is tried again
 * after callbackBackoffSeconds, up to CALLBACK_MAX_ATTEMPTS in its series (staff may start a new
 * series: supplier-resend.ts), then the callback is failed. The suppliers.callbacks job runs this;
 * `fetchFn` is for tests.
 */
export async function deliverDueCallbacks(db: Db, opts: { limit?: number; fetchFn?: typeof fetch } = {}): Promise<CallbackAttempt[]> {
  const send = opts.fetchFn ?? fetch;
  const claimed = await system(db, async (tx) => {
    const due = await tx<{ id: number; attempt: number; series: number; inSeries: number; supplierId: number; rid: string; outcome: OutcomeName; kind: RecordKind }[]>`
      update supplier_outcomes o
      set callback_attempts = o.callback_attempts + 1, next_attempt_at = now() + make_interval(secs => ${CALLBACK_LEASE_SECONDS})
      where o.id in (
        select d.id from supplier_outcomes d
        where d.callback_state = 'pending' and d.next_attempt_at <= now()
          and (d.kind = 'outcome' or not exists (
            select 1 from supplier_outcomes p
            where p.kind = 'outcome' and p.callback_state = 'pending'
              and p.survey_run_id = d.survey_run_id and p.sample_supplier_id = d.sample_supplier_id and p.rid = d.rid))
        order by d.next_attempt_at, d.id limit ${opts.limit ?? 50} for update of d skip locked)
      returning o.id::int as id, o.callback_attempts as attempt, o.callback_series as series, o.callback_attempts - o.callback_series_from as "inSeries",
                o.sample_supplier_id as "supplierId", o.rid, o.outcome, o.kind`;
    const out: { id: number; attempt: number; series: number; inSeries: number; url: string | null }[] = [];
    for (const d of due) {
      const s = await row(tx, d.supplierId);
      out.push({ id: d.id, attempt: d.attempt, series: d.series, inSeries: d.inSeries, url: s ? await callbackLink(s, d.rid, d.outcome, d.kind) : null });
    }
    return out;
  });
  const attempts: CallbackAttempt[] = [];
  for (const c of claimed) {
    if (c.url === null) {
      // The supplier was removed, or its callback URL, since the outcome: nothing to send.
      await system(db, (tx) => tx`update supplier_outcomes set callback_state = 'none', next_attempt_at = null, callback_attempts = callback_attempts - 1 where id = ${c.id}`);
      continue;
    }
    const startedAt = new Date();
    let httpStatus: number | null = null;
    let error: string | null = null;
    try {
      const r = await send(c.url, { method: "POST", redirect: "manual", signal: AbortSignal.timeout(CALLBACK_TIMEOUT_MS) });
      httpStatus = r.status;
      await r.body?.cancel();
    } catch (e) {
      error = (e instanceof Error ? `${e.name}: ${e.message}` : String(e)).slice(0, 500);
    }
    const answer = callbackAnswer(httpStatus);
    const delivered = answer === "delivered";
    await system(db, async (tx) => {
      await tx`
        insert into supplier_callback_attempts (supplier_outcome_id, attempt, series, url, started_at, http_status, error)
        values (${c.id}, ${c.attempt}, ${c.series}, ${c.url}, ${startedAt}, ${httpStatus}, ${error})`;
      if (delivered) await tx`update supplier_outcomes set callback_state = 'delivered', delivered_at = now(), next_attempt_at = null where id = ${c.id}`;
      else if (answer === "failed" || c.inSeries >= CALLBACK_MAX_ATTEMPTS) await tx`update supplier_outcomes set callback_state = 'failed', next_attempt_at = null where id = ${c.id}`;
      else await tx`update supplier_outcomes set next_attempt_at = now() + make_interval(secs => ${callbackBackoffSeconds(c.inSeries)}) where id = ${c.id}`;
    });
    attempts.push({ supplierOutcomeId: c.id, attempt: c.attempt, url: c.url, httpStatus, error, delivered });
  }
  return attempts;
}

export interface SupplierCallback {
  id: number;
  rid: string;
  /** outcome: what the rid was sent back with; reversal: a later change of a reported complete, to `outcome`. */
  kind: RecordKind;
  outcome: OutcomeName;
  reason: string | null;
  decidedAt: string;
  state: "pending" | "delivered" | "failed";
  nextAttemptAt: string | null;
  deliveredAt: string | null;
  /** 1, and one more each time staff sent it again (a fresh series of attempts). */
  series: number;
  attempts: { attempt: number; series: number; url: string; startedAt: string; finishedAt: string; httpStatus: number | null; error: string | null }[];
}

/** SupplierCallbacks: the run's callbacks with every attempt (staff). */
export async function supplierCallbacks(db: Db, runId: number): Promise<SupplierCallback[]> {
  return system(db, async (tx) => {
    const [run] = await tx<{ id: number }[]>`select id from survey_runs where id = ${runId}`;
    if (!run) throw new ApiError("NotFound", `No survey run ${runId}`);
    return tx<SupplierCallback[]>`
      select o.id::int as id, o.rid, o.kind, o.outcome, o.reason, to_json(o.decided_at)#>>'{}' as "decidedAt", o.callback_state as state,
             to_json(o.next_attempt_at)#>>'{}' as "nextAttemptAt", to_json(o.delivered_at)#>>'{}' as "deliveredAt", o.callback_series as series,
             coalesce((select json_agg(json_build_object('attempt', a.attempt, 'series', a.series, 'url', a.url, 'startedAt', to_json(a.started_at)#>>'{}',
                                                        'finishedAt', to_json(a.finished_at)#>>'{}', 'httpStatus', a.http_status, 'error', a.error) order by a.attempt)
                       from supplier_callback_attempts a where a.supplier_outcome_id = o.id), '[]'::json) as attempts
      from supplier_outcomes o
      where o.survey_run_id = ${runId} and o.callback_state <> 'none'
      order by o.decided_at, o.id`;
  });
}

// ---- reconciliation ----

/**
 * ReconciliationCsv: every supplier respondent of the run, as suppliers invoice from it: each rid
 * with the outcome it was sent back with (recorded: the redirect and the callback said the same),
 * late arrivals after the close included (over-quota, no session), and rids still answering
 * (in-progress); start, end, quality flags, supplier, and the callback's state (delivered, pending,
 * failed; empty without a callback URL). A reversed complete is listed with its final outcome as its
 * status, what was first reported (`reported`), when it was reversed and its reversal callback's
 * state; those three are empty for a rid never reversed.
 */
export async function reconciliationCsv(db: Db, runId: number): Promise<string> {
  return system(db, async (tx) => {
    const [run] = await tx<{ id: number }[]>`select id from survey_runs where id = ${runId}`;
    if (!run) throw new ApiError("NotFound", `No survey run ${runId}`);
    // Sessions that ended before outcomes were recorded get theirs now (idempotent).
    await recordOutcomes(tx, runId);
    type Row = {
      rid: string;
      outcome: OutcomeName | null;
      start: string;
      end: string | null;
      flags: string[] | null;
      supplier: string;
      callback: string | null;
      reported: OutcomeName | null;
      reversedAt: string | null;
      reversal: string | null;
    };
    const rows = await tx<Row[]>`
      select o.rid, coalesce(r.outcome, o.outcome) as outcome, to_json(coalesce(s.started_at, o.decided_at))#>>'{}' as start, to_json(o.decided_at)#>>'{}' as "end",
             s.quality_flags as flags, p.name as supplier, o.callback_state as callback, coalesce(s.started_at, o.decided_at) as at,
             case when r.id is not null then o.outcome end as reported, to_json(r.decided_at)#>>'{}' as "reversedAt", r.callback_state as reversal
      from supplier_outcomes o join sample_suppliers p on p.id = o.sample_supplier_id
      left join survey_sessions s on s.id = o.survey_session_id
      left join supplier_outcomes r on r.kind = 'reversal' and r.survey_run_id = o.survey_run_id and r.sample_supplier_id = o.sample_supplier_id and r.rid = o.rid
      where o.survey_run_id = ${runId} and o.kind = 'outcome'
      union all
      select s.supplier_rid, null, to_json(s.started_at)#>>'{}', null, s.quality_flags, p.name, null, s.started_at, null, null, null
      from survey_sessions s join sample_suppliers p on p.id = s.sample_supplier_id
      where s.survey_run_id = ${runId} and s.supplier_rid is not null and s.status = 'InProgress'
      order by at, rid`;
    const lines = ["rid,status,start,end,quality_flags,supplier,callback,reported,reversed_at,reversal_callback"];
    const state = (v: string | null) => (v === null || v === "none" ? "" : v);
    const time = (v: string | null) => (v ? new Date(v).toISOString() : "");
    for (const r of rows) {
      lines.push(
        [
          r.rid,
          r.outcome ?? "in-progress",
          time(r.start),
          time(r.end),
          (r.flags ?? []).join(";"),
          r.supplier,
          state(r.callback),
          r.reported ?? "",
          time(r.reversedAt),
          r.reversedAt ? state(r.reversal) : "",
        ]
          .map(csvCell)
          .join(","),
      );
    }
    return `${lines.join("\r\n")}\r\n`;
  });
}
