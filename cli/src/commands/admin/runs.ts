// `ideally admin runs list|close|extend|callbacks|allocations`: the staff's hand on fielding. `list PROJECT`
// names a project's survey runs (the ids the others take) and where each one's respondents come
// from (its sample source: simulated, customer or supplier); `close RUN` ends a run now with the
// completes it has (SurveyRuns ForceCloseSurvey; processing then refunds the shortfall);
// `extend RUN --until WHEN` moves its field end (ExtendFieldPeriod { fieldEndAt }); `callbacks RUN`
// lists a supplier run's server-to-server callbacks (SupplierCallbacks) and `--resend ID` sends a
// failed one again (SupplierCallbacks/{callbackId}/Resend; docs/suppliers.md); `allocations RUN`
// lists a supplier run's suppliers with their shares and caps and `--set ID=SHARE` replaces them
// (SampleAllocations, SetSampleAllocations; docs/decisions/0146). The server allows
// these to provider staff only; anyone else gets one line saying so (exit 2), before any question
// is asked.
import type { Schemas } from "@ideally/contracts";
import { idArg } from "../../args.ts";
import { apiError, usageError } from "../../errors.ts";
import { printJson, summary, table } from "../../output.ts";
import { pageHint, pagingOf, slicePage, type PageOptions } from "../../paging.ts";
import { confirm, unattended } from "../../prompt.ts";
import { describeError, ok, signedIn, type Api, type GlobalOptions } from "../../session.ts";

type RunState = Schemas["SurveyRunState"];
type Callback = Schemas["SupplierCallback"];

const RUNS_ARE_STAFFS = "survey runs are closed and extended by provider staff";

/** A 403 is not the API failing: the account is not staff. Said plainly, with the account. */
function staffOnly(api: Api, what: string, r: { error?: unknown; response: Response }, whose = RUNS_ARE_STAFFS): never {
  if (r.response.status === 403) throw apiError(`${what}: ${whose}; ${api.session.email} is not staff`);
  throw apiError(`${what}: ${describeError(r.error, r.response)}`);
}

/** Staff only, checked before a question is asked: MyPermissions says whether the account is staff. */
async function needStaff(api: Api, what: string): Promise<void> {
  const me = ok(await api.client.GET("/api/v1/Users/Me", {}), "reading the account");
  if (!me.isStaff) throw apiError(`${what}: survey runs are closed and extended by provider staff; ${api.session.email} is not staff`);
}

function show(r: RunState): string {
  return summary([
    ["run", `${r.id} (region ${r.regionId})`],
    ["sample", r.sampleSource],
    ["status", `${r.surveyStatusId} ${r.surveyStatus}`],
    ["state", r.fieldingState],
    ["field end", r.fieldEndAt ?? "–"],
    ...(r.closedAt ? ([["closed", `${r.closedAt}${r.closedReason ? ` (${r.closedReason})` : ""}`]] as [string, string][]) : []),
  ]);
}

export async function runRunsList(project: string, o: GlobalOptions & PageOptions): Promise<void> {
  const key = idArg(project);
  const paging = pagingOf(o, null);
  const api = signedIn(o, { tenant: false });
  const found = ok(
    await api.client.GET("/api/v1/SurveyRuns", {
      params: {
        query: {
          $filter: `projectSchedules/any(s: s/projectId eq ${key})`,
          $select: "id,regionId,surveyStatusId,sampleSource,targetCompletes,launchedAt,closedAt",
          $expand: "region($select=regionName)",
          $orderby: "id",
          $top: 1000,
        },
      },
    }),
    `listing project ${project}'s survey runs`,
  ).value;
  const { rows, total } = slicePage(paging, found);
  if (o.json) printJson(rows);
  else if (rows.length === 0) process.stdout.write(`Project ${project} has no survey runs (they are made when it is approved for fielding)\n`);
  else {
    const STATUS: Record<number, string> = { 0: "Draft", 10: "Testing", 50: "Live", 90: "Closed", 130: "Dev", 1000: "ErrorXml", 1010: "ErrorProcessing" };
    process.stdout.write(
      `${table(
        ["run", "region", "sample", "status", "target", "launched", "closed"],
        rows.map((r) => [
          String(r!.id),
          r!.region?.regionName ?? String(r!.regionId),
          r!.sampleSource ?? "",
          `${r!.surveyStatusId} ${STATUS[r!.surveyStatusId ?? -1] ?? ""}`.trim(),
          r!.targetCompletes == null ? "" : String(r!.targetCompletes),
          (r!.launchedAt ?? "").slice(0, 10),
          (r!.closedAt ?? "").slice(0, 10),
        ]),
      )}\n`,
    );
  }
  pageHint(paging, rows.length, total);
}

export async function runRunsClose(run: string, o: GlobalOptions & { yes?: boolean }): Promise<void> {
  const key = idArg(run, "survey run id");
  const what = `close survey run ${run}`;
  unattended(o, what);
  const api = signedIn(o, { tenant: false });
  await needStaff(api, what);
  await confirm(o, `Close survey run ${run} now with the completes it has (respondents still answering are removed)?`, what);
  const r = await api.client.POST("/api/v1/SurveyRuns({key})/ForceCloseSurvey", { params: { path: { key } } });
  if (!r.data) staffOnly(api, what, r);
  if (o.json) return printJson(r.data);
  process.stdout.write(`Survey run ${run} closed; processing follows within a minute and refunds the shortfall\n${show(r.data)}\n`);
}

/**
 * --until: an ISO 8601 date-time with its offset (2026-12-01T18:00:00Z), a date (the end of that
 * day, UTC) or +N days / +N hours from now (+3d, +12h).
 */
export function fieldEnd(until: string, now = Date.now()): string {
  const rel = /^\+(\d{1,3})([dh])$/.exec(until);
  if (rel) return new Date(now + Number(rel[1]) * (rel[2] === "d" ? 86_400_000 : 3_600_000)).toISOString();
  if (/^\d{4}-\d{2}-\d{2}$/.test(until)) {
    const d = new Date(`${until}T23:59:59Z`);
    if (!Number.isNaN(d.getTime()) && d.toISOString().slice(0, 10) === until) return d.toISOString();
  } else if (/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d+)?)?(Z|[+-]\d{2}:\d{2})$/.test(until) && !Number.isNaN(new Date(until).getTime())) {
    return new Date(until).toISOString();
  }
  throw usageError(`--until: expected a date (2026-12-01), a date-time with offset (2026-12-01T18:00:00Z) or +N days/hours (+3d, +12h), got '${until}'`);
}

export async function runRunsExtend(run: string, o: GlobalOptions & { until?: string }): Promise<void> {
  const key = idArg(run, "survey run id");
  if (!o.until) throw usageError("--until is required: the run's new field end");
  const fieldEndAt = fieldEnd(o.until);
  if (new Date(fieldEndAt).getTime() <= Date.now()) throw usageError(`--until: ${fieldEndAt} has passed; the field end must be in the future (\`admin runs close\` ends a run now)`);
  const what = `extend survey run ${run}`;
  const api = signedIn(o, { tenant: false });
  const r = await api.client.POST("/api/v1/SurveyRuns({key})/ExtendFieldPeriod", { params: { path: { key } }, body: { fieldEndAt } });
  if (!r.data) staffOnly(api, what, r);
  if (o.json) return printJson(r.data);
  process.stdout.write(`Survey run ${run} now closes at ${r.data.fieldEndAt}\n${show(r.data)}\n`);
}

const CALLBACKS_ARE_STAFFS = "supplier callbacks are read and sent again by provider staff";

/** The last answer a callback got: an HTTP status, or the network error, or none yet. */
function lastAnswer(c: Callback): string {
  const a = c.attempts.at(-1);
  if (!a) return "";
  return a.httpStatus !== null ? `HTTP ${a.httpStatus}` : (a.error ?? "").slice(0, 40);
}

/**
 * `admin runs callbacks RUN`: the run's supplier callbacks (SupplierCallbacks), one line each with
 * its state, series and attempts; `--resend ID` sends a failed (or backing-off) one again.
 */
export async function runRunsCallbacks(run: string, o: GlobalOptions & { resend?: string }): Promise<void> {
  const key = idArg(run, "survey run id");
  const callbackId = o.resend === undefined ? null : idArg(o.resend, "callback id (the id column of `ideally admin runs callbacks RUN`)");
  const api = signedIn(o, { tenant: false });
  if (callbackId !== null) {
    const what = `send callback ${callbackId} of survey run ${run} again`;
    const r = await api.client.POST("/api/v1/SurveyRuns({key})/SupplierCallbacks/{callbackId}/Resend", { params: { path: { key, callbackId } } });
    if (!r.data) staffOnly(api, what, r, CALLBACKS_ARE_STAFFS);
    if (o.json) return printJson(r.data);
    const c = r.data;
    process.stdout.write(
      `Callback ${c.id} (rid ${c.rid}, ${c.kind === "reversal" ? "reversal to " : ""}${c.outcome}) is pending again: series ${c.series}, sent now; its ${c.attempts.length} earlier attempts are kept\n`,
    );
    return;
  }
  const r = await api.client.GET("/api/v1/SurveyRuns({key})/SupplierCallbacks", { params: { path: { key } } });
  if (!r.data) staffOnly(api, `list survey run ${run}'s supplier callbacks`, r, CALLBACKS_ARE_STAFFS);
  const rows = r.data.value;
  if (o.json) return printJson(rows);
  if (rows.length === 0) {
    process.stdout.write(`Survey run ${run} has no supplier callbacks (its supplier has no callback URL, or no respondent has finished)\n`);
    return;
  }
  process.stdout.write(
    `${table(
      ["id", "rid", "kind", "outcome", "state", "series", "attempts", "last answer"],
      rows.map((c) => [String(c.id), c.rid, c.kind, c.outcome, c.state, String(c.series), String(c.attempts.length), lastAnswer(c)]),
    )}\n`,
  );
  const failed = rows.filter((c) => c.state === "failed");
  if (failed.length) process.stderr.write(`${failed.length} failed: send one again with \`ideally admin runs callbacks ${run} --resend ${failed[0]!.id}\`\n`);
}

type Allocation = Schemas["SampleAllocation"];

/** --set SUPPLIER=SHARE: a supplier's id and its percent of the run's completes (hundredths). */
export function allocationArg(v: string): { sampleSupplierId: number; share: number } {
  const m = /^(\d{1,9})=(\d{1,3}(?:\.\d{1,2})?)$/.exec(v);
  if (!m) throw usageError(`--set: expected SUPPLIER=SHARE (a supplier's id and its percent, e.g. 3=60 or 4=39.5), got '${v}'`);
  return { sampleSupplierId: Number(m[1]), share: Number(m[2]) };
}

/**
 * `admin runs allocations RUN [--set SUPPLIER=SHARE ...]`: a supplier run's suppliers with their
 * shares, caps and progress (SampleAllocations); `--set` (repeated, the first becomes the run's
 * supplier) replaces them (SetSampleAllocations; shares sum to 100; docs/decisions/0146).
 */
export async function runRunsAllocations(run: string, o: GlobalOptions & { set?: string[] }): Promise<void> {
  const key = idArg(run, "survey run id");
  const wanted = (o.set ?? []).map(allocationArg);
  const api = signedIn(o, { tenant: false });
  const ALLOCATIONS_ARE_STAFFS = "a run's suppliers are chosen by provider staff";
  let rows: Allocation[];
  if (wanted.length) {
    const r = await api.client.POST("/api/v1/SurveyRuns({key})/SetSampleAllocations", { params: { path: { key } }, body: { allocations: wanted } });
    if (!r.data) staffOnly(api, `set survey run ${run}'s allocations`, r, ALLOCATIONS_ARE_STAFFS);
    rows = r.data.value;
  } else {
    const r = await api.client.GET("/api/v1/SurveyRuns({key})/SampleAllocations", { params: { path: { key } } });
    if (!r.data) staffOnly(api, `list survey run ${run}'s allocations`, r, ALLOCATIONS_ARE_STAFFS);
    rows = r.data.value;
  }
  if (o.json) return printJson(rows);
  if (rows.length === 0) {
    process.stdout.write(`Survey run ${run} has no allocations: it takes its one supplier's respondents (if any) up to its quota\n`);
    return;
  }
  process.stdout.write(
    `${table(
      ["supplier", "name", "share", "cap", "completes", "answering"],
      rows.map((a) => [String(a.sampleSupplierId), a.supplierName, `${a.share}%`, String(a.cap), String(a.completes), String(a.inProgress)]),
    )}\n`,
  );
}
