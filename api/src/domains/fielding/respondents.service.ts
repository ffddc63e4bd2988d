// The respondents' side of fielding (docs/decisions.md "Fielding"): a start (a panel id, a supplier's signed entry, the
// run's test link), a page (validated; targets, quotas, attention and quality checks; a complete ingested, the run closed
// at its quota), a reload; and the simulated panel's batches, the same code for many people in one transaction
// (respondentBatch, docs/decisions/0144). The runs themselves, their close and processing are fielding.service.ts's.
import { randomUUID } from "node:crypto";
import type { Db, Tx } from "../../db/client.ts";
import { enterTenant } from "../../access/policy.ts";
import { ApiError } from "../../errors.ts";
import { clientChannel, publish } from "../../jobs/channel.ts";
import { systemCtx } from "../lifecycle/lifecycle.service.ts";
import { afterPage, assignTestOptions, hash32, pages, quotaReads, seeded, validatePage, type SurveyDefinition } from "./engine.ts";
import { closeRun, ingestRun, projectUpdated } from "./fielding.service.ts";
import * as q from "./fielding.sql.ts";
import { hasOutcome, recordLateArrival, recordOutcome, sessionEndLink, verifyEntry, type OutcomeName, type SupplierEntry } from "./suppliers.ts";
import { networkKey, qualityFlags, runMedian } from "./quality.ts";
import { getTestSession, isTestEntry, startTestSession, submitTestPage } from "./test-entries.ts";
import { respondentView, SURVEY_STATUS, type RespondentView } from "./respondent-view.ts";

const system = <T>(db: Db, fn: (tx: Tx) => Promise<T>) => enterTenant(db, systemCtx(), fn);

function view(run: q.RunRow & { definition: SurveyDefinition }, s: q.SessionRow): RespondentView {
  return respondentView(run, s, null);
}

/** The view, with the supplier's end link (its recorded outcome's) for a supplier's respondent who has finished. */
async function viewOf(tx: Tx, run: q.RunRow & { definition: SurveyDefinition }, s: q.SessionRow, recorded: OutcomeName | null = null): Promise<RespondentView> {
  return { ...view(run, s), redirectUrl: await sessionEndLink(tx, s, recorded) };
}

/**
 * The run at a survey link, locked for a start or an answer: a run's entries and pages are judged
 * one at a time (its completes and quota cells are counted, and the run closed at its quota, as
 * each commits). A reload only reads (`lock` false).
 */
async function openRun(db: Db, tx: Tx, link: string, lock = true): Promise<q.RunRow & { definition: SurveyDefinition }> {
  if (!/^[0-9a-f-]{36}$/i.test(link)) throw new ApiError("NotFound", "This survey link is not valid");
  const run = await q.runForRespondent(db, tx, link, lock);
  if (!run?.definition) throw new ApiError("NotFound", "This survey link is not valid");
  return run as q.RunRow & { definition: SurveyDefinition };
}

/**
 * A respondent arrives: a new session (one per panel respondent id: the same id resumes its own),
 * with the test options they will see. A closed survey takes nobody new.
 */
export interface StartOptions {
  /** A supplier's entry: the page's query string as received (verified against the supplier). */
  entryQuery?: string | null;
  publicUrl?: string;
  /** The device's fingerprint (duplicates within a run are flagged). */
  deviceFingerprint?: string | null;
  /** The entry's address as the server adapter saw it (never a header) and its user agent: kept only as a keyed hash (quality.ts networkKey). */
  address?: string | null;
  userAgent?: string | null;
  /** The simulated panel's respondent's time (respondentBatch, in process only; a request never sets it); absent: now. */
  at?: Date | null;
}

export async function startSession(db: Db, link: string, panelRespondentId: string | null, opts: StartOptions = {}): Promise<RespondentView> {
  return system(db, async (tx) => (await enter(tx, await openRun(db, tx, link), link, panelRespondentId, opts)).view);
}

/** A respondent's view and, where one was stored or resumed, their session (a batch answers on from it). */
export interface Reached {
  view: RespondentView;
  session: q.SessionRow | null;
}

/** startSession on a transaction holding the run (locked): the entry judged, a session made or resumed. */
async function enter(
  tx: Tx,
  run: q.RunRow & { definition: SurveyDefinition },
  link: string,
  panelRespondentId: string | null,
  opts: StartOptions,
  asked: ReturnType<typeof q.completesByOption> | null = null,
): Promise<Reached> {
  const at = (s: q.SessionRow) => viewOf(tx, run, s).then((view) => ({ view, session: s }));
  const open = run.surveyStatusId === SURVEY_STATUS.Live || run.surveyStatusId === SURVEY_STATUS.Testing;
  // The run's completes by concept (a new session's order), asked with the entry's first reads
  // (one round trip), or already asked (`asked`: a batch's next person, with the last one's end);
  // a refused entry leaves the answer unread.
  const completesNow = asked ?? q.completesByOption(tx, run.id);
  completesNow.catch(() => {});
  let entry: SupplierEntry | null = null;
  /** A new session's row: its concepts ordered from the run's completes. */
  const fresh = async (): Promise<q.NewSession> => {
    const counts = await completesNow;
    // A supplier's respondent (its rid enters the run once) is given an order drawn from the rid, so
    // the same people meet the same concepts when a run is fielded again (the simulated panel's
    // seed); anyone else from the moment they arrive.
    const draw = entry ? `${run.id}:${entry.supplierId}:${entry.rid}:${counts.completes}` : `${link}:${counts.completes}:${Date.now()}`;
    const simulated = entry?.simulated === true;
    if (simulated && !run.isSimulated) {
      await q.markSimulated(tx, run.id);
      run.isSimulated = true;
    }
    return {
      clientId: run.clientId,
      surveyRunId: run.id,
      regionId: run.regionId,
      panelRespondentId: entry ? null : panelRespondentId,
      testOptionOrder: assignTestOptions(run.definition, counts.byOption, seeded(hash32(draw))),
      isSimulated: simulated,
      sampleSupplierId: entry?.supplierId ?? null,
      supplierRid: entry?.rid ?? null,
      deviceFingerprint: opts.deviceFingerprint ?? null,
      networkKey: opts.address && opts.userAgent ? networkKey(await q.respondentKey(tx, run.id), opts.address, opts.userAgent) : null,
      startedAt: opts.at ?? null,
    };
  };
  if (opts.entryQuery || run.sampleSupplierId !== null) {
    // A run fed by a supplier takes only its (signed) respondents.
    if (!opts.entryQuery) throw new ApiError("Forbidden", "This survey link is not valid", "a supplier's survey needs its entry link");
    entry = await verifyEntry(tx, run, link, opts.publicUrl ?? "", opts.entryQuery);
    // The run's test link: a test entry, kept apart and counted nowhere (test-entries.ts).
    if (await isTestEntry(tx, run.id, entry)) {
      if (!open) throw new ApiError("Conflict", "This survey is not open for a test now.");
      return { view: await startTestSession(tx, run, entry), session: null };
    }
    // A rid enters the run once. A new rid on an open run gets its session (one statement that
    // makes it unless the rid entered before). Otherwise the same rid comes back to its own session
    // while it is in progress; once it has finished, the entry is a duplicate (issue 36: it was
    // answered with the finished session and a freshly signed end link): told so, with no end
    // link, no session id and nothing stored. The respondent's own page still reads its session by
    // its id. A rid that arrived after the close (an outcome and no session) is finished as well.
    // A supplier whose allocation is met (allocations.ts) takes no new rid: it goes back over quota
    // below, as on a closed run; a rid already answering comes back to its session.
    if (open && !entry.full) {
      const made = await q.insertSessionOfNewRid(tx, { ...(await fresh()), sampleSupplierId: entry.supplierId, supplierRid: entry.rid });
      if (made) return at(made);
    }
    const [existing, finished] = await Promise.all([q.sessionBySupplierRid(tx, run.id, entry.supplierId, entry.rid), hasOutcome(tx, run.id, entry)]);
    if (existing && existing.status === "InProgress") return at(existing);
    if (existing || finished) return { view: duplicate(run), session: null };
  }
  if (panelRespondentId && !entry) {
    const existing = await q.sessionByPanelId(tx, run.id, panelRespondentId);
    if (existing) return at(existing);
  }
  const closed = run.surveyStatusId === SURVEY_STATUS.Closed || run.surveyStatusId === SURVEY_STATUS.ErrorProcessing;
  if (entry && (closed || entry.full)) {
    // A supplier's respondent on a closed run, or of a supplier whose allocation is met, goes back
    // to the supplier as over quota (the protocol has no "closed" link), signed like any end; no
    // session is stored, the outcome is (the reconciliation lists it, the callback reports it).
    const redirectUrl = await recordLateArrival(tx, run.id, entry);
    if (redirectUrl === null) return { view: duplicate(run), session: null };
    const endReason = closed ? "survey closed" : "supplier's allocation met";
    return {
      view: { surveyLink: run.surveyLink, respondentId: randomUUID(), status: "Removed", page: null, definition: run.definition, endReason, answers: {}, redirectUrl },
      session: null,
    };
  }
  if (!open) {
    throw new ApiError("Conflict", run.surveyStatusId === SURVEY_STATUS.Closed ? "This survey has closed. Thank you for your interest." : "This survey is not open yet.");
  }
  return at(await q.insertSession(tx, await fresh()));
}

/** A finished rid entering again: told so, with no end link, no session id and nothing stored. */
function duplicate(run: q.RunRow & { definition: SurveyDefinition }): RespondentView {
  return { surveyLink: run.surveyLink, respondentId: randomUUID(), status: "Removed", page: null, definition: run.definition, endReason: "duplicate", answers: {}, redirectUrl: null };
}

export async function getSession(db: Db, link: string, respondentId: string): Promise<RespondentView> {
  return system(db, async (tx) => {
    const run = await openRun(db, tx, link, false);
    const test = await getTestSession(tx, run, respondentId);
    if (test) return test;
    const s = await sessionOf(tx, run.id, respondentId);
    return viewOf(tx, run, s);
  });
}

async function sessionOf(tx: Tx, runId: number, respondentId: string, lock = false): Promise<q.SessionRow> {
  if (!/^[0-9a-f-]{36}$/i.test(respondentId)) throw new ApiError("NotFound", "No such respondent in this survey");
  const s = await q.session(tx, runId, respondentId, lock);
  if (!s) throw new ApiError("NotFound", "No such respondent in this survey");
  return s;
}

/**
 * One page answered: validated (400 with the failing answers and nothing saved), stored, then the
 * rules: screen-out, over quota, attention check, next page or complete. A complete is ingested at
 * once; the run closes when its quota is met. A finished session takes no more answers (409).
 * `at`: the respondent's time, in process only (a test playing the simulated panel's people one
 * transaction a page); the route never passes it: now.
 */
export async function submitPage(db: Db, link: string, respondentId: string, pageId: string, input: Record<string, unknown>, at: Date | null = null): Promise<RespondentView> {
  return system(db, async (tx) => {
    // A respondent's session, else a test entry's (test-entries.ts), else none (404). The run and
    // the session are read together (one round trip), the run's row locked first as always.
    if (!/^[0-9a-f-]{36}$/i.test(link)) throw new ApiError("NotFound", "This survey link is not valid");
    if (!/^[0-9a-f-]{36}$/i.test(respondentId)) throw new ApiError("NotFound", "No such respondent in this survey");
    const [run, s] = await Promise.all([openRun(db, tx, link), q.sessionAtLink(tx, link, respondentId)]);
    if (!s) {
      const test = await submitTestPage(tx, run, respondentId, pageId, input);
      if (test) return test;
      throw new ApiError("NotFound", "No such respondent in this survey");
    }
    return (await answer(tx, run, s, pageId, input, at, null)).view;
  });
}

/**
 * What a batch of respondents in one transaction leaves to its end (respondentBatch): the completes
 * counted when the last arrived, announced and ingested once for the batch, where a respondent's
 * own request does both in the transaction of each complete.
 */
interface Arrivals {
  completes: number | null;
  /** The run's completes as the current person entered (completedBefore). */
  completed?: ReturnType<typeof completedBefore>;
  /** The same, and the completes by concept, asked for the next person as the last one ended. */
  next?: ReturnType<typeof askCompletes>;
}

/**
 * What an entry and a complete's checks read of the run's completes (completesByOption, and
 * completedBefore's completeLengths and completeCount), in one statement, asked (not awaited).
 */
function askCompletes(tx: Tx, runId: number) {
  const all = q.completesSoFar(tx, runId);
  const asked = { byOption: all.then((a) => a.byOption), completed: all.then((a): [typeof a.lengths, number] => [a.lengths, a.completes]) };
  // A batch that ends (or fails) before its next person leaves them unread.
  asked.byOption.catch(() => {});
  asked.completed.catch(() => {});
  return asked;
}

/** What a complete's quality checks and the close at quota read of the run's completes before it. */
function completedBefore(tx: Tx, runId: number) {
  return Promise.all([q.completeLengths(tx, runId), q.completeCount(tx, runId)]);
}

/** submitPage on a transaction holding the run (locked) and the session: the page judged and saved. */
async function answer(
  tx: Tx,
  run: q.RunRow & { definition: SurveyDefinition },
  s: q.SessionRow,
  pageId: string,
  input: Record<string, unknown>,
  at: Date | null,
  arrivals: Arrivals | null,
): Promise<Reached> {
  if (s.status !== "InProgress") throw new ApiError("Conflict", "You have already completed this survey. Thank you!");
  if (run.surveyStatusId !== SURVEY_STATUS.Live && run.surveyStatusId !== SURVEY_STATUS.Testing) {
    throw new ApiError("Conflict", "This survey has closed. Thank you for your interest.");
  }
  const all = pages(run.definition, s.testOptionOrder);
  const page = all[s.page]!;
  if (page.id !== pageId) throw new ApiError("Conflict", "This page was already answered: reload to continue where you left off", `expected page ${page.id}`);
  const checked = validatePage(run.definition, page, input);
  if ("errors" in checked) {
    throw new ApiError("ValidationError", checked.errors.map((e) => e.message).join("; "), undefined, checked.errors);
  }
  const answers = { ...s.answers, ...checked.answers };
  // The quota cells are counted only where a page can close one, and only those it reads
  // (quotaReads: the demographics and screener pages judge the capped targets and the
  // crossings); the run's completes when this page completes the respondent (its quota).
  const reads = quotaReads(run.definition, page);
  const cells = reads ? await q.quotaCells(tx, run.id, reads.keys, reads.crossings) : null;
  const outcome = afterPage(run.definition, all, s.page, answers, { completesByOption: {}, completesByAnswer: cells?.byAnswer ?? {} });
  const next = outcome.status === "InProgress" ? outcome.page : s.page;
  let status: string = outcome.status;
  let reason = "reason" in outcome ? outcome.reason : null;
  let flags: string[] = reason === "attention check" ? ["attention"] : [];
  let completesBefore = 0;
  if (outcome.status === "Complete") {
    // Quality before weighting: a flagged respondent is excluded, and the quota stays open for another.
    // The run's completes before this one and their lengths and keys, asked at once (a batch asked
    // at the person's entry: nobody else completes while it holds the run), against the session's
    // own device and network keys.
    const [done, before] = await (arrivals?.completed ?? completedBefore(tx, run.id));
    completesBefore = cells ? cells.completes : before;
    const fp = s.deviceFingerprint;
    const nk = s.networkKey;
    flags = qualityFlags(run.definition, {
      answers,
      testOptionOrder: s.testOptionOrder,
      lengthSeconds: ((at ?? new Date()).getTime() - new Date(s.startedAt).getTime()) / 1000,
      medianSeconds: runMedian(done.lengths),
      duplicateDevice: fp !== null && done.fingerprints.includes(fp),
      duplicateNetwork: nk !== null && done.networkKeys.includes(nk),
    });
    if (flags.length) {
      status = "Removed";
      reason = "quality";
    }
  }
  // A batch's respondent is saved when they end (the state between pages is this transaction's
  // alone: nothing reads an InProgress session's answers before the commit); anyone else each page.
  // A supplier's respondent who ended: the outcome they are sent back with, recorded once (sent
  // with the save: one round trip).
  const ended = status !== "InProgress" && s.supplierRid !== null;
  const written = Promise.all([
    arrivals && status === "InProgress" ? { ...s, answers, page: next } : q.saveSession(tx, s.id, { status, answers, page: next, endReason: reason, qualityFlags: flags, at }),
    ended ? recordOutcome(tx, { ...s, status, endReason: reason, qualityFlags: flags }, at) : null,
  ]);
  // A batch's person who ended: what the next one's entry reads of the run's completes, asked
  // after this person's writes in the same round trip (the statements run in order).
  if (arrivals && status !== "InProgress") arrivals.next = askCompletes(tx, run.id);
  const [saved, recorded] = await written;
  if (status === "Complete") {
    // This complete counts (saved above, in this transaction); the run closes at its quota.
    const completes = completesBefore + 1;
    if (arrivals) {
      arrivals.completes = completes;
      if (await closeAtQuota(tx, run, completes)) run.surveyStatusId = SURVEY_STATUS.Closed;
    } else await afterCompletes(tx, run, completes);
  }
  const shown = await viewOf(tx, run, saved, recorded);
  // The complete's rows for the results, last: their inserts bump the project's results version,
  // a row every writer of the project's results (another market's respondents) waits on until
  // this transaction commits (migration 0029), so it is held for these statements only.
  if (status === "Complete" && !arrivals) await ingestRun(tx, run);
  return { view: shown, session: saved };
}

/**
 * Respondents taken one after another in one transaction (the simulated panel's people: record
 * 0144): `take` is handed the run's entry and its pages, which are the respondent routes' own
 * (startSession's and submitPage's, the same entry check, validation, quota, quality and outcome
 * code, on this transaction). The completes
 * that arrived are announced (ResponsesReceived, Progress) and ingested once at the end, as the
 * commit makes them visible at once anyway. A respondent's own time (`at`) sets their session's
 * start and end: only code in this process calls this.
 */
export interface RespondentBatch {
  /** The batch's transaction (reads of the run's state beside the respondents'). */
  tx: Tx;
  /** The run as it stands in this transaction (its row locked throughout; a close at quota is seen here). */
  run: q.RunRow & { definition: SurveyDefinition };
  enter(opts: StartOptions): Promise<Reached>;
  answer(s: q.SessionRow, pageId: string, input: Record<string, unknown>, at: Date): Promise<Reached>;
}

export async function respondentBatch<T>(db: Db, link: string, take: (b: RespondentBatch) => Promise<T>): Promise<T> {
  return system(db, async (tx) => {
    // The run's row stays locked to the commit: nobody else changes it meanwhile, so the batch's
    // own changes (the simulated mark, the close at quota) are all it needs to follow.
    const run = await openRun(db, tx, link);
    const arrivals: Arrivals = { completes: null };
    const result = await take({
      tx,
      run,
      enter: (opts) => {
        // The run's completes this person's order and (if they complete) checks are judged against:
        // asked with the last person's end, or now with the entry's reads.
        const asked = arrivals.next ?? askCompletes(tx, run.id);
        arrivals.next = undefined;
        arrivals.completed = asked.completed;
        return enter(tx, run, link, null, opts, asked.byOption);
      },
      answer: (s, pageId, input, at) => answer(tx, run, s, pageId, input, at, arrivals),
    });
    if (arrivals.completes !== null) {
      await completesArrived(tx, run, arrivals.completes);
      await ingestRun(tx, run);
    }
    return result;
  });
}

/** Tells the project's team that completes arrived, and closes the run at its quota. */
async function afterCompletes(tx: Tx, run: q.RunRow & { definition: SurveyDefinition }, completes: number): Promise<boolean> {
  const closed = await closeAtQuota(tx, run, completes);
  await completesArrived(tx, run, completes);
  return closed;
}

/** The run closes when its completes reach its quota. */
async function closeAtQuota(tx: Tx, run: q.RunRow & { definition: SurveyDefinition }, completes: number): Promise<boolean> {
  if (completes < (run.targetCompletes ?? run.definition.targetCompletes)) return false;
  await closeRun(tx, run, "quota");
  return true;
}

/** Completes arrived: the run's last complete stamped, the team told (ResponsesReceived, and Progress on its channel). */
async function completesArrived(tx: Tx, run: q.RunRow & { definition: SurveyDefinition }, completes: number): Promise<void> {
  const target = run.targetCompletes ?? run.definition.targetCompletes;
  await q.touchComplete(tx, run.id);
  await projectUpdated(tx, run.clientId, {
    projectId: run.definition.projectId,
    action: "ResponsesReceived",
    surveyRunId: run.id,
    regionId: run.regionId,
    completes,
    targetCompletes: target,
  });
  // Progress of the run's fielding on the team's channel (the job events' shape): watchers see it fill.
  await publish(tx, {
    channel: clientChannel(run.clientId),
    event: "Progress",
    data: {
      jobId: `survey-run-${run.id}`,
      name: "fielding",
      pct: Math.min(100, Math.round((completes / target) * 100)),
      message: `${completes} of ${target} completes in ${run.definition.regionName}`,
    },
    clientId: run.clientId,
  });
}
