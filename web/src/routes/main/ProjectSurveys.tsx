// project-surveys/{projectId}: a submitted project while it is reviewed and waits for its survey
// (statuses 200 to 399).
import { useParams } from "wouter";
import type { CurrentClient } from "../../app/ClientArea";
import { Badge, PageHeader, PageSkeleton } from "../../components/ui";
import { PROJECT_STATUSES } from "../../lib/constants";
import { STATUS_TONE } from "../../features/projects";
import { useProject } from "../../features/useProject";

export default function ProjectSurveys({ client }: { client: CurrentClient }) {
  const params = useParams<{ projectId: string }>();
  const { data: project } = useProject(Number(params.projectId));
  if (!project) return <PageSkeleton />;
  return (
    <div data-client={client.id}>
      <PageHeader title={project.projectName} subtitle={<Badge tone={STATUS_TONE(project.statusCode)}>{PROJECT_STATUSES[project.statusCode] ?? project.statusCode}</Badge>} />
    </div>
  );
}
