// Results and exports exist once a project has fielded (status 400 and on). Before that the CLI
// says so in one line (exit 2) instead of printing an empty table or writing an empty file.
import { statusName } from "@ideally/contracts/labels";
import { apiError } from "./errors.ts";
import { ok, type Api } from "./session.ts";

export interface ProjectHead {
  id: number;
  projectName: string;
  statusCode: number;
  projectType: string | null;
}

/** The project's name, status and type, refused (exit 2) when it has not fielded; `what` is "results" or "responses to export". */
export async function fieldedProject(api: Api, key: string, what: string, after: string): Promise<ProjectHead> {
  const p = ok(await api.client.GET("/api/v1/Projects({key})", { params: { path: { key }, query: { $select: "id,projectName,statusCode,projectType" } } }), `reading project ${key}`);
  const head = { id: p.id ?? Number(key), projectName: p.projectName ?? "", statusCode: p.statusCode ?? 0, projectType: p.projectType ?? null };
  if (head.statusCode < 400) {
    throw apiError(`project ${key} '${head.projectName}' is ${statusName(head.statusCode)} (${head.statusCode}): it has not fielded, so there are no ${what} (${after}, status 400 and on)`);
  }
  return head;
}
