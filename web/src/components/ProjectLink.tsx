// A link to a project that follows SPEC 2's status rules: statuses 400-499 open the 'Survey in
// progress' modal instead of navigating (with the super-admin buttons).
import { useState, type ReactNode } from "react";
import { Link, useLocation } from "wouter";
import { useMe } from "../state/app";
import { projectLink } from "../lib/projectLinks";
import { Modal } from "./Dialog";
import { Button } from "./ui";

export const SURVEY_IN_PROGRESS_TITLE = "Survey in progress";
export const SURVEY_IN_PROGRESS_TEXT = "Sit tight, results will be available soon. It can take up to 24 hours to gather and analyze results.";

export function SurveyInProgressModal({ open, onClose, teamId, project }: { open: boolean; onClose: () => void; teamId: number; project: { id: number; statusCode: number } }) {
  const { data: me } = useMe();
  const [, navigate] = useLocation();
  return (
    <Modal
      open={open}
      onClose={onClose}
      title={SURVEY_IN_PROGRESS_TITLE}
      size="sm"
      footer={
        <>
          {me?.isSuperAdmin && project.statusCode > 200 ? (
            <Button variant="secondary" onClick={() => navigate(`~/${teamId}/results/${project.id}`)}>
              Super admin, view result
            </Button>
          ) : null}
          {me?.isSuperAdmin ? (
            <Button variant="secondary" onClick={() => navigate(`~/${teamId}/projects/${project.id}`)}>
              Super admin, view test setup
            </Button>
          ) : null}
          <Button onClick={onClose}>Ok, close</Button>
        </>
      }
    >
      <p>{SURVEY_IN_PROGRESS_TEXT}</p>
    </Modal>
  );
}

/**
 * setupAllowed false (no TeamUser policy: a Viewer): the set-up and survey pages are not theirs
 * (SPEC 2's gate would send them home), so such a project is named, not linked, until its results.
 */
export function ProjectLinkTo({
  teamId,
  project,
  className,
  children,
  setupAllowed = true,
}: {
  teamId: number;
  project: { id: number; statusCode: number };
  className?: string;
  children: ReactNode;
  setupAllowed?: boolean;
}) {
  const [open, setOpen] = useState(false);
  const link = projectLink(teamId, project);
  if (!setupAllowed && link.kind === "navigate" && !link.href.includes("/results/")) {
    return (
      <span className="font-medium text-ink-900">
        {children}
        <span className="ml-2 text-xs font-normal text-ink-500">opens when results are ready</span>
      </span>
    );
  }
  if (link.kind === "navigate") {
    return (
      <Link href={`~${link.href}`} className={className}>
        {children}
      </Link>
    );
  }
  return (
    <>
      <button type="button" className={className} onClick={() => setOpen(true)}>
        {children}
      </button>
      <SurveyInProgressModal open={open} onClose={() => setOpen(false)} teamId={teamId} project={project} />
    </>
  );
}
