// Test info: the project's set-up at a glance and each test option's preview (file and description).
import { useState } from "react";
import { Modal } from "../../../components/Dialog";
import { Button } from "../../../components/ui";
import { FRAMEWORKS, PROJECT_STATUSES, PROJECT_TYPES } from "../../../lib/constants";
import { useResults, type TestOption } from "../../../features/results/context";
import { useFileUrls } from "../../../features/projects-editor/data";
import { designName, isSplitCell } from "../../../features/design";
import { ConceptImage } from "../../../features/results/conceptImage";

/** A test option's description and file: the row stores the file's key; its link is signed by ProjectFileUrls. */
export function TestOptionPreview({ option, signedUrl, onClose }: { option: TestOption; signedUrl?: string; onClose: () => void }) {
  const f = option.file;
  const isImage = !!signedUrl && (!f?.fileType || f.fileType.startsWith("image"));
  return (
    <Modal
      open
      onClose={onClose}
      title={option.conceptText}
      size="lg"
      footer={
        <Button variant="secondary" onClick={onClose}>
          Close
        </Button>
      }
    >
      {isImage ? <img src={signedUrl} alt={`Test option: ${option.conceptText}`} className="mb-3 max-h-96 w-full rounded-lg object-contain" /> : null}
      {signedUrl && !isImage ? (
        <p className="mb-3">
          <a className="text-brand-700 underline" href={signedUrl} target="_blank" rel="noreferrer">
            Open the file
          </a>
        </p>
      ) : null}
      <p className="whitespace-pre-wrap">{option.conceptDescription || "No description."}</p>
    </Modal>
  );
}

export default function InfoPanel() {
  const { project, testOptions, questions } = useResults();
  const [preview, setPreview] = useState<TestOption | null>(null);
  const { data: files } = useFileUrls(project.id);
  const rows: [string, string][] = [
    ["Type", PROJECT_TYPES[project.projectTypeId] ?? String(project.projectTypeId)],
    ["Framework", project.framework?.title ?? (project.frameworkId ? (FRAMEWORKS[project.frameworkId] ?? String(project.frameworkId)) : "—")],
    ["Status", PROJECT_STATUSES[project.statusCode] ?? String(project.statusCode)],
    ["Design", designName(isSplitCell(project))],
    [
      "Markets",
      project.projectsRegions
        .map((r) => r.region?.regionName)
        .filter(Boolean)
        .join(", ") || "—",
    ],
    ["Created", new Date(project.createdAt).toLocaleDateString()],
    ["Completed", project.completedAt ? new Date(project.completedAt).toLocaleDateString() : "—"],
    ["Questions", String(questions.length)],
  ];
  return (
    <div className="space-y-5 text-sm">
      <dl className="grid grid-cols-[7rem_1fr] gap-x-3 gap-y-2">
        {rows.map(([k, v]) => (
          <div key={k} className="contents">
            <dt className="text-ink-500">{k}</dt>
            <dd className="text-ink-900">{v}</dd>
          </div>
        ))}
      </dl>
      {project.researchNote ? <p className="rounded-lg bg-ink-50 p-3 text-ink-700">{project.researchNote}</p> : null}
      <div>
        <h3 className="mb-2 font-semibold text-ink-900">Test options</h3>
        <ul className="space-y-2">
          {testOptions.map((o) => (
            <li key={o.id} className="flex items-start justify-between gap-2 rounded-lg border border-ink-200 p-3">
              <ConceptImage testOptionId={o.id} name={o.conceptText} size="sm" />
              <div className="min-w-0 flex-1">
                <p className="font-medium text-ink-900">{o.conceptText}</p>
                {o.conceptDescription ? <p className="line-clamp-2 text-ink-600">{o.conceptDescription}</p> : null}
              </div>
              <Button size="sm" variant="secondary" onClick={() => setPreview(o)} aria-label={`Preview ${o.conceptText}`}>
                Preview
              </Button>
            </li>
          ))}
        </ul>
      </div>
      {preview ? (
        <TestOptionPreview option={preview} signedUrl={files?.value.find((u) => u.source === "testOption" && u.testOptionId === preview.id)?.signedUrl} onClose={() => setPreview(null)} />
      ) : null}
    </div>
  );
}
