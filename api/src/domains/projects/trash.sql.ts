// SQL of the trash. Table names come from the registry's soft-delete sets (TRASH_SETS), never
// from a request.
import type { Tx } from "../../db/client.ts";

const TABLES = ["projects", "project_questions", "questions", "question_templates", "test_options"];

/** Takes a row of the request's own clients out of the trash; false when there is none. */
export async function restore(tx: Tx, table: string, id: number): Promise<boolean> {
  if (!TABLES.includes(table)) throw new Error(`not a trash table: ${table}`);
  const rows = await tx`
    update ${tx(table)} set deleted_at = null
    where id = ${id} and deleted_at is not null and (app_all_clients() or client_id = any(app_client_ids()))
    returning 1`;
  return rows.length > 0;
}

export async function restoreTemplateQuestion(tx: Tx, templateId: number): Promise<void> {
  await tx`
    update questions q set deleted_at = null
    from question_templates t
    where t.id = ${templateId} and q.id = t.question_id and q.deleted_at is not null and q.project_id is null`;
}
