// What the group pages share: the group, its active version's projects and questions, and the
// response filter of the chosen group segments.
import { createContext, useContext } from "react";

export type Group = {
  id: number;
  name: string;
  description: string | null;
  activeVersionId: number | null;
  activeVersion: { id: number; versionNumber: number; name: string | null; projects: { id: number; projectName: string; statusCode: number }[] } | null;
  projectGroupVersions?: { id: number; projects?: { id: number; projectName: string; statusCode: number }[] }[];
};
export type GroupQuestion = { id: number; questionId: number; questionPositionId: number; title: string | null; sortOrder: number | null; question: { id: number; questionText: string; questionTypeId: number } | null };

export interface GroupContext {
  clientId: number;
  group: Group;
  /** on any version of the group or tagged into it (the API's groupProjects) */
  projects: { id: number; projectName: string; statusCode: number }[];
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
