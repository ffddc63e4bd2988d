// projects/{projectId}/{tab?}: the project editor (TeamUser). Status 50 opens the review tab.
import { useParams } from "wouter";
import type { CurrentClient } from "../../app/ClientArea";
import { Badge, PageHeader, PageSkeleton } from "../../components/ui";
import { PROJECT_STATUSES, PROJECT_TYPES } from "../../lib/constants";
import { STATUS_TONE } from "../../features/projects";
import { useProject } from "../../features/useProject";

export default function ProjectPage({ client }: { client: CurrentClient }) {
  const params = useParams<{ projectId: string; tab?: string }>();
  const { data: project } = useProject(Number(params.projectId));
  if (!project) return <PageSkeleton />;
  return (
    <div data-client={client.id}>
      <PageHeader
        title={project.projectName}
        subtitle={
          <span className="flex flex-wrap items-center gap-2">
            <Badge tone={STATUS_TONE(project.statusCode)}>{PROJECT_STATUSES[project.statusCode] ?? project.statusCode}</Badge>
            <span>{PROJECT_TYPES[project.projectTypeId]} · {project.framework?.title}</span>
          </span>
        }
      />
    </div>
  );
}
