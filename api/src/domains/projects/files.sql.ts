// SQL of project files: the file references test options and questions carry.
import type { Tx } from "../../db/client.ts";

export interface FileRow {
  source: "testOption" | "question";
  testOptionId: number | null;
  questionId: number | null;
  key: unknown;
  fileType: unknown;
  fileName: unknown;
}

/** Files of the project's test options and questions (not in the trash). */
export async function projectFiles(tx: Tx, projectId: number): Promise<FileRow[]> {
  return tx<FileRow[]>`
    select 'testOption' as source, t.id as "testOptionId", null::int as "questionId",
           t.file->'key' as key, t.file->'fileType' as "fileType", t.file->'fileName' as "fileName"
    from test_options t
    where t.project_id = ${projectId} and t.deleted_at is null and jsonb_typeof(t.file) = 'object'
    union all
    select 'question', null, q.id, q.s3_file->'key', q.s3_file->'fileType', q.s3_file->'fileName'
    from questions q
    where q.project_id = ${projectId} and q.deleted_at is null and jsonb_typeof(q.s3_file) = 'object'
    order by 1 desc, 2, 3`;
}
