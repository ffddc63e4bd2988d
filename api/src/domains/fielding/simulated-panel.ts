// The simulated Ideally panel, a sample supplier like the others (issue 36; docs/decisions/0144).
// Its people (simulate.ts: pure and seeded, drawn from the market as the incidence estimate sees
// it) take a survey the way a supplier's respondents do: each enters with the run's entry link,
// its rid and the supplier's signature, computed with the simulated supplier's own secret the way
// every supplier computes it (checked by the same entry code: signature, allocation, rid replay); answers
// page after page; and is sent back to the supplier's end link for its outcome, whose signature the
// panel checks and whose outcome it counts. Nothing is written around the protocol: the session,
// its answers, its quota and quality verdicts, its outcome, its ingestion and the run's close at
// quota are the respondent service's (respondents.service.ts startSession and submitPage, what the
// routes call), run for a batch of people in one transaction (respondentBatch): a person is saved
// when they end, the next person's reads of the run's completes go with the last one's end, and
// the completes are announced and ingested once a batch, so a person costs two round trips where a
// request a page cost a transaction a page (docs/testing.md, "The simulated panel's cost"). Each
// person answers on their own clock (about 20 seconds a page), so the lengths the quality checks
// judge are the person's, not the process's milliseconds; only code in this process can set it.
//
// The fielding tick (below) is the panel's clock, paced as before (docs/decisions/0121): each tick
// invites at most a field day of the panel's reach in the market.
import type { Db, Tx } from "../../db/client.ts";
import { enterTenant } from "../../access/policy.ts";
import { processConfig } from "../../config.ts";
import { ApiError } from "../../errors.ts";
import { systemCtx } from "../lifecycle/lifecycle.service.ts";
import { assignTestOptions, pages } from "./engine.ts";
import { closeRunsAtFieldEnd, createSurveys, detectStalls, entrantsPerTick, launchRun, margins, panelPlan, processRun, statusName, SURVEY_STATUS } from "./fielding.service.ts";
import * as q from "./fielding.sql.ts";
import { respondentBatch, type RespondentBatch } from "./respondents.service.ts";
import { answerPage, makePerson, skipOrderDraws } from "./simulate.ts";
import { signLink, simulatedSupplier, type SimulatedSupplier } from "./suppliers.ts";

const system = <T>(db: Db, fn: (tx: Tx) => Promise<T>) => enterTenant(db, systemCtx(), fn);

export interface SimulationResult {
  surveyRunId: number;
  invited: number;
  completes: number;
  screenedOut: number;
  overQuota: number;
  /** Completes excluded by the quality checks (replaced while the quota is open). */
  excluded: number;
  totalCompletes: number;
  targetCompletes: number;
  closed: boolean;
  /** People the panel can still invite to the run in its field period (its reach less those invited). */
  reachLeft: number;
}

export interface PanelOptions {
  /** The fielding tick: at most a field day of the panel's reach (entrantsPerTick). */
  paced?: boolean;
  /** The public URL the run's entry link is on (what the routes verify the signature against). */
  publicUrl?: string;
  /** Whether the simulated panel is on (SIMULATED_PANEL); absent: the process's configuration. */
  on?: boolean;
}

/** The refusal when the simulated panel is switched off. */
export function panelOff(runId: number): ApiError {
  return new ApiError(
    "Conflict",
    `The simulated panel is off on this server (SIMULATED_PANEL=off): it answers no run, so survey run ${runId} gets no simulated respondents. Field it with a sample supplier (SetSampleSource supplier) or the team's own list (customer).`,
  );
}

/** One batch at a time per run in this process (the people's indexes follow the run's sessions). */
const batches = new Map<number, Promise<unknown>>();

/**
 * RunSimulatedData: up to `completes` more simulated respondents take a Live (or Testing) run
 * through the supplier protocol (above). People are drawn from the market as the incidence
 * estimate sees it (panelPlan), so screen-outs follow incidence. Invitations stop at the quota, at
 * a day of the panel's reach when `paced` (the fielding tick: entrantsPerTick), or when the
 * panel's reach in the market for the field period is spent: a run the estimate calls infeasible
 * gets about its deliverable completes and no more. Never a run with a sample supplier: it takes
 * only the supplier's signed respondents (409); none at all when the panel is off (409).
 */
export async function simulate(db: Db, runId: number, completes: number, opts: PanelOptions = {}): Promise<SimulationResult> {
  if (!(opts.on ?? processConfig().simulatedPanel)) throw panelOff(runId);
  const before = batches.get(runId) ?? Promise.resolve();
  const mine = before.catch(() => {}).then(() => batch(db, runId, completes, opts));
  batches.set(runId, mine);
  try {
    return await mine;
  } finally {
    if (batches.get(runId) === mine) batches.delete(runId);
  }
}

/** People one transaction of the panel takes at most (respondentBatch: the run's row is locked meanwhile). */
export const PEOPLE_PER_TRANSACTION = 500;

async function batch(db: Db, runId: number, completes: number, opts: PanelOptions): Promise<SimulationResult> {
  const publicUrl = (opts.publicUrl ?? processConfig().publicUrl).replace(/\/$/, "");
  const [r] = await system(db, (tx) => tx<{ link: string }[]>`select survey_link::text as link from survey_runs where id = ${runId}`);
  if (!r) throw new ApiError("NotFound", `No survey run ${runId}`);
  const tally = { invited: 0, completes: 0, screenedOut: 0, overQuota: 0, excluded: 0 };
  let reachLeft = 0;
  let target = 0;
  // A transaction at a time (PEOPLE_PER_TRANSACTION people at most), until the batch is done.
  for (;;) {
    const more = await respondentBatch(db, r.link, async (b) => {
      const step = await people(b, completes - tally.completes, opts.paced === true ? tally.invited : null, publicUrl);
      for (const k of ["invited", "completes", "screenedOut", "overQuota", "excluded"] as const) tally[k] += step.tally[k];
      reachLeft = step.reachLeft;
      target = step.target;
      return step.more;
    });
    if (!more) break;
  }
  const after = await system(db, async (tx) => {
    const run = await q.run(tx, runId);
    const [{ done }] = await tx<{ done: number }[]>`select count(*)::int as done from survey_sessions where survey_run_id = ${runId} and status = 'Complete'`;
    return { closed: run?.surveyStatusId === SURVEY_STATUS.Closed, done };
  });
  return { surveyRunId: runId, ...tally, totalCompletes: after.done, targetCompletes: target, closed: after.closed, reachLeft };
}

type Tally = { invited: number; completes: number; screenedOut: number; overQuota: number; excluded: number };

/**
 * One transaction's people: up to `completes` more completes, and PEOPLE_PER_TRANSACTION people at
 * most; `pacedInvited` (the fielding tick) counts those this tick already invited against a field
 * day of the panel's reach. `more`: the batch goes on in another transaction.
 */
async function people(b: RespondentBatch, completes: number, pacedInvited: number | null, publicUrl: string): Promise<{ tally: Tally; reachLeft: number; target: number; more: boolean }> {
  const { tx, run } = b;
  if (run.sampleSupplierId !== null) {
    throw new ApiError("Conflict", `Survey run ${run.id} takes respondents from sample supplier ${run.sampleSupplierId} only: the simulated panel never answers it`);
  }
  if (run.surveyStatusId !== SURVEY_STATUS.Live && run.surveyStatusId !== SURVEY_STATUS.Testing) {
    throw new ApiError("Conflict", `Survey run ${run.id} is ${statusName(run.surveyStatusId)}: the panel answers Live or Testing runs`);
  }
  // What the panel knows before it invites anyone: the run's sessions, its market (the plan) and its supplier row.
  const [{ n, sent, done }] = await tx<{ n: number; sent: number; done: number }[]>`
    select count(*)::int as n, count(*) filter (where is_simulated)::int as sent, count(*) filter (where status = 'Complete')::int as done
    from survey_sessions where survey_run_id = ${run.id}`;
  const seed = (await tx<{ s: number | null }[]>`select simulated_seed as s from survey_runs where id = ${run.id}`)[0]?.s ?? run.id;
  const plan = await panelPlan(tx, run);
  const m = await margins(tx, run.regionId);
  const supplier = await simulatedSupplier(tx);
  const def = run.definition;
  const target = run.targetCompletes ?? def.targetCompletes;
  const invitable = Math.max(0, Math.min(plan.reach - sent, pacedInvited !== null ? entrantsPerTick(plan) - pacedInvited : Number.POSITIVE_INFINITY));
  const want = Math.max(0, Math.min(completes, target - done));
  // Pages a person answers at most (the order's length is the design's: one concept or all).
  const most = pages(
    def,
    assignTestOptions(def, {}, () => 0),
  ).length;
  const tally: Tally = { invited: 0, completes: 0, screenedOut: 0, overQuota: 0, excluded: 0 };
  const open = () => run.surveyStatusId === SURVEY_STATUS.Live || run.surveyStatusId === SURVEY_STATUS.Testing;
  for (let i = 0; tally.completes < want && i < invitable && i < PEOPLE_PER_TRANSACTION && open(); i++) {
    const index = n + i;
    const person = makePerson(def, m, seed, index, plan.shares);
    skipOrderDraws(def, person);
    tally.invited++;
    // The person's clock: they finish by now, spending secondsPerPage on each page (5 s at least in all).
    const spent = (pages: number) => Math.max(5, pages * person.secondsPerPage) * 1000;
    const start = Date.now() - spent(most);
    const rid = `sim-${seed}-${index}`;
    let { view, session } = await b.enter({
      entryQuery: await entryQuery(supplier, publicUrl, run.surveyLink, rid),
      publicUrl,
      deviceFingerprint: `device-${person.fingerprint}`,
      at: new Date(start),
    });
    let answered = 0;
    while (view.status === "InProgress" && view.page && session) {
      const page = view.page;
      answered++;
      ({ view, session } = await b.answer(session, page.id, answerPage(def, person, page), new Date(start + spent(answered))));
    }
    const outcome = await returned(supplier, view.redirectUrl, rid);
    if (outcome === "complete") tally.completes++;
    else if (outcome === "over-quota") tally.overQuota++;
    else if (outcome === "screen-out" || view.status === "ScreenedOut")
      tally.screenedOut++; // the attention check is a quality-terminate link
    else tally.excluded++;
  }
  const reachLeft = Math.max(0, plan.reach - sent - tally.invited);
  const more = tally.invited === PEOPLE_PER_TRANSACTION && tally.completes < want && tally.invited < invitable && open();
  return { tally, reachLeft, target, more };
}

/** The entry link's query, as the supplier makes it: supplier, rid and, last, the signature of the link before it. */
async function entryQuery(s: SimulatedSupplier, publicUrl: string, link: string, rid: string): Promise<string> {
  const signed = await signLink(s.secret, s, `${publicUrl}/s/${link}?supplier=${s.id}&${s.entryParameter}=${encodeURIComponent(rid)}`);
  return signed.slice(signed.indexOf("?") + 1);
}

/**
 * The end link the person was sent back with, as the supplier reads it: its own link for the
 * person's rid, signed with its secret (checked), and the outcome it names. A person sent nowhere,
 * or to a link the supplier did not sign, is a broken protocol: said plainly.
 */
async function returned(s: SimulatedSupplier, url: string | null, rid: string): Promise<string> {
  if (url === null) throw new Error(`simulated respondent ${rid} ended without an end link`);
  const marker = `&${s.signatureParameter}=`;
  const unsigned = url.slice(0, url.lastIndexOf(marker));
  if (url.lastIndexOf(marker) < 0 || (await signLink(s.secret, s, unsigned)) !== url) throw new Error(`simulated respondent ${rid} was sent to an end link not signed with the panel's secret: ${url}`);
  const u = new URL(unsigned);
  if (u.searchParams.get(s.entryParameter) !== rid) throw new Error(`simulated respondent ${rid} was sent back as ${u.searchParams.get(s.entryParameter)}`);
  return u.pathname.slice(1);
}

// ---- the fielding tick ----

/**
 * Runs the panel answers at once in a tick. Its people wait on the database more than they work (two
 * round trips a person), so runs side by side fill sooner on the same CPU; three keep within a test
 * database's pool of four connections.
 */
export const PANEL_RUNS_AT_ONCE = 3;

export interface TickResult {
  created: number;
  launched: number;
  simulated: number;
  processed: number;
  /** More simulated answers are due: the tick runs again soon. */
  more: boolean;
}

/**
 * The fielding engine's heartbeat (a pg-boss job, every minute and again while work remains): waves
 * that came due become runs and launch; the simulated panel answers live runs whose source is
 * simulated a batch at a time (so responses arrive live), each tick a field day of its reach in the
 * market at most (docs/decisions/0121), and asks for another tick only while a run has reach left;
 * closed runs are processed. With the panel off (SIMULATED_PANEL=off) it answers none.
 */
export async function tick(db: Db, publicUrl: string, opts: { batch?: number; panel?: boolean } = {}): Promise<TickResult> {
  const batchSize = opts.batch ?? 50;
  const panelOn = opts.panel ?? processConfig().simulatedPanel;
  // Field periods: runs past their field end close (processed below, the shortfall refunded); runs
  // with quota open and nothing arriving are marked stalled once.
  await closeRunsAtFieldEnd(db);
  await detectStalls(db);
  const created = await createSurveys(db, null);
  let launched = 0;
  for (const c of created) {
    await launchRun(db, c.surveyRunId, publicUrl);
    launched++;
  }
  const open = await system(
    db,
    (tx) => tx<{ id: number; status: number; source: q.SampleSource; processed: boolean }[]>`
    select id, survey_status_id as status, sample_source as source, processed_at is not null as processed
    from survey_runs where definition is not null and (survey_status_id = ${SURVEY_STATUS.Live} or (survey_status_id = ${SURVEY_STATUS.Closed} and processed_at is null))
    order by id`,
  );
  let simulated = 0;
  let processed = 0;
  let more = false;
  // The simulated panel answers the runs whose sample source is simulated only: never a customer
  // panel (people at the link) nor a run fed by a sample supplier (its signed respondents only;
  // issue 36); and none when it is off. Paced: a day of the panel's reach per tick; once the reach
  // is spent the run waits for its field end (or a person at its link), as a real run the panel
  // cannot fill. Runs are answered side by side (PANEL_RUNS_AT_ONCE; each run's people one after
  // another, as its seed orders them), then processed one by one in run order.
  const answered = open.filter((r) => r.status === SURVEY_STATUS.Live && r.source === "simulated" && panelOn);
  const results = new Map<number, SimulationResult>();
  let next = 0;
  const worker = async () => {
    while (next < answered.length) {
      const r = answered[next++]!;
      results.set(r.id, await simulate(db, r.id, batchSize, { paced: true, publicUrl, on: true }));
    }
  };
  await Promise.all(Array.from({ length: Math.min(PANEL_RUNS_AT_ONCE, answered.length) }, worker));
  for (const r of open) {
    const s = results.get(r.id);
    if (s) {
      simulated += s.completes;
      if (s.closed) {
        await processRun(db, r.id);
        processed++;
      } else if (s.reachLeft > 0) more = true;
    } else if (r.status === SURVEY_STATUS.Closed && !r.processed) {
      await processRun(db, r.id);
      processed++;
    }
  }
  return { created: created.length, launched, simulated, processed, more };
}
