// projects/{projectId}/{tab?}: the project editor (TeamUser). A Draft is edited tab by tab (set-up,
// markets and targets, test options, questions, add-ons, scheduling) above a bar that shows the
// cost before anything is spent; status 50 opens the review tab; later statuses show the set-up
// read-only (a super admin's 'view test setup'). Phones go to /common/mobile.
import { useEffect, type ReactNode } from "react";
import { Link, Redirect, useLocation, useParams, useSearch } from "wouter";
import type { CurrentClient } from "../../state/client";
import { PageHeader, PageSkeleton, TabLinks } from "../../components/ui";
import { projectLink } from "../../lib/projectLinks";
import { isEditable, useEditorProject } from "../../features/projects-editor/data";
import { EDITOR_TABS, ProjectTitle, type TabProps } from "./editor/shared";
import { ProjectActions } from "./editor/ProjectActions";
import { SubmitBar } from "./editor/SubmitBar";
import { SetupTab } from "./editor/SetupTab";
import { MarketsTab } from "./editor/MarketsTab";
import { TestOptionsTab } from "./editor/TestOptionsTab";
import { QuestionsTab } from "./editor/QuestionsTab";
import { AddOnsTab } from "./editor/AddOnsTab";
import { SchedulingTab } from "./editor/SchedulingTab";
import { ReviewPage } from "./editor/ReviewPage";
import { PreviewPage } from "./editor/PreviewPage";
import { SharedProjectNote, useProjectAccess } from "../../features/access";

/** Below this width the editor sends to /common/mobile (Tailwind's sm breakpoint). */
export const EDITOR_MIN_WIDTH = 640;

const TAB_VIEWS: Record<string, (p: TabProps) => ReactNode> = {
  setup: (p) => <SetupTab {...p} />,
  markets: (p) => <MarketsTab {...p} />,
  "test-options": (p) => <TestOptionsTab {...p} />,
  questions: (p) => <QuestionsTab {...p} />,
  "add-ons": (p) => <AddOnsTab {...p} />,
  scheduling: (p) => <SchedulingTab {...p} />,
};

/** The editor on a phone goes to the mobile page; the review page (status 50) works on a phone. */
function usePhoneRedirect(editor: boolean) {
  const [path, navigate] = useLocation();
  const search = useSearch();
  useEffect(() => {
    // ?desktop=1 is the mobile page's 'Open anyway'.
    if (editor && window.innerWidth < EDITOR_MIN_WIDTH && !new URLSearchParams(search).has("desktop")) {
      const from = `${location.pathname}?desktop=1`;
      navigate(`~/common/mobile?from=${encodeURIComponent(from)}`, { replace: true });
    }
  }, [editor, path, search, navigate]);
}

export default function ProjectPage({ client }: { client: CurrentClient }) {
  const params = useParams<{ projectId: string; tab?: string }>();
  const projectId = Number(params.projectId);
  const { data: project } = useEditorProject(projectId);
  const { data: access } = useProjectAccess(projectId);
  // The review page and the respondent preview work on a phone; the editor does not.
  usePhoneRedirect(!!project && project.statusCode !== 50 && params.tab !== "preview");
  if (!project || !access) return <PageSkeleton />;
  const base = `/${client.id}/projects/${project.id}`;
  if (project.statusCode === 50 && params.tab !== "review") return <Redirect to={`~${base}/review`} replace />;
  if (params.tab === "preview") return <PreviewPage client={client} project={project} />;
  if (params.tab === "review") {
    if (project.statusCode !== 50) return <Redirect to={`~${base}`} replace />;
    return <ReviewPage client={client} project={project} />;
  }
  const tab = params.tab && TAB_VIEWS[params.tab] ? params.tab : "setup";
  // Only a Draft is edited, and only by those who may write (not a Viewer, nor a reader of a
  // project shared from another client: it opens read-only, labelled with its owner).
  const editable = isEditable(project) && access.canWrite;
  const later = projectLink(client.id, project);
  return (
    <div className="pb-32">
      <PageHeader
        title={project.projectName}
        subtitle={<ProjectTitle project={project} />}
        actions={
          <>
            {!access.shared ? (
              <Link href={`~${base}/preview`} className="rounded-lg px-2.5 py-1.5 text-sm font-medium text-brand-700 underline">
                Preview as a respondent
              </Link>
            ) : null}
            {access.canWrite ? <ProjectActions client={client} project={project} /> : null}
          </>
        }
      />
      <SharedProjectNote access={access} />
      {!access.canWrite && !access.shared ? (
        <p role="note" className="mb-4 rounded-lg bg-sky-50 px-4 py-3 text-sm text-sky-900">
          You can read this project's set-up; your role does not change projects.
        </p>
      ) : !editable && access.canWrite ? (
        <p role="note" className="mb-4 rounded-lg bg-sky-50 px-4 py-3 text-sm text-sky-900">
          {project.statusCode < 200 ? "This project has been submitted: its set-up is fixed. Unsubmit it to make changes." : "This project is past set-up; you are looking at its test set-up."}{" "}
          {project.statusCode >= 200 && later.kind === "navigate" && later.href !== base ? (
            <Link className="font-medium underline" href={`~${later.href}`}>
              Go to where it stands
            </Link>
          ) : null}
        </p>
      ) : null}
      <TabLinks label="Project set-up" active={tab} tabs={EDITOR_TABS.map((t) => ({ id: t.id, label: t.label, href: `~${base}${t.id === "setup" ? "" : `/${t.id}`}` }))} />
      {TAB_VIEWS[tab]!({ client, project, editable, canWrite: access.canWrite })}
      {project.statusCode < 200 && access.canWrite ? <SubmitBar client={client} project={project} /> : null}
    </div>
  );
}
