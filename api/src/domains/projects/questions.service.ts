// Questions of a project (custom questions with their options, screeners and follow-ups by
// position, routing), their order, the synthesised question, template questions, and the
// targetable questions with panel counts.
import type { Db, Tx } from "../../db/client.ts";
import { enterTenant } from "../../access/policy.ts";
import type { RequestCtx } from "../../access/principal.ts";
import type { Registry } from "../../entities/registry.ts";
import { ApiError, type FieldError } from "../../errors.ts";
import { ALLOWED_FILE_TYPES } from "../../storage/storage.ts";
import { allowSubmittedEdits, assertEditable, dbError, projectForWrite, readEntity, unique } from "./common.ts";
import * as pq from "./projects.sql.ts";
import * as q from "./questions.sql.ts";
import { STANDARD_POSITION } from "./projects.service.ts";
import { synthesizeQuestion, type SynthQuestion } from "./synth.ts";

export interface OptionInput {
  id?: number;
  optionText: string;
  exclusive?: boolean;
  isOther?: boolean;
  isNotSure?: boolean;
}

export interface RoutingInput {
  routingConditions: { projectQuestionId: number; questionOptionIds: number[] }[];
}

export interface FileRef {
  key: string;
  fileType: string;
  fileName?: string;
}

export interface QuestionFields {
  questionText?: string;
  questionTitle?: string | null;
  questionTypeId?: 1 | 2 | 3 | 4;
  randomizeOptions?: boolean;
  minChoices?: number | null;
  maxChoices?: number | null;
  s3File?: FileRef | null;
  questionOptions?: OptionInput[];
  questionPositionId?: number;
  testOptionId?: number | null;
  routing?: RoutingInput | null;
}

export interface CreateQuestionInput extends QuestionFields {
  projectId?: number | null;
  questionText: string;
  questionTypeId: 1 | 2 | 3 | 4;
}

/** The read-back of a question: the entity with its options and project questions. */
export const QUESTION_EXPAND = { $expand: "questionOptions($orderby=sortOrder,id),projectQuestions($orderby=id)" };

const CHOICE_TYPES = [1, 2, 4];
const MAX_OPTIONS = 100;

function fail(errors: FieldError[]): never {
  throw new ApiError("ValidationError", errors.map((e) => `${e.path}: ${e.message}`).join("; "), undefined, errors);
}

/** A stored file reference must be one of the client's own keys (see storage keys in files.service.ts). */
export function checkFileRef(ref: FileRef | null | undefined, clientId: number, path: string, errors: FieldError[]): void {
  if (!ref) return;
  if (!ref.key.startsWith(`clients/${clientId}/`)) errors.push({ path: `${path}.key`, message: "Not a file uploaded for this client (use FileUploadUrl)" });
  if (!ALLOWED_FILE_TYPES.includes(ref.fileType)) errors.push({ path: `${path}.fileType`, message: `One of ${ALLOWED_FILE_TYPES.join(", ")}` });
}

/** Options, type and choice limits agree with each other. */
function checkShape(typeId: number, options: OptionInput[], minChoices: number | null | undefined, maxChoices: number | null | undefined, errors: FieldError[]): void {
  if (typeId === 3) {
    if (options.length) errors.push({ path: "questionOptions", message: "A text question has no options" });
  } else if (CHOICE_TYPES.includes(typeId)) {
    if (options.length < 2) errors.push({ path: "questionOptions", message: "A choice question needs at least two options" });
    if (options.length > MAX_OPTIONS) errors.push({ path: "questionOptions", message: `At most ${MAX_OPTIONS} options` });
  }
  const seen = new Set<string>();
  options.forEach((o, i) => {
    const k = o.optionText.trim().toLowerCase();
    if (seen.has(k)) errors.push({ path: `questionOptions.${i}.optionText`, message: `'${o.optionText}' appears twice` });
    seen.add(k);
    if (o.exclusive && typeId !== 2) errors.push({ path: `questionOptions.${i}.exclusive`, message: "Only options of a multiple-choice question are exclusive" });
  });
  if (typeId !== 2 && (minChoices != null || maxChoices != null)) errors.push({ path: "maxChoices", message: "Choice limits apply to multiple-choice questions" });
  if (maxChoices != null && maxChoices > options.length) errors.push({ path: "maxChoices", message: "More than the number of options" });
  if (minChoices != null && maxChoices != null && minChoices > maxChoices) errors.push({ path: "minChoices", message: "Greater than maxChoices" });
}

async function checkRouting(tx: Tx, projectId: number, routing: RoutingInput | null | undefined, self: number[], errors: FieldError[]): Promise<void> {
  if (!routing) return;
  const ids = routing.routingConditions.map((c) => c.projectQuestionId);
  const targets = new Map((await q.routingTargets(tx, projectId, ids)).map((t) => [t.id, t]));
  for (const [i, c] of routing.routingConditions.entries()) {
    const t = targets.get(c.projectQuestionId);
    if (!t) {
      errors.push({ path: `routing.routingConditions.${i}.projectQuestionId`, message: `No project question ${c.projectQuestionId} in project ${projectId}` });
      continue;
    }
    if (self.includes(c.projectQuestionId)) {
      errors.push({ path: `routing.routingConditions.${i}.projectQuestionId`, message: "A question cannot route on itself" });
      continue;
    }
    c.questionOptionIds.forEach((o, j) => {
      if (!t.optionIds.includes(o)) errors.push({ path: `routing.routingConditions.${i}.questionOptionIds.${j}`, message: `Option ${o} is not an answer of project question ${c.projectQuestionId}` });
    });
  }
}

async function checkPlacement(tx: Tx, projectId: number, input: QuestionFields, errors: FieldError[]): Promise<void> {
  if (input.questionPositionId !== undefined) {
    if (input.questionPositionId === STANDARD_POSITION) errors.push({ path: "questionPositionId", message: "Position 5 (Standard) holds the framework's standard questions" });
    else if (!(await q.positionExists(tx, input.questionPositionId))) errors.push({ path: "questionPositionId", message: `No position ${input.questionPositionId}` });
  }
  if (input.testOptionId != null && !(await q.testOptionOf(tx, projectId, input.testOptionId))) {
    errors.push({ path: "testOptionId", message: `No test option ${input.testOptionId} in project ${projectId}` });
  }
}

const optionWrite = (o: OptionInput, i: number): q.OptionWrite => ({
  optionText: o.optionText.trim(),
  sortOrder: i + 1,
  exclusive: o.exclusive ?? false,
  isOther: o.isOther ?? false,
  isNotSure: o.isNotSure ?? false,
});

/**
 * POST Questions: a custom question with its options. With projectId it is asked in that project
 * at questionPositionId (appended to the position's group); without, it is a template question of
 * the request's client (QuestionTemplates refer to it).
 */
export async function createQuestion(db: Db, reg: Registry, ctx: RequestCtx, input: CreateQuestionInput): Promise<string> {
  return enterTenant(db, ctx, async (tx) => {
    const { questionId } = await insertQuestionIn(tx, ctx, input);
    return readEntity(tx, reg, ctx, "Questions", questionId, QUESTION_EXPAND);
  });
}

/** createQuestion's work in the caller's transaction: the new question and its project question. */
async function insertQuestionIn(tx: Tx, ctx: RequestCtx, input: CreateQuestionInput): Promise<{ questionId: number; projectQuestionId: number | null }> {
  const errors: FieldError[] = [];
  const options = input.questionOptions ?? [];
  let clientId: number;
  let projectId: number | null = null;
  if (input.projectId != null) {
    const p = await projectForWrite(tx, input.projectId);
    assertEditable(p);
    clientId = p.clientId;
    projectId = p.id;
    if (input.questionPositionId === undefined) errors.push({ path: "questionPositionId", message: "Required for a project's question" });
    await checkPlacement(tx, projectId, input, errors);
    await checkRouting(tx, projectId, input.routing, [], errors);
  } else {
    if (ctx.clientId === null) throw new ApiError("BadRequest", "A clientId header is required for a template question");
    clientId = ctx.clientId;
    for (const f of ["questionPositionId", "testOptionId", "routing"] as const) {
      if (input[f] != null) errors.push({ path: f, message: "Only a project's question has a position, test option or routing" });
    }
  }
  checkShape(input.questionTypeId, options, input.minChoices, input.maxChoices, errors);
  checkFileRef(input.s3File, clientId, "s3File", errors);
  if (errors.length) fail(errors);

  const questionId = await q
    .insertQuestion(tx, {
      clientId,
      projectId,
      questionText: input.questionText.trim(),
      questionTitle: input.questionTitle ?? null,
      questionTypeId: input.questionTypeId,
      randomizeOptions: input.randomizeOptions ?? false,
      minChoices: input.minChoices ?? null,
      maxChoices: input.maxChoices ?? null,
      s3File: input.s3File ?? null,
      marketReachEnabled: false,
      userId: ctx.principal.userId,
    })
    .catch(dbError("Questions"));
  for (const [i, o] of options.entries()) await q.insertOption(tx, clientId, projectId, questionId, optionWrite(o, i)).catch(dbError("QuestionOptions"));
  let projectQuestionId: number | null = null;
  if (projectId !== null) {
    projectQuestionId = await pq
      .insertProjectQuestion(tx, {
        clientId,
        projectId,
        questionId,
        standardQuestionId: null,
        questionPositionId: input.questionPositionId!,
        sortOrder: await pq.nextSortOrder(tx, projectId, input.questionPositionId!),
        testOptionId: input.testOptionId ?? null,
        routing: input.routing ?? null,
      })
      .catch(dbError("ProjectQuestions"));
  }
  return { questionId, projectQuestionId };
}

/**
 * PATCH Questions({key}) and Questions({key})/SuperAdminUpdate: the question's fields, its options
 * (questionOptions replaces the list: an item with an id keeps that option, one without adds an
 * option, a missing one is removed), and its place in the project (position, test option,
 * routing). A copied standard question keeps its type and answer scale: only wording changes.
 */
export async function updateQuestion(db: Db, reg: Registry, ctx: RequestCtx, id: number, input: QuestionFields, opts: { superAdmin?: boolean } = {}): Promise<string> {
  return enterTenant(db, ctx, async (tx) => {
    const cur = await q.ownQuestion(tx, id);
    if (!cur) throw new ApiError("NotFound", `Questions(${id}) not found`);
    if (opts.superAdmin) await allowSubmittedEdits(tx);
    if (cur.projectId !== null) {
      const p = await projectForWrite(tx, cur.projectId);
      if (!opts.superAdmin) assertEditable(p);
    }
    const errors: FieldError[] = [];
    const existing = await q.options(tx, id);
    const typeId = input.questionTypeId ?? cur.questionTypeId;
    const next: OptionInput[] = input.questionOptions ?? existing.map((o) => ({ ...o }));
    const existingIds = existing.map((o) => o.id);
    next.forEach((o, i) => {
      if (o.id !== undefined && !existingIds.includes(o.id)) errors.push({ path: `questionOptions.${i}.id`, message: `Option ${o.id} is not an option of question ${id}` });
    });
    if (cur.standardQuestionId !== null) {
      if (input.questionTypeId !== undefined && input.questionTypeId !== cur.questionTypeId) errors.push({ path: "questionTypeId", message: "A standard question keeps its type" });
      if (input.questionOptions && (next.length !== existing.length || next.some((o) => o.id === undefined))) {
        errors.push({ path: "questionOptions", message: "A standard question keeps its answer options: only their wording changes" });
      }
    }
    const minC = input.minChoices !== undefined ? input.minChoices : null;
    const maxC = input.maxChoices !== undefined ? input.maxChoices : null;
    checkShape(typeId, next, minC, maxC, errors);
    checkFileRef(input.s3File, cur.clientId, "s3File", errors);
    const placing = input.questionPositionId !== undefined || input.testOptionId !== undefined || input.routing !== undefined;
    if (placing) {
      if (cur.projectId === null) errors.push({ path: "questionPositionId", message: "A template question has no place in a project" });
      else {
        if (cur.standardQuestionId !== null && input.questionPositionId !== undefined) errors.push({ path: "questionPositionId", message: "Standard questions stay at position 5" });
        else await checkPlacement(tx, cur.projectId, input, errors);
        if (input.testOptionId !== undefined && cur.projectQuestionIds.length > 1) errors.push({ path: "testOptionId", message: "The question is asked more than once in the project" });
        await checkRouting(tx, cur.projectId, input.routing, cur.projectQuestionIds, errors);
      }
    }
    if (errors.length) fail(errors);

    await q
      .updateQuestion(tx, id, {
        questionText: input.questionText?.trim(),
        questionTitle: input.questionTitle,
        questionTypeId: input.questionTypeId,
        randomizeOptions: input.randomizeOptions,
        // Choice limits belong to multiple choice: a question that becomes another type drops them.
        minChoices: typeId !== 2 ? null : input.minChoices,
        maxChoices: typeId !== 2 ? null : input.maxChoices,
        s3File: input.s3File,
      })
      .catch(dbError("Questions"));
    if (input.questionOptions) {
      const keep = new Set(next.flatMap((o) => (o.id !== undefined ? [o.id] : [])));
      await q
        .deleteOptions(
          tx,
          existingIds.filter((x) => !keep.has(x)),
        )
        .catch(dbError("QuestionOptions"));
      for (const [i, o] of next.entries()) {
        const w = optionWrite(o, i);
        if (o.id !== undefined) await q.updateOption(tx, o.id, w).catch(dbError("QuestionOptions"));
        else await q.insertOption(tx, cur.clientId, cur.projectId, id, w).catch(dbError("QuestionOptions"));
      }
    }
    if (placing && cur.projectId !== null) {
      const patch: Parameters<typeof q.updateProjectQuestions>[2] = { testOptionId: input.testOptionId, routing: input.routing };
      if (input.questionPositionId !== undefined) {
        patch.questionPositionId = input.questionPositionId;
        patch.sortOrder = await pq.nextSortOrder(tx, cur.projectId, input.questionPositionId);
      }
      await q.updateProjectQuestions(tx, cur.projectQuestionIds, patch).catch(dbError("ProjectQuestions"));
    }
    return readEntity(tx, reg, ctx, "Questions", id, QUESTION_EXPAND);
  });
}

/**
 * ProjectQuestions SortOrderChange: the new order of one position group (the project questions
 * whose positions share a sort position: Screener and BeforeLoop are one list). The list must name
 * every question of the group once; their sortOrder becomes 1..n.
 */
export async function changeSortOrder(db: Db, ctx: RequestCtx, input: { projectId: number; projectQuestionIds: number[] }): Promise<q.SortedRow[]> {
  return enterTenant(db, ctx, async (tx) => {
    const p = await projectForWrite(tx, input.projectId);
    assertEditable(p);
    const all = await q.projectQuestionGroup(tx, p.id);
    const byId = new Map(all.map((r) => [r.id, r]));
    const errors: FieldError[] = [];
    input.projectQuestionIds.forEach((id, i) => {
      if (!byId.has(id)) errors.push({ path: `projectQuestionIds.${i}`, message: `No project question ${id} in project ${p.id}` });
    });
    if (unique(input.projectQuestionIds).length !== input.projectQuestionIds.length) errors.push({ path: "projectQuestionIds", message: "A project question appears twice" });
    if (errors.length) fail(errors);
    const groups = unique(input.projectQuestionIds.map((id) => byId.get(id)!.sortPosition));
    if (groups.length !== 1) fail([{ path: "projectQuestionIds", message: "Reorder one position group at a time" }]);
    const group = all.filter((r) => r.sortPosition === groups[0]).map((r) => r.id);
    const missing = group.filter((id) => !input.projectQuestionIds.includes(id));
    if (missing.length) fail([{ path: "projectQuestionIds", message: `The group also holds ${missing.join(", ")}: list every question of the group` }]);
    await q.setSortOrders(tx, input.projectQuestionIds).catch(dbError("ProjectQuestions"));
    return q.questionList(tx, p.id, groups[0]);
  });
}

/**
 * ProjectQuestions ProcessSynthQuestion: turns a free-text idea ("Which do you prefer? A / B / C")
 * into a structured question (synth.ts) and adds it to the project at the position (6 Custom by
 * default). Answers the new project question with its question and options.
 */
export async function processSynthQuestion(db: Db, reg: Registry, ctx: RequestCtx, input: { projectId: number; text: string; questionPositionId?: number }): Promise<string> {
  const synth = synthesize(input.text);
  return enterTenant(db, ctx, async (tx) => {
    const { projectQuestionId } = await insertQuestionIn(tx, ctx, {
      projectId: input.projectId,
      questionText: synth.questionText,
      questionTypeId: synth.questionTypeId,
      questionOptions: synth.questionOptions,
      questionPositionId: input.questionPositionId ?? 6,
    });
    return readEntity(tx, reg, ctx, "ProjectQuestions", projectQuestionId!, { $expand: "question($expand=questionOptions($orderby=sortOrder,id))" });
  });
}

function synthesize(text: string): SynthQuestion {
  try {
    return synthesizeQuestion(text);
  } catch {
    return fail([{ path: "text", message: "Write the question, e.g. 'Which do you prefer? A / B / C'" }]);
  }
}

// ---- templates ----

/** Questions DeleteTemplateQuestion: a template question of the client and its templates go to the trash. */
export async function deleteTemplateQuestion(db: Db, ctx: RequestCtx, id: number): Promise<void> {
  await enterTenant(db, ctx, async (tx) => {
    const cur = await q.ownQuestion(tx, id);
    if (!cur || cur.projectId !== null) throw new ApiError("NotFound", `No template question ${id}`);
    await q.trashTemplateQuestion(tx, id).catch(dbError("Questions"));
  });
}

/** Questions OrgTemplatesQuestions / OrgTemplatesQuestion: the template questions of the clients above the request's. */
export async function orgTemplates(db: Db, ctx: RequestCtx, questionId: number | null): Promise<q.OrgTemplateRow[]> {
  if (ctx.clientId === null) throw new ApiError("BadRequest", "A clientId header is required: the templates of the clients above it");
  const clientId = ctx.clientId;
  return enterTenant(db, { ...ctx, descendants: false }, (tx) => q.orgTemplates(tx, clientId, questionId));
}

// ---- targeting ----

export interface TargetFilters {
  regionIds?: number[];
  filterIds?: number[];
  dateFrom?: string;
  dateTo?: string;
  panelType?: { regionId?: number; isCustomerPanel: boolean } | null;
}

export interface TargetQuestion {
  source: "system" | "question";
  id: number;
  projectQuestionId: number | null;
  questionPositionId: number | null;
  questionText: string;
  questionLabel: string;
  questionCode: string | null;
  questionTypeId: number;
  options: {
    systemQuestionOptionId: number | null;
    questionOptionId: number | null;
    answerLabel: string;
    filterSubtext: string | null;
    regionId: number | null;
    exclusive: boolean;
    isTarget: boolean;
    count: number;
  }[];
}

/**
 * Questions TargetQuestionsWithCounts: what a project can target. The demographic (system)
 * questions of its regions, and its own choice questions at questionPosition (default: the
 * Audience positions 1, 4 and 7), each option with how many past respondents in those regions
 * gave it (the Ideally panel across clients, a customer panel only the client's own) and whether
 * the project targets it now.
 */
export async function targetQuestionsWithCounts(db: Db, ctx: RequestCtx, input: { projectId: number; questionPosition?: number; filters: TargetFilters }): Promise<TargetQuestion[]> {
  return enterTenant(db, ctx, async (tx) => {
    // The team's own projects: targeting is authoring, not something a share recipient does.
    const p = await pq.ownProject(tx, input.projectId);
    if (!p) throw new ApiError("NotFound", `Projects(${input.projectId}) not found`);
    const projectRegions = await pq.projectRegionIds(tx, p.id);
    const f = input.filters;
    const regionIds = f.regionIds?.length ? projectRegions.filter((r) => f.regionIds!.includes(r)) : projectRegions;
    const from = f.dateFrom ?? null;
    const to = f.dateTo ?? null;
    const customer = f.panelType ? f.panelType.isCustomerPanel : null;
    const counts = await q.panelCounts(tx, p.clientId, regionIds, f.filterIds ?? [], from, to, customer);
    const targets = await q.currentTargets(tx, p.id);
    const sysTargets = new Set(targets.flatMap((t) => (t.systemQuestionOptionId !== null ? [t.systemQuestionOptionId] : [])));
    const optTargets = new Set(targets.flatMap((t) => (t.questionOptionId !== null ? [t.questionOptionId] : [])));
    const out: TargetQuestion[] = [];
    for (const s of await q.systemQuestionsFor(tx, regionIds)) {
      out.push({
        source: "system",
        id: s.id,
        projectQuestionId: null,
        questionPositionId: null,
        questionText: s.questionText,
        questionLabel: s.questionLabel,
        questionCode: s.questionCode,
        questionTypeId: 1,
        options: s.options.map((o) => ({
          systemQuestionOptionId: o.id,
          questionOptionId: null,
          answerLabel: o.answerLabel,
          filterSubtext: o.filterSubtext,
          regionId: o.regionId,
          exclusive: false,
          isTarget: sysTargets.has(o.id),
          count: counts.get(o.id) ?? 0,
        })),
      });
    }
    const positions = input.questionPosition !== undefined ? [input.questionPosition] : [1, 4, 7];
    for (const s of await q.screenerQuestions(tx, p.id, positions, regionIds, from, to)) {
      out.push({
        source: "question",
        id: s.questionId,
        projectQuestionId: s.projectQuestionId,
        questionPositionId: s.questionPositionId,
        questionText: s.questionText,
        questionLabel: s.questionTitle ?? s.questionText,
        questionCode: null,
        questionTypeId: s.questionTypeId,
        options: s.options.map((o) => ({
          systemQuestionOptionId: null,
          questionOptionId: o.id,
          answerLabel: o.optionText,
          filterSubtext: null,
          regionId: null,
          exclusive: o.exclusive,
          isTarget: optTargets.has(o.id),
          count: o.count,
        })),
      });
    }
    return out;
  });
}

/** TestOptions({key})/SuperAdminUpdate: a super admin's edit of a test option, even after submission. */
export async function superAdminUpdateTestOption(
  db: Db,
  reg: Registry,
  ctx: RequestCtx,
  id: number,
  input: { conceptText?: string; conceptDescription?: string | null; file?: FileRef | null; sortOrder?: number },
): Promise<string> {
  return enterTenant(db, ctx, async (tx) => {
    const t = await q.ownTestOption(tx, id);
    if (!t) throw new ApiError("NotFound", `TestOptions(${id}) not found`);
    const errors: FieldError[] = [];
    checkFileRef(input.file, t.clientId, "file", errors);
    if (errors.length) fail(errors);
    await allowSubmittedEdits(tx);
    await q.updateTestOption(tx, id, input).catch(dbError("TestOptions"));
    return readEntity(tx, reg, ctx, "TestOptions", id);
  });
}
