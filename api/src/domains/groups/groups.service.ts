// Project groups (SPEC 2 {clientId}/groups/*, SPEC 7 ProjectGroups, ProjectGroupSegments,
// ProjectGroupVersions and the *Group results functions): several projects read together, with
// segments of their respondents (docs/decisions.md "Project groups").
//
// A group's projects are those on one of its versions (projects.project_group_version_id) or
// tagged into it (project_group_tags.project_id). Its active version holds its questions and its
// segments. A segment's definition selects respondents in every project of the group the same way:
//   { "systemQuestionOptionIds": [...] }   demographic options (OR within a question, AND across)
//   { "answers": [{ "questionText": "...", "optionTexts": ["..."] }] }   answers matched by text,
//                                            since each project has its own copy of a question
// SyncSegmentSurveySessions writes the matching sessions into project_group_segment_sessions, which
// the results filter's projectGroupSegmentIds reads.
import type { Db, Tx } from "../../db/client.ts";
import { enterTenant } from "../../access/policy.ts";
import type { RequestCtx } from "../../access/principal.ts";
import { ApiError } from "../../errors.ts";
import type { Confidence } from "@ideally/analytics/significance";
import { resolveFilter, sessionsSql, type ResponseFilter } from "../results/filters.ts";
import * as rq from "../results/results.sql.ts";
import { topTwoBoxes, weightSum, type Measure } from "../results/results.service.ts";
import { verbatim, verbatimCount } from "../results/verbatims.service.ts";
import { jsonParam } from "../../db/params.ts";

export interface SegmentDefinition {
  systemQuestionOptionIds?: number[];
  answers?: { questionText: string; optionTexts: string[] }[];
}

export interface Group {
  id: number;
  clientId: number;
  name: string;
  activeVersionId: number | null;
}

async function group(tx: Tx, id: number, lock = false): Promise<Group> {
  const [g] = await tx.unsafe<Group[]>(`select id, client_id as "clientId", name, active_version_id as "activeVersionId" from project_groups where id = $1 ${lock ? "for update" : ""}`, [id]);
  if (!g) throw new ApiError("NotFound", `No project group ${id}`);
  return g;
}

export async function groupProjects(tx: Tx, groupId: number): Promise<number[]> {
  const rows = await tx<{ id: number }[]>`
    select p.id from projects p
    where p.deleted_at is null and (
      p.project_group_version_id in (select id from project_group_versions where project_group_id = ${groupId})
      or exists (select 1 from project_group_tags t where t.project_group_id = ${groupId} and t.project_id = p.id))
    order by p.id`;
  return rows.map((r) => r.id);
}

async function activeVersion(tx: Tx, g: Group): Promise<number> {
  if (g.activeVersionId) return g.activeVersionId;
  const [v] = await tx<{ id: number }[]>`select id from project_group_versions where project_group_id = ${g.id} order by version_number desc limit 1`;
  if (!v) throw new ApiError("Conflict", `Project group ${g.id} has no version: call CreateNewVersion first`);
  return v.id;
}

// ---- versions ----

/** SPEC's question positions asked of a group as a whole: 10 Occasions, 11 Needs, 12 UsageAndAttitude. */
const GROUP_POSITIONS = [10, 11, 12];

/**
 * CreateNewVersion: the next version, made active, with the active version's questions and
 * segments copied and the group-level questions its projects ask added.
 */
export async function createNewVersion(db: Db, ctx: RequestCtx, groupId: number, name: string | null) {
  return enterTenant(db, ctx, async (tx) => {
    const g = await group(tx, groupId, true);
    const [{ next }] = await tx<{ next: number }[]>`select coalesce(max(version_number), 0) + 1 as next from project_group_versions where project_group_id = ${g.id}`;
    const [v] = await tx<{ id: number }[]>`
      insert into project_group_versions (client_id, project_group_id, version_number, name) values (${g.clientId}, ${g.id}, ${next}, ${name}) returning id`;
    if (g.activeVersionId) {
      await tx`
        insert into project_group_questions (client_id, project_group_id, project_group_version_id, question_id, question_position_id, title, sort_order, is_hidden)
        select client_id, project_group_id, ${v!.id}, question_id, question_position_id, title, sort_order, is_hidden
        from project_group_questions where project_group_version_id = ${g.activeVersionId}`;
      await tx`
        insert into project_group_segments (client_id, project_group_version_id, name, description, is_category_segment, definition, color, sort_order)
        select client_id, ${v!.id}, name, description, is_category_segment, definition, color, sort_order
        from project_group_segments where project_group_version_id = ${g.activeVersionId}`;
    }
    // The group-level questions (occasions, needs, usage and attitude) its projects ask and the
    // version does not have yet, one per question text (the group pages pool a text across the
    // projects), after the copied ones; without this a first version had no questions at all and
    // the group's occasions, needs and U&A pages stayed empty whatever the projects asked.
    const projectIds = await groupProjects(tx, g.id);
    await tx`
      insert into project_group_questions (client_id, project_group_id, project_group_version_id, question_id, question_position_id, title, sort_order, is_hidden)
      select ${g.clientId}, ${g.id}, ${v!.id}, n.question_id, n.question_position_id, n.question_text,
             coalesce((select max(sort_order) from project_group_questions where project_group_version_id = ${v!.id}), 0) + row_number() over (order by n.question_position_id, n.first_seen),
             false
      from (
        select distinct on (q.question_text, q.question_type_id) q.id as question_id, pq.question_position_id, q.question_text, pq.project_id * 100000 + pq.sort_order as first_seen
        from project_questions pq join questions q on q.id = pq.question_id
        where pq.project_id = any(${projectIds}::int[]) and pq.deleted_at is null and pq.question_position_id = any(${GROUP_POSITIONS}::int[])
        order by q.question_text, q.question_type_id, pq.project_id, pq.sort_order
      ) n
      where not exists (
        select 1 from project_group_questions e join questions eq on eq.id = e.question_id
        where e.project_group_version_id = ${v!.id} and eq.question_text = n.question_text)`;
    await tx`update project_groups set active_version_id = ${v!.id}, updated_at = now() where id = ${g.id}`;
    return { projectGroupId: g.id, projectGroupVersionId: v!.id, versionNumber: next };
  });
}

// ---- segments ----

function parseDefinition(raw: unknown): SegmentDefinition {
  const d = (raw ?? {}) as SegmentDefinition;
  return {
    systemQuestionOptionIds: Array.isArray(d.systemQuestionOptionIds) ? d.systemQuestionOptionIds.filter((x) => Number.isInteger(x)) : [],
    answers: Array.isArray(d.answers) ? d.answers.filter((a) => typeof a?.questionText === "string" && Array.isArray(a.optionTexts)) : [],
  };
}

async function matchSessions(tx: Tx, projectIds: number[], d: SegmentDefinition): Promise<number[]> {
  if (!d.systemQuestionOptionIds?.length && !d.answers?.length) return [];
  const groups = new Map<number, number[]>();
  if (d.systemQuestionOptionIds?.length) {
    for (const r of await tx<{ id: number; g: number }[]>`select id, system_question_id as g from system_question_option where id = any(${d.systemQuestionOptionIds}::int[])`) {
      (groups.get(r.g) ?? groups.set(r.g, []).get(r.g)!).push(r.id);
    }
  }
  const conds = [
    ...[...groups.values()].map(
      (ids) => tx`and exists (select 1 from responses r where r.project_id = p.project_id and r.survey_session_id = p.survey_session_id and r.system_question_option_id = any(${ids}::int[]))`,
    ),
    ...(d.answers ?? []).map(
      (a) => tx`and exists (select 1 from responses r join questions q on q.id = r.question_id join question_options o on o.id = r.question_option_id
                            where r.project_id = p.project_id and r.survey_session_id = p.survey_session_id
                              and q.question_text = ${a.questionText} and o.option_text = any(${a.optionTexts}::text[]))`,
    ),
  ];
  const rows = await tx<{ sid: number }[]>`
    select distinct p.survey_session_id as sid from project_survey_sessions p
    where p.project_id = any(${projectIds}::int[]) and p.status = 'Complete' ${conds.reduce((x, y) => tx`${x} ${y}`)}`;
  return rows.map((r) => r.sid);
}

/** SyncSegmentSurveySessions: every segment of the active version gets exactly its matching sessions. */
export async function syncSegmentSessions(db: Db, ctx: RequestCtx, groupId: number) {
  return enterTenant(db, ctx, async (tx) => {
    const g = await group(tx, groupId, true);
    const version = await activeVersion(tx, g);
    const projects = await groupProjects(tx, g.id);
    const segments = await tx<{ id: number; name: string; definition: unknown }[]>`
      select id, name, definition from project_group_segments where project_group_version_id = ${version} order by sort_order, id`;
    const out: { projectGroupSegmentId: number; name: string; sessions: number }[] = [];
    for (const s of segments) {
      const sids = projects.length ? await matchSessions(tx, projects, parseDefinition(s.definition)) : [];
      await tx`delete from project_group_segment_sessions where project_group_segment_id = ${s.id}`;
      if (sids.length) {
        await tx`
          insert into project_group_segment_sessions (client_id, project_group_segment_id, survey_session_id)
          select ss.client_id, ${s.id}, ss.id from survey_sessions ss where ss.id = any(${sids}::int[])`;
      }
      out.push({ projectGroupSegmentId: s.id, name: s.name, sessions: sids.length });
    }
    return { projectGroupId: g.id, projectGroupVersionId: version, projects: projects.length, segments: out };
  });
}

/**
 * GenerateSegments: one segment per option of each of the active version's segmentation questions
 * (position 9, Segment), defined by the answer's text so it selects in every project of the group;
 * without such questions, one segment per age group. Replaces the generated segments, keeps the
 * ones people made, then syncs the sessions.
 */
export async function generateSegments(db: Db, ctx: RequestCtx, groupId: number) {
  await enterTenant(db, ctx, async (tx) => {
    const g = await group(tx, groupId, true);
    const version = await activeVersion(tx, g);
    const questions = await tx<{ text: string; options: string[] }[]>`
      select q.question_text as text, coalesce(array_agg(o.option_text order by o.sort_order, o.id) filter (where o.id is not null), '{}') as options
      from project_group_questions gq join questions q on q.id = gq.question_id left join question_options o on o.question_id = q.id
      where gq.project_group_version_id = ${version} and gq.question_position_id = 9 and not gq.is_hidden
      group by q.id, q.question_text, gq.sort_order order by gq.sort_order`;
    await tx`delete from project_group_segments where project_group_version_id = ${version} and definition ? 'generated'`;
    let order = 0;
    const insert = async (name: string, definition: object) => {
      await tx`insert into project_group_segments (client_id, project_group_version_id, name, definition, sort_order)
               values (${g.clientId}, ${version}, ${name.slice(0, 200)}, ${jsonParam(tx, { ...definition, generated: true })}, ${++order})`;
    };
    if (questions.length) {
      for (const q of questions) for (const o of q.options) await insert(o, { answers: [{ questionText: q.text, optionTexts: [o] }] });
    } else {
      const ages = await tx<{ id: number; label: string }[]>`select id, answer_label as label from system_question_option where system_question_id = 51 order by sort_order, id`;
      for (const a of ages) await insert(`Age ${a.label}`, { systemQuestionOptionIds: [a.id] });
    }
  });
  return syncSegmentSessions(db, ctx, groupId);
}

export interface SegmentPatch {
  id: number;
  name?: string;
  description?: string | null;
  color?: string | null;
  sortOrder?: number;
  isCategorySegment?: boolean;
  definition?: SegmentDefinition;
}

/** ProjectGroupSegments BulkUpdate: many segments of one group changed in one transaction. */
export async function bulkUpdateSegments(db: Db, ctx: RequestCtx, patches: SegmentPatch[]) {
  return enterTenant(db, ctx, async (tx) => {
    const ids = patches.map((p) => p.id);
    const found = await tx<{ id: number; groupId: number }[]>`
      select s.id, v.project_group_id as "groupId" from project_group_segments s join project_group_versions v on v.id = s.project_group_version_id
      where s.id = any(${ids}::int[])`;
    const missing = ids.filter((id) => !found.some((f) => f.id === id));
    if (missing.length) throw new ApiError("NotFound", `No project group segment ${missing.join(", ")}`);
    if (new Set(found.map((f) => f.groupId)).size > 1) throw new ApiError("BadRequest", "BulkUpdate changes the segments of one project group at a time");
    for (const p of patches) {
      await tx`
        update project_group_segments set
          name = coalesce(${p.name ?? null}, name),
          description = case when ${p.description !== undefined} then ${p.description ?? null} else description end,
          color = case when ${p.color !== undefined} then ${p.color ?? null} else color end,
          sort_order = coalesce(${p.sortOrder ?? null}, sort_order),
          is_category_segment = coalesce(${p.isCategorySegment ?? null}, is_category_segment),
          definition = case when ${p.definition !== undefined} then ${jsonParam(tx, p.definition ?? {})} else definition end,
          updated_at = now()
        where id = ${p.id}`;
    }
    return tx<{ id: number; name: string; description: string | null; color: string | null; sortOrder: number; isCategorySegment: boolean; definition: unknown }[]>`
      select id, name, description, color, sort_order as "sortOrder", is_category_segment as "isCategorySegment", definition
      from project_group_segments where id = any(${ids}::int[]) order by sort_order, id`;
  });
}

/** ProjectGroupVersions DeleteSegments: the version's segments (all, or those listed) and their sessions go. */
export async function deleteSegments(db: Db, ctx: RequestCtx, versionId: number, ids: number[] | null) {
  return enterTenant(db, ctx, async (tx) => {
    const [v] = await tx`select 1 from project_group_versions where id = ${versionId}`;
    if (!v) throw new ApiError("NotFound", `No project group version ${versionId}`);
    const gone = await tx<{ id: number }[]>`
      delete from project_group_segments where project_group_version_id = ${versionId} ${ids ? tx`and id = any(${ids}::int[])` : tx``} returning id`;
    return { projectGroupVersionId: versionId, deleted: gone.map((r) => r.id) };
  });
}

// ---- counts and results across the group ----

/** ProjectGroupSegmentCounts: respondents (and weight) per segment, optionally per demographic option. */
export async function segmentCounts(db: Db, ctx: RequestCtx, groupId: number, filters: ResponseFilter, breakdownBy: number | null, splitByIds: number[] | null) {
  return enterTenant(db, ctx, async (tx) => {
    const g = await group(tx, groupId);
    const version = await activeVersion(tx, g);
    const projects = await groupProjects(tx, g.id);
    const segments = await tx<{ id: number; name: string }[]>`
      select id, name from project_group_segments where project_group_version_id = ${version}
      ${splitByIds ? tx`and id = any(${splitByIds}::int[])` : tx``} order by sort_order, id`;
    const rows: { projectGroupSegmentId: number; breakdownOptionId: number | null; count: number; weight: number }[] = [];
    for (const pid of projects) {
      const f = await resolveFilter(tx, filters);
      const part = await tx<{ seg: number; opt: number | null; count: number; weight: number }[]>`
        with s as (${sessionsSql(tx, pid, f)})
        select gs.project_group_segment_id as seg, ${breakdownBy ? tx`r.system_question_option_id` : tx`null::int`} as opt, count(*)::int as count, sum(s.w)::float8 as weight
        from s join project_group_segment_sessions gs on gs.survey_session_id = s.sid
        ${breakdownBy ? tx`join responses r on r.project_id = ${pid} and r.survey_session_id = s.sid and r.system_question_id = ${breakdownBy}` : tx``}
        where gs.project_group_segment_id = any(${segments.map((x) => x.id)}::int[])
        group by 1, 2`;
      for (const r of part) {
        const row = rows.find((x) => x.projectGroupSegmentId === r.seg && x.breakdownOptionId === r.opt);
        if (row) {
          row.count += r.count;
          row.weight += r.weight;
        } else rows.push({ projectGroupSegmentId: r.seg, breakdownOptionId: r.opt, count: r.count, weight: r.weight });
      }
    }
    return {
      projectGroupId: g.id,
      breakdownBy,
      segments: segments.map((s) => ({
        projectGroupSegmentId: s.id,
        name: s.name,
        rows: rows.filter((r) => r.projectGroupSegmentId === s.id).map(({ breakdownOptionId, count, weight }) => ({ breakdownOptionId, count, weight })),
      })),
    };
  });
}

async function projectsOf(db: Db, ctx: RequestCtx, groupId: number): Promise<number[]> {
  return enterTenant(db, ctx, async (tx) => {
    await group(tx, groupId);
    return groupProjects(tx, groupId);
  });
}

export async function weightSumGroup(db: Db, ctx: RequestCtx, groupId: number, filters: ResponseFilter) {
  const ids = await projectsOf(db, ctx, groupId);
  const per = [];
  for (const id of ids) per.push(await weightSum(db, ctx, id, filters));
  const count = per.reduce((a, r) => a + r.count, 0);
  const weight = per.reduce((a, r) => a + r.weight, 0);
  return { projectGroupId: groupId, count, weight, projects: per.map((r) => ({ projectId: r.projectId, count: r.count, weight: r.weight, nEff: r.nEff, deff: r.deff })) };
}

/** QualResultsGroup: top-2-box per measure for each project of the group (test options pooled) and for the group. */
export async function qualResultsGroup(db: Db, ctx: RequestCtx, groupId: number, filters: ResponseFilter, confidence: Confidence = 95) {
  const ids = await projectsOf(db, ctx, groupId);
  return enterTenant(db, ctx, async (tx) => {
    const f = await resolveFilter(tx, filters);
    const pooled: rq.ScaleRow[] = [];
    const perProject: rq.ScaleRow[] = [];
    for (const id of ids) {
      for (const r of await rq.scaleAnswers(tx, id, f, null)) {
        // testOptionId carries the project here: each project's options pooled into one figure.
        perProject.push({ ...r, testOptionId: id });
        pooled.push({ ...r, testOptionId: null });
      }
    }
    const merge = (rows: rq.ScaleRow[]) => {
      const m = new Map<string, rq.ScaleRow>();
      for (const r of rows) {
        const k = `${r.standardQuestionId}:${r.testOptionId}:${r.value}`;
        const x = m.get(k);
        if (x) {
          x.n += r.n;
          x.sumW += r.sumW;
          x.sumW2 += r.sumW2;
        } else m.set(k, { ...r });
      }
      return [...m.values()];
    };
    const byProject = topTwoBoxes(merge(perProject), confidence, null);
    const all = topTwoBoxes(merge(pooled), confidence, null);
    const titles = await rq.standardQuestions(tx, null);
    // testOptionId carries the project here (perProject above), so it is never null.
    const rename = (m: Measure) => ({ ...m, projectId: m.testOptionId!, testOptionId: null, vsOthers: m.vsOthers.map((o) => ({ ...o, projectId: o.testOptionId, testOptionId: null })) });
    return {
      projectGroupId: groupId,
      confidence,
      projectIds: ids,
      measures: titles.filter((t) => all.has(t.id)).map((t) => ({ standardQuestionId: t.id, title: t.title, group: all.get(t.id)![0]!, projects: byProject.get(t.id)!.map(rename) })),
    };
  });
}

/** The open question's twin in each project of the group (matched by its text). */
async function verbatimTargets(db: Db, ctx: RequestCtx, groupId: number, questionId: number) {
  return enterTenant(db, ctx, async (tx) => {
    await group(tx, groupId);
    const ids = await groupProjects(tx, groupId);
    const [q] = await tx<{ text: string }[]>`select question_text as text from questions where id = ${questionId}`;
    if (!q) throw new ApiError("NotFound", `No question ${questionId}`);
    return tx<{ projectId: number; projectQuestionId: number }[]>`
      select pq.project_id as "projectId", pq.id as "projectQuestionId" from project_questions pq join questions q on q.id = pq.question_id
      where pq.project_id = any(${ids}::int[]) and q.question_text = ${q.text} and q.question_type_id = 3 and pq.deleted_at is null order by pq.project_id, pq.id`;
  });
}

/** TextResponses VerbatimCountGroup: how many answers VerbatimGroup pages through. */
export async function verbatimCountGroup(db: Db, ctx: RequestCtx, groupId: number, questionId: number, filters: ResponseFilter) {
  const targets = await verbatimTargets(db, ctx, groupId, questionId);
  let count = 0;
  for (const t of targets) count += (await verbatimCount(db, ctx, { ...t, filters })).count;
  return { projectGroupId: groupId, questionId, count };
}

/** The group's open answers to a question (matched by its text in each project), newest first. */
export async function verbatimGroup(db: Db, ctx: RequestCtx, groupId: number, questionId: number, filters: ResponseFilter, page?: number, pageSize?: number) {
  const targets = await verbatimTargets(db, ctx, groupId, questionId);
  // Each project's newest answers, merged newest first, then paged.
  const size = pageSize ?? 20;
  const p = page ?? 1;
  const all = [];
  for (const t of targets) {
    const r = await verbatim(db, ctx, { ...t, filters, page: 1, pageSize: Math.min(200, p * size) });
    all.push(...r.value.map((v) => ({ ...v, projectId: t.projectId })));
  }
  all.sort((a, b) => (a.createdAt < b.createdAt ? 1 : a.createdAt > b.createdAt ? -1 : b.id - a.id));
  return { projectGroupId: groupId, questionId, page: p, pageSize: size, value: all.slice((p - 1) * size, p * size) };
}

/** ProjectGroups Templates: the client's usage-and-attitude seed projects (framework 3998), to start a group from. */
export async function templates(db: Db, ctx: RequestCtx) {
  return enterTenant(
    db,
    ctx,
    (tx) => tx<{ projectId: number; projectName: string; clientId: number; projectGroupVersionId: number | null; questions: number }[]>`
    select p.id as "projectId", p.project_name as "projectName", p.client_id as "clientId", p.project_group_version_id as "projectGroupVersionId",
           (select count(*)::int from project_questions pq where pq.project_id = p.id and pq.deleted_at is null) as questions
    from projects p where p.framework_id = 3998 and p.deleted_at is null order by p.id desc`,
  );
}

/** ProjectGroups Benchmarks: the norms of the group's newest project (every type but its own group's tests). */
export async function groupBenchmarks(db: Db, ctx: RequestCtx, groupId: number, regionIds: number[] | null) {
  const ids = await projectsOf(db, ctx, groupId);
  if (!ids.length) throw new ApiError("Conflict", `Project group ${groupId} has no projects yet`);
  const { benchmarks } = await import("../results/results.service.ts");
  const r = await benchmarks(db, ctx, ids[ids.length - 1]!, regionIds);
  return { projectGroupId: groupId, value: r.value };
}

/**
 * CreateUsageAndAttitudeSeedProject (staff): a usage-and-attitude seeding project (framework 3998)
 * in the group's active version, asking the version's questions; it then runs like any project.
 */
export async function createSeedProject(
  db: Db,
  ctx: RequestCtx,
  create: (ctx: RequestCtx) => Promise<number>,
  groupId: number,
): Promise<{ projectId: number; projectGroupId: number; projectGroupVersionId: number; questions: number }> {
  const g = await enterTenant(db, ctx, async (tx) => {
    const g = await group(tx, groupId);
    return { ...g, version: await activeVersion(tx, g) };
  });
  const projectId = await create({ ...ctx, clientId: g.clientId });
  return enterTenant(db, { ...ctx, clientId: g.clientId }, async (tx) => {
    await tx`update projects set project_group_version_id = ${g.version}, updated_at = now() where id = ${projectId}`;
    const added = await tx`
      insert into project_questions (client_id, project_id, question_id, question_position_id, sort_order)
      select ${g.clientId}, ${projectId}, gq.question_id, gq.question_position_id, gq.sort_order
      from project_group_questions gq where gq.project_group_version_id = ${g.version} and not gq.is_hidden order by gq.sort_order, gq.id`;
    return { projectId, projectGroupId: g.id, projectGroupVersionId: g.version, questions: added.count };
  });
}
