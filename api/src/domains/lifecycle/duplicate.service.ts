// Duplicate: a copy of a project as a new Draft of the same team: the project's settings, regions,
// test options, questions and their options, project questions (routing remapped), objectives
// (the active one too), targets, crossed quota cells, and the price sensitivity and market reach set-ups. Not copied:
// anything of a run (schedules, sessions, answers, summaries), shares, watchers, group tags.
import type { Db, Tx } from "../../db/client.ts";
import type { RequestCtx } from "../../access/principal.ts";
import { clientChannel, publish } from "../../jobs/channel.ts";
import * as q from "./duplicate.sql.ts";
import { withProjectAction, dbError } from "./lifecycle.service.ts";

export interface DuplicateResult {
  id: number;
  projectName: string;
  /** A copy starts as a Draft. */
  statusCode: 0;
  clientId: number;
  duplicatedFromProjectId: number;
}

/** "{name} (copy)", within the 200 characters a project name may have. */
export function copyName(name: string): string {
  const suffix = " (copy)";
  return name.length + suffix.length <= 200 ? name + suffix : name.slice(0, 200 - suffix.length) + suffix;
}

const ids = (m: q.IdMap) => [...m.keys()];

async function duplicateIn(tx: Tx, userId: number, src: number, clientId: number, name: string): Promise<number> {
  const projects = await q.copyRows(tx, {
    table: "projects",
    where: tx`t.id = ${src}`,
    set: {
      project_name: tx`${name}::text`,
      status_code: tx`0`,
      owner_user_id: tx`${userId}::int`,
      created_by_user_id: tx`${userId}::int`,
      active_project_objective_id: tx`null`,
      schedule_pause: tx`false`,
      submitted_at: tx`null`,
      approved_at: tx`null`,
      completed_at: tx`null`,
      deleted_at: tx`null`,
    },
  });
  const dst = projects.get(src)!;
  const toProject = { project_id: tx`${dst}::int` };
  await q.copyRows(tx, { table: "projects_regions", where: tx`t.project_id = ${src}`, set: toProject });
  const testOptions = await q.copyRows(tx, { table: "test_options", where: tx`t.project_id = ${src} and t.deleted_at is null`, set: toProject });
  const questions = await q.copyRows(tx, {
    table: "questions",
    where: tx`t.project_id = ${src} and t.deleted_at is null`,
    set: { ...toProject, created_by_user_id: tx`${userId}::int` },
  });
  const options = await q.copyRows(tx, {
    table: "question_options",
    where: tx`t.question_id = any(${ids(questions)}::int[])`,
    set: toProject,
    remap: { question_id: questions },
  });
  const projectQuestions = await q.copyRows(tx, {
    table: "project_questions",
    // A question about a test option in the trash is not copied with it.
    where: tx`t.project_id = ${src} and t.deleted_at is null and (t.test_option_id is null or t.test_option_id = any(${ids(testOptions)}::int[]))`,
    set: toProject,
    remap: { question_id: questions, test_option_id: testOptions },
  });
  // Routing names project questions and options of the source: point it at the copies.
  for (const r of await q.routingsOf(tx, dst)) {
    const conds = r.routing?.routingConditions ?? [];
    await q.setRouting(tx, r.id, {
      ...r.routing,
      routingConditions: conds.map((c) => ({
        ...c,
        ...(c.projectQuestionId !== undefined ? { projectQuestionId: projectQuestions.get(c.projectQuestionId) ?? c.projectQuestionId } : {}),
        ...(c.questionOptionIds ? { questionOptionIds: c.questionOptionIds.map((o) => options.get(o) ?? o) } : {}),
      })),
    });
  }
  const objectives = await q.copyRows(tx, {
    table: "project_objectives",
    where: tx`t.project_id = ${src}`,
    set: { ...toProject, created_by_user_id: tx`${userId}::int` },
  });
  const active = await q.activeObjectiveOf(tx, src);
  if (active !== null && objectives.has(active)) await q.setActiveObjective(tx, dst, objectives.get(active)!);
  await q.copyRows(tx, {
    table: "targets",
    where: tx`t.project_id = ${src}`,
    set: toProject,
    remap: { question_id: questions, question_option_id: options },
  });
  await q.copyRows(tx, { table: "crossed_quota_cells", where: tx`t.project_id = ${src}`, set: toProject });
  await q.copyRows(tx, {
    table: "project_price_sensitivities",
    where: tx`t.project_id = ${src} and (t.test_option_id is null or t.test_option_id = any(${ids(testOptions)}::int[]))`,
    set: toProject,
    remap: { test_option_id: testOptions },
  });
  const reach = await q.copyRows(tx, {
    table: "project_market_reach",
    where: tx`t.project_id = ${src}`,
    set: toProject,
    remap: { question_id: questions, project_question_id: projectQuestions },
  });
  await q.copyRows(tx, {
    table: "project_market_reach_options",
    where: tx`t.project_market_reach_id = any(${ids(reach)}::int[]) and (t.test_option_id is null or t.test_option_id = any(${ids(testOptions)}::int[]))`,
    remap: { project_market_reach_id: reach, test_option_id: testOptions, question_option_id: options, answer_option_id: options },
  });
  await q.logCreated(tx, { clientId, userId, projectId: dst, data: { duplicatedFromProjectId: src } });
  await publish(tx, { channel: clientChannel(clientId), event: "ProjectUpdated", data: { projectId: dst, action: "Duplicate", duplicatedFromProjectId: src }, clientId });
  return dst;
}

export async function duplicate(db: Db, ctx: RequestCtx, input: { projectId: number; projectName?: string }): Promise<DuplicateResult> {
  return withProjectAction(db, ctx, "Duplicate", input.projectId, async (tx, p) => {
    const name = input.projectName?.trim() || copyName(p.projectName);
    const id = await duplicateIn(tx, ctx.principal.userId, p.id, p.clientId, name).catch(dbError(`Duplicating project ${p.id}`));
    return { id, projectName: name, statusCode: 0, clientId: p.clientId, duplicatedFromProjectId: p.id };
  });
}
