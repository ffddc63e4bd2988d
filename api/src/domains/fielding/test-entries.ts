// Test entries (decision record 0127): a run's test link is its supplier's entry link with the
// run's test key before the respondent id (`supplier={id}&test={key}&{entryParameter}={rid}`,
// signed like any entry when the supplier signs). Samplify is given it as the line item's
// surveyTestURL, distinct from the live surveyURL. A test entry walks the same survey by the same
// rules and is sent to the same end link its outcome would earn (so Dynata can check its end
// links), but it is kept apart in survey_test_sessions: no count, quota, complete, supplier outcome,
// callback, reconciliation row, export or result reads that table. The key is random per run, so a
// live respondent cannot turn an entry into a test one.
import type { Tx } from "../../db/client.ts";
import { jsonParam } from "../../db/params.ts";
import { ApiError } from "../../errors.ts";
import { afterPage, assignTestOptions, hash32, pages, quotaReads, seeded, validatePage, type Answers, type SurveyDefinition } from "./engine.ts";
import { respondentView, SURVEY_STATUS, type RespondentView } from "./respondent-view.ts";
import * as q from "./fielding.sql.ts";
import { testEndLink, type SupplierEntry } from "./suppliers.ts";

type Run = q.RunRow & { definition: SurveyDefinition };

interface TestSession {
  id: number;
  respondentUuid: string;
  sampleSupplierId: number | null;
  supplierRid: string | null;
  status: string;
  answers: Answers;
  testOptionOrder: number[];
  page: number;
  endReason: string | null;
  qualityFlags: string[];
}

const COLUMNS = `id, respondent_uuid::text as "respondentUuid", sample_supplier_id as "sampleSupplierId", supplier_rid as "supplierRid",
  status, answers, test_option_order as "testOptionOrder", page, end_reason as "endReason", quality_flags as "qualityFlags"`;

/** Whether the entry carries the run's test key: a test entry (403 for a wrong key). */
export async function isTestEntry(tx: Tx, runId: number, entry: SupplierEntry): Promise<boolean> {
  if (entry.test === null) return false;
  const [r] = await tx<{ ok: boolean }[]>`select test_entry_key::text = ${entry.test} as ok from survey_runs where id = ${runId}`;
  if (!r?.ok) throw new ApiError("Forbidden", "This survey link is not valid", "the test key is not this run's");
  return true;
}

async function view(tx: Tx, run: Run, s: TestSession): Promise<RespondentView> {
  const entry = s.sampleSupplierId !== null && s.supplierRid !== null ? { supplierId: s.sampleSupplierId, rid: s.supplierRid, test: null } : null;
  return respondentView(run, s, entry && s.status !== "InProgress" ? await testEndLink(tx, run.id, entry, s.status, s.endReason, s.qualityFlags) : null);
}

/** A test entry starts: a test session (a new one each time: a tester may take the test link again). */
export async function startTestSession(tx: Tx, run: Run, entry: SupplierEntry): Promise<RespondentView> {
  const counts = await q.quotaCounts(tx, run.id);
  const order = assignTestOptions(run.definition, counts.byOption, seeded(hash32(`${run.surveyLink}:test:${entry.rid}:${Date.now()}`)));
  const [s] = await tx.unsafe<TestSession[]>(
    `insert into survey_test_sessions (survey_run_id, sample_supplier_id, supplier_rid, test_option_order) values ($1, $2, $3, $4::int[]) returning ${COLUMNS}`,
    [run.id, entry.supplierId, entry.rid, order],
  );
  return view(tx, run, s!);
}

/** The run's test session with this respondent id, if it is one. */
async function testSession(tx: Tx, runId: number, respondentId: string, lock = false): Promise<TestSession | undefined> {
  if (!/^[0-9a-f-]{36}$/i.test(respondentId)) return undefined;
  const [s] = await tx.unsafe<TestSession[]>(`select ${COLUMNS} from survey_test_sessions where survey_run_id = $1 and respondent_uuid = $2::uuid ${lock ? "for update" : ""}`, [runId, respondentId]);
  return s;
}

/** Where a test entry is, or undefined when the respondent id is no test entry's. */
export async function getTestSession(tx: Tx, run: Run, respondentId: string): Promise<RespondentView | undefined> {
  const s = await testSession(tx, run.id, respondentId);
  return s && view(tx, run, s);
}

/**
 * A test entry answers a page: validated and judged as a respondent's (the run's real completes
 * decide its quotas, read only), stored in its own table; nothing else is written. Undefined when
 * the respondent id is no test entry's.
 */
export async function submitTestPage(tx: Tx, run: Run, respondentId: string, pageId: string, input: Record<string, unknown>): Promise<RespondentView | undefined> {
  const s = await testSession(tx, run.id, respondentId, true);
  if (!s) return undefined;
  if (s.status !== "InProgress") throw new ApiError("Conflict", "You have already completed this survey. Thank you!");
  if (run.surveyStatusId !== SURVEY_STATUS.Live && run.surveyStatusId !== SURVEY_STATUS.Testing) throw new ApiError("Conflict", "This survey has closed. Thank you for your interest.");
  const all = pages(run.definition, s.testOptionOrder);
  const page = all[s.page]!;
  if (page.id !== pageId) throw new ApiError("Conflict", "This page was already answered: reload to continue where you left off", `expected page ${page.id}`);
  const checked = validatePage(run.definition, page, input);
  if ("errors" in checked) throw new ApiError("ValidationError", checked.errors.map((e) => e.message).join("; "), undefined, checked.errors);
  const answers = { ...s.answers, ...checked.answers };
  const reads = quotaReads(run.definition, page);
  const counts = reads ? await q.quotaCells(tx, run.id, reads.keys, reads.crossings) : null;
  const outcome = afterPage(run.definition, all, s.page, answers, { completesByOption: {}, completesByAnswer: counts?.byAnswer ?? {} });
  const next = outcome.status === "InProgress" ? outcome.page : s.page;
  const reason = "reason" in outcome ? outcome.reason : null;
  const flags = reason === "attention check" ? ["attention"] : [];
  await tx`
    update survey_test_sessions set status = ${outcome.status}, answers = ${jsonParam(tx, answers)}, page = ${next}, end_reason = ${reason},
      quality_flags = ${flags}::text[], completed_at = case when ${outcome.status} = 'InProgress' then null else now() end, updated_at = now()
    where id = ${s.id}`;
  const saved = await testSession(tx, run.id, respondentId);
  return view(tx, run, saved!);
}
