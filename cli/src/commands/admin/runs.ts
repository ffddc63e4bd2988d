// `ideally admin runs list|close|extend`: the staff's hand on fielding. `list PROJECT` names a
// project's survey runs (the ids the others take) and where each one's respondents come from (its
// sample source: simulated, customer or supplier); `close RUN` ends a run now with the completes it
// has (SurveyRuns ForceCloseSurvey; processing then refunds the shortfall); `extend RUN --until WHEN`
// moves its field end (ExtendFieldPeriod { fieldEndAt }). The server allows these to provider staff
// only; anyone else gets one line saying so (exit 2), before any question is asked.
import type { Schemas } from "@ideally/contracts";
import { idArg } from "../../args.ts";
import { apiError, usageError } from "../../errors.ts";
import { printJson, summary, table } from "../../output.ts";
import { pageHint, pagingOf, slicePage, type PageOptions } from "../../paging.ts";
import { confirm, unattended } from "../../prompt.ts";
import { describeError, ok, signedIn, type Api, type GlobalOptions } from "../../session.ts";

type RunState = Schemas["SurveyRunState"];

/** A 403 is not the API failing: the account is not staff. Said plainly, with the account. */
function staffOnly(api: Api, what: string, r: { error?: unknown; response: Response }): never {
  if (r.response.status === 403) throw apiError(`${what}: survey runs are closed and extended by provider staff; ${api.session.email} is not staff`);
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
      params: { query: { $filter: `projectSchedules/any(s: s/projectId eq ${key})`, $select: "id,regionId,surveyStatusId,sampleSource,targetCompletes,launchedAt,closedAt", $expand: "region($select=regionName)", $orderby: "id", $top: 1000 } },
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
        rows.map((r) => [String(r!.id), r!.region?.regionName ?? String(r!.regionId), r!.sampleSource ?? "", `${r!.surveyStatusId} ${STATUS[r!.surveyStatusId ?? -1] ?? ""}`.trim(), r!.targetCompletes == null ? "" : String(r!.targetCompletes), (r!.launchedAt ?? "").slice(0, 10), (r!.closedAt ?? "").slice(0, 10)]),
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
