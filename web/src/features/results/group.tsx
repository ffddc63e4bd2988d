// What the group pages share: the group, its active version's projects and questions, and the
// response filter of the chosen group segments.
import { createContext, useContext } from "react";
import type { Row } from "@ideally/contracts/odata";

type GroupProject = Row<"Projects", "id" | "projectName" | "statusCode">;
export type Group = Row<
  "ProjectGroups",
  "id" | "name" | "description" | "activeVersionId",
  {
    activeVersion: Row<"ProjectGroupVersions", "id" | "versionNumber" | "name", { projects: GroupProject[] }> | null;
    projectGroupVersions?: Row<"ProjectGroupVersions", "id", { projects?: GroupProject[] }>[];
  }
>;
export type GroupQuestion = Row<
  "ProjectGroupQuestions",
  "id" | "questionId" | "questionPositionId" | "title" | "sortOrder",
  { question: Row<"Questions", "id" | "questionText" | "questionTypeId"> | null }
>;

export interface GroupContext {
  clientId: number;
  group: Group;
  /** on any version of the group or tagged into it (the API's groupProjects) */
  projects: GroupProject[];
  questions: GroupQuestion[];
  filtersJson: string;
  segmentIds: number[];
}

export const GroupCtx = createContext<GroupContext | null>(null);

export function useGroup(): GroupContext {
  const c = useContext(GroupCtx);
  if (!c) throw new Error("useGroup outside GroupsArea");
  return c;
}
