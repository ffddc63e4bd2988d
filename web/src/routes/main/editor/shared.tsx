// What the editor page (ProjectPage.tsx) and its tabs share: the tabs, their props and the
// project's title line. In a module of their own so a tab never imports the page that imports it.
import type { CurrentClient } from "../../../state/client";
import { Badge } from "../../../components/ui";
import { PROJECT_STATUSES, PROJECT_TYPES } from "../../../lib/constants";
import { STATUS_TONE } from "../../../features/projects";
import type { EditorProject } from "../../../features/projects-editor/data";

export const EDITOR_TABS = [
  { id: "setup", label: "Set-up" },
  { id: "markets", label: "Markets & targets" },
  { id: "test-options", label: "Test options" },
  { id: "questions", label: "Questions" },
  { id: "add-ons", label: "Add-ons" },
  { id: "scheduling", label: "Scheduling" },
] as const;

/** editable: the set-up may change (a Draft, and the person may write); canWrite: the role and ownership allow changes at all. */
export type TabProps = { client: CurrentClient; project: EditorProject; editable: boolean; canWrite: boolean };

export function ProjectTitle({ project }: { project: EditorProject }) {
  return (
    <span className="flex flex-wrap items-center gap-2">
      <Badge tone={STATUS_TONE(project.statusCode)}>{PROJECT_STATUSES[project.statusCode] ?? project.statusCode}</Badge>
      <span>
        {PROJECT_TYPES[project.projectTypeId]} · {project.framework?.title}
      </span>
    </span>
  );
}
