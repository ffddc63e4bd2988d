// The response filter object of SPEC 3, applied the same way by every results function: it picks
// the project's complete respondents (project survey sessions) the figures are computed over.
//
//   filterIds                  system question options (demographics): within one system question
//                              any chosen option qualifies (OR); across questions all must (AND)
//   questionOptionsIds         answers to the project's questions, OR within a question, AND across
//   excludeQuestionOptionsIds  respondents who chose any of these are left out
//   regionIds, surveyIds       the respondent's region / survey run (wave)
//   testOptionIds              respondents who saw one of these test options (and, in per-option
//                              figures, only those options)
//   projectGroupSegmentIds     respondents in one of these project group segments
//   panelType                  "Customer" or "Ideally" (or true / false for isCustomerPanel)
//   dateFrom, dateTo           completion from the start of dateFrom's day to the end of dateTo's
//                              (UTC), whatever time of day the ISO strings carry
import { z } from "@hono/zod-openapi";
import type { Tx } from "../../db/client.ts";
import { ApiError } from "../../errors.ts";

const ids = z.array(z.number().int()).max(1000);

export const ResponseFilterSchema = z
  .object({
    filterIds: ids.optional(),
    questionOptionsIds: ids.optional(),
    excludeQuestionOptionsIds: ids.optional(),
    regionIds: ids.optional(),
    projectGroupSegmentIds: ids.optional(),
    testOptionIds: ids.optional(),
    surveyIds: ids.optional(),
    panelType: z
      .union([z.enum(["Customer", "Ideally"]), z.boolean()])
      .nullable()
      .optional(),
    dateFrom: z.string().nullable().optional(),
    dateTo: z.string().nullable().optional(),
  })
  .openapi("ResponseFilter");

export type ResponseFilter = z.infer<typeof ResponseFilterSchema>;

/** The `filters` query parameter: the filter object as JSON (empty or absent: no filter). */
export function parseFilters(raw: string | undefined | null): ResponseFilter {
  if (raw === undefined || raw === null || raw.trim() === "") return {};
  let json: unknown;
  try {
    json = JSON.parse(raw);
  } catch {
    throw new ApiError("BadRequest", "filters: not valid JSON");
  }
  const r = ResponseFilterSchema.safeParse(json);
  if (!r.success) {
    const errors = r.error.issues.map((i) => ({ path: ["filters", ...i.path].join("."), message: i.message }));
    throw new ApiError("ValidationError", `Invalid filters: ${errors.map((e) => `${e.path} ${e.message}`).join("; ")}`, undefined, errors);
  }
  return r.data;
}

function day(value: string, path: string): string {
  const m = /^(\d{4}-\d{2}-\d{2})/.exec(value);
  if (!m || Number.isNaN(Date.parse(`${m[1]}T00:00:00Z`))) throw new ApiError("ValidationError", `filters.${path}: an ISO date`, undefined, [{ path: `filters.${path}`, message: "an ISO date" }]);
  return m[1]!;
}

/** The filter resolved against the database: option groups per question, days, panel. */
export interface ResolvedFilter {
  systemGroups: number[][];
  questionGroups: number[][];
  exclude: number[];
  regionIds: number[] | null;
  surveyIds: number[] | null;
  testOptionIds: number[] | null;
  segmentIds: number[] | null;
  customerPanel: boolean | null;
  from: string | null;
  to: string | null;
}

const some = (a: number[] | undefined) => (a?.length ? [...new Set(a)] : null);

export async function resolveFilter(tx: Tx, f: ResponseFilter): Promise<ResolvedFilter> {
  const group = (rows: { id: number; g: number }[]) => {
    const m = new Map<number, number[]>();
    for (const r of rows) (m.get(r.g) ?? m.set(r.g, []).get(r.g)!).push(r.id);
    return [...m.values()];
  };
  const sys = some(f.filterIds);
  const qo = some(f.questionOptionsIds);
  // Both lookups at once: a caller's transaction pipelines them.
  const [sysRows, qoRows] = await Promise.all([
    sys ? tx<{ id: number; g: number }[]>`select id, system_question_id as g from system_question_option where id = any(${sys}::int[])` : [],
    qo ? tx<{ id: number; g: number }[]>`select id, question_id as g from question_options where id = any(${qo}::int[])` : [],
  ]);
  const systemGroups = group(sysRows);
  if (sys && systemGroups.flat().length !== sys.length) throw new ApiError("ValidationError", "filters.filterIds: an id is not a system question option");
  const questionGroups = group(qoRows);
  const panel = f.panelType === undefined || f.panelType === null ? null : typeof f.panelType === "boolean" ? f.panelType : f.panelType === "Customer";
  const from = f.dateFrom ? day(f.dateFrom, "dateFrom") : null;
  const to = f.dateTo ? day(f.dateTo, "dateTo") : null;
  if (from && to && from > to) throw new ApiError("ValidationError", "filters.dateFrom: must not be after dateTo");
  return {
    systemGroups,
    questionGroups,
    exclude: some(f.excludeQuestionOptionsIds) ?? [],
    regionIds: some(f.regionIds),
    surveyIds: some(f.surveyIds),
    testOptionIds: some(f.testOptionIds),
    segmentIds: some(f.projectGroupSegmentIds),
    customerPanel: panel,
    from,
    to,
  };
}

/**
 * The filtered respondents of a project as a SQL fragment: a select of
 * (sid: survey session id, pss: project survey session id, w: weight, region_id, week,
 * survey_run_id, is_customer_panel, completed_at). Every value is a parameter.
 */
export function sessionsSql(tx: Tx, projectId: number, f: ResolvedFilter) {
  const has = (cond: ReturnType<Tx>) => tx`and exists (select 1 from responses r where r.project_id = ${projectId} and r.survey_session_id = p.survey_session_id and ${cond})`;
  const parts = [
    f.regionIds ? tx`and p.region_id = any(${f.regionIds}::int[])` : tx``,
    f.surveyIds ? tx`and p.survey_run_id = any(${f.surveyIds}::int[])` : tx``,
    f.customerPanel === null ? tx`` : tx`and p.is_customer_panel = ${f.customerPanel}`,
    f.from ? tx`and p.completed_at >= ${f.from}::date` : tx``,
    f.to ? tx`and p.completed_at < ${f.to}::date + 1` : tx``,
    ...f.systemGroups.map((g) => has(tx`r.system_question_option_id = any(${g}::int[])`)),
    ...f.questionGroups.map((g) => has(tx`r.question_option_id = any(${g}::int[])`)),
    f.exclude.length
      ? tx`and not exists (select 1 from responses r where r.project_id = ${projectId} and r.survey_session_id = p.survey_session_id and r.question_option_id = any(${f.exclude}::int[]))`
      : tx``,
    f.testOptionIds ? has(tx`r.test_option_id = any(${f.testOptionIds}::int[])`) : tx``,
    f.segmentIds ? tx`and exists (select 1 from project_group_segment_sessions g where g.survey_session_id = p.survey_session_id and g.project_group_segment_id = any(${f.segmentIds}::int[]))` : tx``,
  ];
  return tx`
    select p.survey_session_id as sid, p.id as pss, p.weight as w, p.region_id, p.week, p.survey_run_id, p.is_customer_panel, p.completed_at
    from project_survey_sessions p
    where p.project_id = ${projectId} and p.status = 'Complete' ${parts.reduce((a, b) => tx`${a} ${b}`)}`;
}

/** Rows restricted to the filter's test options (per-option figures). */
export function testOptionSql(tx: Tx, f: ResolvedFilter, column: string) {
  // `column` is a constant of the caller (a column name), never input.
  return f.testOptionIds ? tx`and ${tx.unsafe(column)} = any(${f.testOptionIds}::int[])` : tx``;
}
