// Project groups (SPEC 7): ProjectGroups CreateNewVersion, SyncSegmentSurveySessions,
// GenerateSegments, ProjectGroupSegmentCounts, Benchmarks, Templates; ProjectGroupSegments
// BulkUpdate; ProjectGroupVersions DeleteSegments; Responses WeightSumGroup and QualResultsGroup;
// TextResponses VerbatimGroup and VerbatimCountGroup; Projects CreateUsageAndAttitudeSeedProject.
// Shaping a group is staff's (SPEC 6: IdeallyAdmin creates and edits groups); reading one is the team's.
import { z, type RouteConfig } from "@hono/zod-openapi";
import type { App, AppDeps } from "../../app-types.ts";
import type { RequestCtx } from "../../access/principal.ts";
import { access, type Access } from "../../access/policy.ts";
import { addRoute, commonErrors, errors, keyOf, keyParams } from "../../openapi.ts";
import { ApiError } from "../../errors.ts";
import { parseFilters } from "../results/filters.ts";
import { Measure, VerbatimRow } from "../results/results.schemas.ts";
import { createProject } from "../projects/projects.service.ts";
import * as svc from "./groups.service.ts";
import { FiltersParam, int } from "../results/params.ts";

const Key = keyParams;
const ok = <T extends z.ZodType>(schema: T, description: string) => ({ 200: { description, content: { "application/json": { schema } } } });
const json = <T extends z.ZodType>(schema: T) => ({ body: { required: true, content: { "application/json": { schema } } } });
const CONFIDENCE = { "90": 90, "95": 95, "99": 99 } as const;
function ids(raw: string | undefined, name: string): number[] | null {
  if (!raw?.trim()) return null;
  const parts = raw.replace(/^\[|\]$/g, "").split(",").map((s) => s.trim()).filter(Boolean);
  if (!parts.every((x) => /^\d{1,9}$/.test(x))) throw new ApiError("BadRequest", `${name}: a list of ids, as [1,2] or 1,2`);
  return parts.map(Number);
}

const Definition = z
  .object({
    systemQuestionOptionIds: z.array(z.number().int()).max(200).optional(),
    answers: z.array(z.object({ questionText: z.string().max(2000), optionTexts: z.array(z.string().max(500)).max(100) })).max(20).optional(),
  })
  .openapi("ProjectGroupSegmentDefinition");
const Sync = z
  .object({
    projectGroupId: z.number().int(),
    projectGroupVersionId: z.number().int(),
    projects: z.number().int(),
    segments: z.array(z.object({ projectGroupSegmentId: z.number().int(), name: z.string(), sessions: z.number().int() })),
  })
  .openapi("SyncSegmentSurveySessionsResult");
const Version = z.object({ projectGroupId: z.number().int(), projectGroupVersionId: z.number().int(), versionNumber: z.number().int() }).openapi("CreateNewVersionResult");
const SegmentRow = z.object({ id: z.number().int(), name: z.string(), description: z.string().nullable(), color: z.string().nullable(), sortOrder: z.number().int(), isCategorySegment: z.boolean(), definition: z.unknown() });
const Counts = z
  .object({
    projectGroupId: z.number().int(),
    breakdownBy: z.number().int().nullable(),
    segments: z.array(z.object({ projectGroupSegmentId: z.number().int(), name: z.string(), rows: z.array(z.object({ breakdownOptionId: z.number().int().nullable(), count: z.number().int(), weight: z.number() })) })),
  })
  .openapi("ProjectGroupSegmentCounts");
const QualGroup = z
  .object({
    projectGroupId: z.number().int(),
    confidence: z.number().int(),
    projectIds: z.array(z.number().int()),
    measures: z.array(z.object({ standardQuestionId: z.number().int(), title: z.string(), group: Measure.describe("The group's figure (a QualResults measure, testOptionId null)"), projects: z.array(Measure.extend({ projectId: z.number().int() })).describe("Each project's figure (testOptionId null, projectId set)") })),
  })
  .openapi("QualResultsGroup");
const WeightGroup = z
  .object({
    projectGroupId: z.number().int(),
    count: z.number().int(),
    weight: z.number(),
    projects: z.array(z.object({ projectId: z.number().int(), count: z.number().int(), weight: z.number(), nEff: z.number(), deff: z.number() })),
  })
  .openapi("WeightSumGroup");
const VerbatimGroup = z
  .object({ projectGroupId: z.number().int(), questionId: z.number().int(), page: z.number().int(), pageSize: z.number().int(), value: z.array(VerbatimRow.extend({ projectId: z.number().int() })) })
  .openapi("VerbatimGroupPage");
const VerbatimGroupCount = z.object({ projectGroupId: z.number().int(), questionId: z.number().int(), count: z.number().int() }).openapi("VerbatimGroupCount");
const Templates = z
  .object({ value: z.array(z.object({ projectId: z.number().int(), projectName: z.string(), clientId: z.number().int(), projectGroupVersionId: z.number().int().nullable(), questions: z.number().int() })) })
  .openapi("ProjectGroupTemplates");
const GroupBenchmarks = z.object({ projectGroupId: z.number().int(), value: z.array(z.record(z.string(), z.unknown())) }).openapi("ProjectGroupBenchmarks");

/**
 * A group operation's route: the schema of its answer, the common errors, 404 and 409. The
 * handler goes beside it in addRoute, which types it by the route's schemas.
 */
const route = <M extends "get" | "post", Req extends RouteConfig["request"], T extends z.ZodType>(
  method: M,
  path: string,
  tag: string,
  operationId: string,
  a: Access,
  summary: string,
  description: string,
  request: Req,
  schema: T,
) => ({ access: a, method, path, tags: [tag], operationId, summary, description, request, responses: { ...ok(schema, summary), ...commonErrors, 404: errors[404], 409: errors[409] } });

export function registerGroupRoutes(app: App, deps: AppDeps): void {
  const db = deps.db;

  addRoute(app, route("get", "/api/v1/ProjectGroups/Templates", "ProjectGroups", "ProjectGroups_Templates", access.viewer, "Templates to start a project group from", "The client's usage-and-attitude seed projects (framework 3998).", {}, Templates), async (c) =>
    c.json({ value: await svc.templates(db, c.get("ctx")) }, 200),
  );
  addRoute(app, route("post", "/api/v1/ProjectGroups/{key}/CreateNewVersion", "ProjectGroups", "ProjectGroups_CreateNewVersion", access.staff, "Start a new version of a project group", "The next version, with the active version's questions and segments copied and the occasions, needs and usage-and-attitude questions (positions 10-12) its projects ask added, one per question text; it becomes the active one.", {
    params: Key("ProjectGroups"),
    body: { required: false, content: { "application/json": { schema: z.strictObject({ name: z.string().max(200).optional() }).openapi("CreateNewVersion") } } },
  }, Version), async (c) => {
    // The body is optional, and read as sent (absent or not JSON: no name).
    const body: { name?: string } = await c.req.json().catch(() => ({}));
    return c.json(await svc.createNewVersion(db, c.get("ctx"), keyOf(c), body.name ?? null), 200);
  });
  addRoute(app, route("post", "/api/v1/ProjectGroups/{key}/SyncSegmentSurveySessions", "ProjectGroups", "ProjectGroups_SyncSegmentSurveySessions", access.staff, "Assign respondents to the group's segments", "Every segment of the active version gets exactly the respondents its definition selects across the group's projects.", { params: Key("ProjectGroups") }, Sync), async (c) =>
    c.json(await svc.syncSegmentSessions(db, c.get("ctx"), keyOf(c)), 200),
  );
  addRoute(app, route("post", "/api/v1/ProjectGroups/{key}/GenerateSegments", "ProjectGroups", "ProjectGroups_GenerateSegments", access.staff, "Generate the group's segments", "One segment per option of each segmentation question (position 9) of the active version (else one per age group), replacing the generated ones and keeping those made by hand; then the respondents are assigned.", { params: Key("ProjectGroups") }, Sync), async (c) =>
    c.json(await svc.generateSegments(db, c.get("ctx"), keyOf(c)), 200),
  );
  addRoute(app, route("get", "/api/v1/ProjectGroups/{key}/ProjectGroupSegmentCounts", "ProjectGroups", "ProjectGroups_ProjectGroupSegmentCounts", access.viewer, "Respondents per segment", "Count and weight of the filtered respondents in each segment (splitByIds: only these), optionally broken down by a demographic question's options (breakdownBy: a system question id).", {
    params: Key("ProjectGroups"),
    query: z.object({ filters: FiltersParam, breakdownBy: int("breakdownBy", "A system question id").optional(), splitByIds: z.string().max(2000).optional().openapi({ param: { name: "splitByIds", in: "query" }, description: "Segment ids as [1,2]" }) }),
  }, Counts), async (c) => {
    const q = c.req.valid("query");
    return c.json(await svc.segmentCounts(db, c.get("ctx"), keyOf(c), parseFilters(q.filters), q.breakdownBy ? Number(q.breakdownBy) : null, ids(q.splitByIds, "splitByIds")), 200);
  });
  addRoute(app, route("get", "/api/v1/ProjectGroups/{key}/Benchmarks", "ProjectGroups", "ProjectGroups_Benchmarks", access.viewer, "The benchmarks a project group reads against", "The norms of the group's newest project (Projects Benchmarks).", {
    params: Key("ProjectGroups"),
    query: z.object({ regionIds: z.string().max(2000).optional().openapi({ param: { name: "regionIds", in: "query" }, description: "Regions as [1,2]" }) }),
  }, GroupBenchmarks), async (c) => c.json(await svc.groupBenchmarks(db, c.get("ctx"), keyOf(c), ids(c.req.valid("query").regionIds, "regionIds")), 200));
  addRoute(app, route("post", "/api/v1/ProjectGroupSegments/BulkUpdate", "ProjectGroupSegments", "ProjectGroupSegments_BulkUpdate", access.staff, "Change several segments at once", "Name, description, colour, order, category flag and definition of segments of one project group, in one transaction.", json(
    z.strictObject({
      segments: z
        .array(z.strictObject({ id: z.number().int(), name: z.string().min(1).max(200).optional(), description: z.string().max(2000).nullable().optional(), color: z.string().max(40).nullable().optional(), sortOrder: z.number().int().optional(), isCategorySegment: z.boolean().optional(), definition: Definition.optional() }))
        .min(1)
        .max(500),
    }).openapi("ProjectGroupSegmentsBulkUpdate"),
  ), z.object({ value: z.array(SegmentRow) }).openapi("ProjectGroupSegmentsBulkUpdateResult")), async (c) =>
    c.json({ value: await svc.bulkUpdateSegments(db, c.get("ctx"), c.req.valid("json").segments) }, 200),
  );
  addRoute(app, route("post", "/api/v1/ProjectGroupVersions/{key}/DeleteSegments", "ProjectGroupVersions", "ProjectGroupVersions_DeleteSegments", access.staff, "Delete a version's segments", "All the version's segments, or those listed, with their respondent assignments.", {
    params: Key("ProjectGroupVersions"),
    body: { required: false, content: { "application/json": { schema: z.strictObject({ ids: z.array(z.number().int()).max(1000).optional() }).openapi("DeleteSegments") } } },
  }, z.object({ projectGroupVersionId: z.number().int(), deleted: z.array(z.number().int()) }).openapi("DeleteSegmentsResult")), async (c) => {
    // The body is optional, and read as sent (absent or not JSON: every segment).
    const body: { ids?: number[] } = await c.req.json().catch(() => ({}));
    return c.json(await svc.deleteSegments(db, c.get("ctx"), keyOf(c), body.ids ?? null), 200);
  });
  addRoute(app, route("get", "/api/v1/Responses/WeightSumGroup", "Responses", "Responses_WeightSumGroup", access.viewer, "Respondents and weights across a project group", "WeightSum for each project of the group, and their totals.", {
    query: z.object({ projectGroupId: int("projectGroupId", "The project group"), filters: FiltersParam }),
  }, WeightGroup), async (c) => {
    const q = c.req.valid("query");
    return c.json(await svc.weightSumGroup(db, c.get("ctx"), Number(q.projectGroupId), parseFilters(q.filters)), 200);
  });
  addRoute(app, route("get", "/api/v1/Responses/QualResultsGroup", "Responses", "Responses_QualResultsGroup", access.viewer, "Top-2-box across a project group", "Weighted top-2-box per measure for the whole group and for each project (test options pooled), each project tested against the others.", {
    query: z.object({ projectGroupId: int("projectGroupId", "The project group"), filters: FiltersParam, confidence: z.enum(["90", "95", "99"]).optional().openapi({ param: { name: "confidence", in: "query" }, description: "Default 95" }) }),
  }, QualGroup), async (c) => {
    const q = c.req.valid("query");
    return c.json(await svc.qualResultsGroup(db, c.get("ctx"), Number(q.projectGroupId), parseFilters(q.filters), q.confidence ? CONFIDENCE[q.confidence] : 95), 200);
  });
  const vq = z.object({ projectGroupId: int("projectGroupId", "The project group"), questionId: int("questionId", "The open question (matched by its text in each project)"), filters: FiltersParam, page: int("page", "From 1").optional(), pageSize: int("pageSize", "Default 20, at most 200").optional() });
  addRoute(app, route("get", "/api/v1/TextResponses/VerbatimGroup", "TextResponses", "TextResponses_VerbatimGroup", access.viewer, "Open answers across a project group", "The group's projects' answers to the question, newest first, paged.", { query: vq }, VerbatimGroup), async (c) => {
    const q = c.req.valid("query");
    return c.json(await svc.verbatimGroup(db, c.get("ctx"), Number(q.projectGroupId), Number(q.questionId), parseFilters(q.filters), q.page ? Number(q.page) : undefined, q.pageSize ? Number(q.pageSize) : undefined), 200);
  });
  addRoute(app, route("get", "/api/v1/TextResponses/VerbatimCountGroup", "TextResponses", "TextResponses_VerbatimCountGroup", access.viewer, "How many open answers across a project group", "The count VerbatimGroup pages through.", { query: vq }, VerbatimGroupCount), async (c) => {
    const q = c.req.valid("query");
    return c.json(await svc.verbatimCountGroup(db, c.get("ctx"), Number(q.projectGroupId), Number(q.questionId), parseFilters(q.filters)), 200);
  });
  addRoute(app, route("post", "/api/v1/Projects/CreateUsageAndAttitudeSeedProject", "Projects", "Projects_CreateUsageAndAttitudeSeedProject", access.staff, "Create a usage-and-attitude seed project for a group", "A Draft project with framework 3998 (Usage and attitude seeding) in the group's active version, asking the version's questions; it is then authored, submitted and fielded like any project.", json(
    z.strictObject({ projectGroupId: z.number().int(), projectName: z.string().min(1).max(200), regionIds: z.array(z.number().int()).min(1).max(60).optional() }).openapi("CreateUsageAndAttitudeSeedProject"),
  ), z.object({ projectId: z.number().int(), projectGroupId: z.number().int(), projectGroupVersionId: z.number().int(), questions: z.number().int() }).openapi("CreateUsageAndAttitudeSeedProjectResult")), async (c) => {
    const b = c.req.valid("json");
    const created = async (ctx: RequestCtx) => (JSON.parse(await createProject(db, deps.registry, ctx, { projectName: b.projectName, projectTypeId: 3, frameworkId: 3998, regionIds: b.regionIds })) as { id: number }).id;
    return c.json(await svc.createSeedProject(db, c.get("ctx"), created, b.projectGroupId), 200);
  });
}
