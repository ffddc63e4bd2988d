// Project authoring: creating a project (with its framework's standard questions, default
// objective and regions), its regions and targets, and its objectives. Services take the
// database, the request context and the validated input; every write runs in the caller's tenant
// transaction (enterTenant) and checks the project is the caller's own and still a draft.
import type { Db, Tx } from "../../db/client.ts";
import { enterTenant } from "../../access/policy.ts";
import type { RequestCtx } from "../../access/principal.ts";
import type { Registry } from "../../entities/registry.ts";
import { ApiError, type FieldError } from "../../errors.ts";
import { assertEditable, dbError, projectForWrite, readEntities, readEntity, unique } from "./common.ts";
import * as q from "./projects.sql.ts";
import type { Queue } from "../../jobs/queue.ts";
import { queueObjectiveSummaries } from "../ai/summaries.service.ts";
import { assertQuotasCanBeMet } from "../fielding/quotas.ts";
import { checkCrossedInput, replaceCrossedCells, type CrossedInput } from "../fielding/crossed.ts";

/** SPEC 9: the objective every project starts with, and the one DELETE restores. */
export const DEFAULT_OBJECTIVE = "Summarize the overall performance and highlight any significant audience skews in the results.";
/** SPEC 9: the default region (New Zealand). */
export const DEFAULT_REGION_ID = 1;
/** Standard questions are asked at position 5 (Standard, the Framework display group). */
export const STANDARD_POSITION = 5;
/** SPEC 9: the US state markets, behind the CanChooseUsStateMarkets flag. */
export const US_STATE_IDS = { min: 56, max: 104 } as const;
export const US_STATES_FLAG = "CanChooseUsStateMarkets";

/**
 * Which frameworks a project type may use (docs/decisions.md "Project authoring"): the framework's
 * thousand is its type. 3998 (usage and attitude seeding) is made by the project groups' seeding
 * action, so only staff create one directly.
 */
export const FRAMEWORKS_BY_TYPE: Readonly<Record<number, readonly number[]>> = {
  1: [1000, 1003, 1010, 1020],
  2: [2000, 2003],
  3: [3000, 3998],
  4: [4000],
};
export const STAFF_ONLY_FRAMEWORKS: readonly number[] = [3998];

export interface CreateProjectInput {
  projectName: string;
  projectTypeId: 1 | 2 | 3 | 4;
  frameworkId: number;
  categoryId?: number | null;
  productType?: string | null;
  regionIds?: number[];
  sampleSize?: number;
  isBranded?: boolean;
  brandName?: string | null;
  researchNote?: string | null;
  launchDate?: string | null;
  splitCellQuota?: boolean;
}

/** The read-back of a project after authoring calls: the entity with its regions and questions. */
export const PROJECT_EXPAND = {
  $expand: "projectsRegions($expand=region;$orderby=regionId),activeProjectObjective,projectQuestions($orderby=questionPositionId,sortOrder,id;$expand=question($expand=questionOptions))",
};

/**
 * Regions a project may field in: they exist, and US states need CanChooseUsStateMarkets (for
 * everyone, or for this client). A refused region is a 400 naming it.
 */
export async function checkRegions(tx: Tx, ctx: RequestCtx, clientId: number, regionIds: number[], path = "regionIds"): Promise<q.RegionRow[]> {
  const rows = await q.regions(tx, regionIds);
  const byId = new Map(rows.map((r) => [r.id, r]));
  const errors: FieldError[] = [];
  const missing = regionIds.filter((id) => !byId.has(id));
  for (const id of missing) errors.push({ path: `${path}.${regionIds.indexOf(id)}`, message: `No region ${id}` });
  const states = rows.filter((r) => r.isUsState || (r.id >= US_STATE_IDS.min && r.id <= US_STATE_IDS.max));
  if (states.length && !(await q.flagOn(tx, US_STATES_FLAG, clientId, ctx.principal.isStaff))) {
    for (const r of states) {
      errors.push({
        path: `${path}.${regionIds.indexOf(r.id)}`,
        message: `Region ${r.id} (${r.regionName}) is a US state market: it needs the ${US_STATES_FLAG} feature`,
      });
    }
  }
  if (errors.length) throw new ApiError("ValidationError", errors.map((e) => e.message).join("; "), undefined, errors);
  return regionIds.map((id) => byId.get(id)!);
}

export async function createProject(db: Db, reg: Registry, ctx: RequestCtx, input: CreateProjectInput): Promise<string> {
  if (ctx.clientId === null) throw new ApiError("BadRequest", "A clientId header is required: projects belong to a team");
  const clientId = ctx.clientId;
  const allowed = FRAMEWORKS_BY_TYPE[input.projectTypeId] ?? [];
  if (!allowed.includes(input.frameworkId)) {
    throw new ApiError("ValidationError", `Framework ${input.frameworkId} does not fit project type ${input.projectTypeId}`, undefined, [
      { path: "frameworkId", message: `For project type ${input.projectTypeId} use one of ${allowed.join(", ")}` },
    ]);
  }
  if (STAFF_ONLY_FRAMEWORKS.includes(input.frameworkId) && !ctx.principal.isStaff) {
    throw new ApiError("ValidationError", `Framework ${input.frameworkId} projects are made by the project groups' seeding action`, undefined, [
      { path: "frameworkId", message: "Usage and attitude seeding projects come from CreateUsageAndAttitudeSeedProject" },
    ]);
  }
  return enterTenant(db, ctx, async (tx) => {
    const client = await q.client(tx, clientId);
    if (!client) throw new ApiError("NotFound", `Clients(${clientId}) not found`);
    if (client.tier !== "Team") throw new ApiError("BadRequest", `Projects belong to a team; client ${clientId} is an ${client.tier}`);
    const fw = await q.framework(tx, input.frameworkId);
    if (!fw || fw.projectTypeId !== input.projectTypeId) {
      throw new ApiError("ValidationError", `Framework ${input.frameworkId} does not fit project type ${input.projectTypeId}`, undefined, [
        { path: "frameworkId", message: "No such framework for this project type" },
      ]);
    }
    if (input.categoryId != null && !(await q.categoryExists(tx, input.categoryId))) {
      throw new ApiError("ValidationError", `No category ${input.categoryId}`, undefined, [{ path: "categoryId", message: "No such category" }]);
    }
    const productType = input.productType === undefined ? client.industry : input.productType;
    if (productType != null && !(await q.industryExists(tx, productType))) {
      throw new ApiError("ValidationError", `No industry '${productType}'`, undefined, [{ path: "productType", message: "Not an industry code" }]);
    }
    const regionIds = input.regionIds?.length ? unique(input.regionIds) : [client.defaultRegionId ?? DEFAULT_REGION_ID];
    await checkRegions(tx, ctx, clientId, regionIds, input.regionIds?.length ? "regionIds" : "regionIds (the team's default region)");

    const userId = ctx.principal.userId;
    const projectId = await q
      .insertProject(tx, {
        clientId,
        projectName: input.projectName,
        projectTypeId: input.projectTypeId,
        frameworkId: input.frameworkId,
        categoryId: input.categoryId ?? null,
        productType: productType ?? null,
        isBranded: input.isBranded ?? !!input.brandName,
        brandName: input.brandName ?? null,
        researchNote: input.researchNote ?? null,
        launchDate: input.launchDate ?? null,
        splitCellQuota: input.splitCellQuota ?? false,
        userId,
      })
      .catch(dbError("Projects"));
    await q.addRegions(tx, clientId, projectId, regionIds, input.sampleSize ?? null);

    // The framework's standard questions, each copied into the project's own questions, in SPEC 9 order.
    const standard = await q.frameworkQuestions(tx, input.frameworkId);
    let sortOrder = 0;
    for (const sq of standard) {
      const questionId = await q.copyStandardQuestion(tx, clientId, projectId, sq, userId);
      await q.insertProjectQuestion(tx, {
        clientId,
        projectId,
        questionId,
        standardQuestionId: sq.id,
        questionPositionId: STANDARD_POSITION,
        sortOrder: ++sortOrder,
        testOptionId: null,
        routing: null,
      });
    }

    const objectiveId = await q.insertObjective(tx, clientId, projectId, DEFAULT_OBJECTIVE, userId);
    await q.setActiveObjective(tx, projectId, objectiveId);
    return readEntity(tx, reg, ctx, "Projects", projectId, PROJECT_EXPAND);
  });
}

// ---- regions and targets ----

export async function deleteRegions(db: Db, reg: Registry, ctx: RequestCtx, projectId: number, input: { regionIds: number[] }): Promise<string> {
  return enterTenant(db, ctx, async (tx) => {
    const p = await projectForWrite(tx, projectId);
    assertEditable(p);
    const current = await q.projectRegionIds(tx, projectId);
    const ids = unique(input.regionIds);
    const unknown = ids.filter((id) => !current.includes(id));
    if (unknown.length) {
      throw new ApiError(
        "ValidationError",
        `Project ${projectId} does not field in region ${unknown.join(", ")}`,
        undefined,
        unknown.map((id) => ({ path: `regionIds.${input.regionIds.indexOf(id)}`, message: `Region ${id} is not one of the project's regions` })),
      );
    }
    if (ids.length >= current.length) throw new ApiError("ValidationError", "A project needs at least one region", undefined, [{ path: "regionIds", message: "Would remove every region" }]);
    await q.removeRegions(tx, projectId, ids).catch(dbError("ProjectsRegions"));
    return readEntities(tx, reg, ctx, "ProjectsRegions", { $filter: `projectId eq ${projectId}`, $orderby: "regionId", $expand: "region" });
  });
}

export interface TargetInput {
  systemQuestionOptionId?: number | null;
  questionOptionId?: number | null;
  regionId?: number | null;
  quotaPercent?: number | null;
  onlyThese?: boolean;
}

/** Positions whose questions may screen respondents: the Audience display group (1, 4, 7). */
export const SCREENING_POSITIONS: readonly number[] = [1, 4, 7];

/** ChangeTargets' targets checked against the project's regions and questions: the rows to store, or the field errors. */
async function targetRows(tx: Tx, projectId: number, regionIds: number[], targets: TargetInput[]): Promise<{ rows: q.NewTarget[]; errors: FieldError[] }> {
  const errors: FieldError[] = [];
  const sysIds = targets.flatMap((t) => (t.systemQuestionOptionId != null ? [t.systemQuestionOptionId] : []));
  const optIds = targets.flatMap((t) => (t.questionOptionId != null ? [t.questionOptionId] : []));
  const sys = new Map((await q.systemOptions(tx, sysIds)).map((o) => [o.id, o]));
  const opts = new Map((await q.projectQuestionOptions(tx, projectId, optIds)).map((o) => [o.id, o]));
  const rows: q.NewTarget[] = [];
  const seen = new Set<string>();
  // A target sent without quotaPercent / onlyThese keeps what is stored for it (the web editor
  // toggles answers and sends no quota fields); null and false clear them.
  const before = await q.storedQuotas(tx, projectId);
  const quota = (t: TargetInput, k: string) => ({
    quotaPercent: t.quotaPercent !== undefined ? t.quotaPercent : (before.get(k)?.quotaPercent ?? null),
    onlyThese: t.onlyThese !== undefined ? t.onlyThese : (before.get(k)?.onlyThese ?? false),
  });
  for (const [i, t] of targets.entries()) {
    const at = (field: string, message: string) => errors.push({ path: `targets.${i}${field ? `.${field}` : ""}`, message });
    if (t.regionId != null && !regionIds.includes(t.regionId)) {
      at("regionId", `Region ${t.regionId} is not one of the project's regions`);
      continue;
    }
    if (t.systemQuestionOptionId != null) {
      const o = sys.get(t.systemQuestionOptionId);
      if (!o) {
        at("systemQuestionOptionId", `No system question option ${t.systemQuestionOptionId}`);
        continue;
      }
      if (o.regionId !== null && !regionIds.includes(o.regionId)) {
        at("systemQuestionOptionId", `Option ${o.id} belongs to region ${o.regionId}, which the project does not field in`);
        continue;
      }
      if (o.regionId !== null && t.regionId != null && t.regionId !== o.regionId) {
        at("regionId", `Option ${o.id} belongs to region ${o.regionId}, not ${t.regionId}`);
        continue;
      }
      const regionId = t.regionId ?? o.regionId;
      const k = `s:${o.id}:${regionId}`;
      if (seen.has(k)) {
        at("", "The same target twice");
        continue;
      }
      seen.add(k);
      rows.push({ regionId, questionId: null, systemQuestionOptionId: o.id, questionOptionId: null, ...quota(t, k) });
    } else {
      const o = opts.get(t.questionOptionId!);
      if (!o) {
        at("questionOptionId", `Option ${t.questionOptionId} is not an option of a question of project ${projectId}`);
        continue;
      }
      if (!o.positions.some((pos) => SCREENING_POSITIONS.includes(pos))) {
        at("questionOptionId", `Option ${o.id} belongs to a question that is not asked as a screener (positions 1, 4 or 7)`);
        continue;
      }
      const k = `q:${o.id}:${t.regionId ?? ""}`;
      if (seen.has(k)) {
        at("", "The same target twice");
        continue;
      }
      seen.add(k);
      rows.push({ regionId: t.regionId ?? null, questionId: o.questionId, systemQuestionOptionId: null, questionOptionId: o.id, ...quota(t, k) });
    }
  }
  return { rows, errors };
}

export async function changeTargets(
  db: Db,
  reg: Registry,
  ctx: RequestCtx,
  projectId: number,
  input: { targets: TargetInput[]; crossedQuotas?: CrossedInput[]; regionIds?: number[]; sampleSize?: number },
): Promise<string> {
  return enterTenant(db, ctx, async (tx) => {
    const p = await projectForWrite(tx, projectId);
    assertEditable(p);

    // Regions first, when given: the project's regions become exactly these. An added region
    // takes the project's completes per wave (or the new size), not the creation default.
    let regionIds = await q.projectRegionIds(tx, projectId);
    const size = input.sampleSize ?? (await q.projectSampleSize(tx, projectId));
    if (input.regionIds) {
      const wanted = unique(input.regionIds);
      await checkRegions(tx, ctx, p.clientId, wanted);
      await q
        .removeRegions(
          tx,
          projectId,
          regionIds.filter((r) => !wanted.includes(r)),
        )
        .catch(dbError("ProjectsRegions"));
      await q
        .addRegions(
          tx,
          p.clientId,
          projectId,
          wanted.filter((r) => !regionIds.includes(r)),
          size,
        )
        .catch(dbError("ProjectsRegions"));
      regionIds = wanted;
    }
    if (input.sampleSize !== undefined) await q.setSampleSize(tx, projectId, input.sampleSize);

    const { rows, errors } = await targetRows(tx, projectId, regionIds, input.targets);
    const crossed = input.crossedQuotas ? await checkCrossedInput(tx, input.crossedQuotas, regionIds) : null;
    if (crossed) errors.push(...crossed.errors);
    if (errors.length) throw new ApiError("ValidationError", errors.map((e) => `${e.path}: ${e.message}`).join("; "), undefined, errors);
    await q.replaceTargets(tx, p.clientId, projectId, rows).catch(dbError("Targets"));
    if (crossed) await replaceCrossedCells(tx, p.clientId, projectId, crossed.rows).catch(dbError("CrossedQuotaCells"));
    // Quotas that can be met: shares within a group at most 100%, and a fill for the rest.
    await assertQuotasCanBeMet(tx, projectId);
    return readEntities(tx, reg, ctx, "Targets", { $filter: `projectId eq ${projectId}`, $orderby: "id" });
  });
}

// ---- objectives ----

/** POST ProjectObjectives: saves the objective and makes it the project's active one. */
export async function createObjective(db: Db, reg: Registry, ctx: RequestCtx, input: { projectId: number; summary: string }, queue?: Queue): Promise<string> {
  return enterTenant(db, ctx, async (tx) => {
    const p = await projectForWrite(tx, input.projectId);
    const id = await q.insertObjective(tx, p.clientId, p.id, input.summary, ctx.principal.userId).catch(dbError("ProjectObjectives"));
    await q.setActiveObjective(tx, p.id, id);
    // With results to write about, the summaries under the new objective are queued with it (SPEC 8:
    // 'Objective saved' ... preparing summaries); before that, processing end writes them.
    if (queue && p.statusCode >= 800) await queueObjectiveSummaries(queue, tx, ctx, p.id, id);
    return readEntity(tx, reg, ctx, "ProjectObjectives", id);
  });
}

/**
 * DELETE ProjectObjectives({key}): removes a custom objective; when it was the active one, the
 * project's default objective (SPEC 9's text) becomes active again, recreated if need be. The
 * default objective itself is not deleted (409).
 */
export async function deleteObjective(db: Db, ctx: RequestCtx, id: number): Promise<void> {
  await enterTenant(db, ctx, async (tx) => {
    const o = await q.ownObjective(tx, id);
    if (!o) throw new ApiError("NotFound", `ProjectObjectives(${id}) not found`);
    const p = await projectForWrite(tx, o.projectId);
    if (o.summary === DEFAULT_OBJECTIVE) throw new ApiError("Conflict", "The default objective cannot be deleted; save a custom objective instead");
    await q.deleteObjective(tx, id).catch(dbError("ProjectObjectives"));
    if (p.activeProjectObjectiveId === id) {
      const fallback = (await q.findObjective(tx, p.id, DEFAULT_OBJECTIVE)) ?? (await q.insertObjective(tx, p.clientId, p.id, DEFAULT_OBJECTIVE, ctx.principal.userId));
      await q.setActiveObjective(tx, p.id, fallback);
    }
  });
}
