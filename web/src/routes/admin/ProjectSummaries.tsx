// admin/project-summaries: AI project summaries of every client (type, status, errors) with the
// content on demand and Regenerate (a queued job with progress).
import { useEffect, useState } from "react";
import { Modal } from "../../components/Dialog";
import { Badge, Button, PageHeader, Select } from "../../components/ui";
import { api, type Row } from "../../api/client";
import { DataTable, JobProgress, Pager, Td, act, fmtDate, forClient, keyPath, listenForJobs, useJob, useSet } from "./shared";

const PAGE = 25;
type Summary = Row<
  "AiProjectSummaries",
  "id" | "clientId" | "projectId" | "summaryType" | "status" | "title" | "content" | "error" | "generatedAt",
  {
    client: Row<"Clients", "name"> | null;
    project: Row<"Projects", "projectName"> | null;
  }
>;

export default function ProjectSummaries() {
  const [page, setPage] = useState(0);
  const [status, setStatus] = useState("");
  const [open, setOpen] = useState<Summary | null>(null);
  const { data, isLoading, mutate } = useSet<Summary>("AiProjectSummaries", {
    $select: "id,clientId,projectId,summaryType,status,title,content,error,generatedAt",
    $expand: "client($select=name),project($select=projectName)",
    $orderby: "id desc",
    $count: true,
    $top: PAGE,
    $skip: page * PAGE,
    ...(status ? { $filter: `status eq '${status.replace(/'/g, "''")}'` } : {}),
  });
  const [job, setJob] = useState<{ id: string; label: string } | null>(null);
  const progress = useJob(job?.id ?? null);
  useEffect(listenForJobs, []);
  useEffect(() => {
    if (progress?.status === "done" || progress?.status === "failed") void mutate();
  }, [progress?.status, mutate]);
  async function regenerate(r: Summary) {
    const res = await act(api.POST("/api/v1/AiProjectSummaries({key})/Regenerate", { params: keyPath(r.id), ...forClient(r.clientId) }), "Summary queued", r.title ?? r.summaryType);
    if (res) {
      setJob({ id: res.jobId, label: `Regenerate ${r.title ?? r.summaryType}` });
      void mutate();
    }
  }
  return (
    <div>
      <PageHeader title="Project summaries" subtitle="AI summaries of results, across clients" />
      <div className="mb-4 max-w-48">
        <label htmlFor="ps-status" className="sr-only">
          Status
        </label>
        <Select
          id="ps-status"
          value={status}
          onChange={(e) => {
            setStatus(e.target.value);
            setPage(0);
          }}
        >
          <option value="">All statuses</option>
          {["Pending", "Running", "Ready", "Failed"].map((s) => (
            <option key={s} value={s}>
              {s}
            </option>
          ))}
        </Select>
      </div>
      {job && progress ? (
        <div className="mb-4">
          <JobProgress label={job.label} job={progress} />
        </div>
      ) : null}
      <DataTable
        caption="Project summaries"
        head={["Summary", "Project", "Team", "Status", "Generated", ""]}
        rows={data?.value}
        isLoading={isLoading}
        empty="No project summaries yet"
        render={(r) => (
          <tr key={r.id}>
            <Td>
              <p className="font-medium text-ink-900">{r.title ?? r.summaryType}</p>
              <p className="text-xs text-ink-500">{r.summaryType}</p>
            </Td>
            <Td>{r.project?.projectName ?? `#${r.projectId}`}</Td>
            <Td>{r.client?.name}</Td>
            <Td>
              <Badge tone={r.status === "Ready" ? "green" : r.status === "Failed" ? "red" : "blue"}>{r.status}</Badge>
              {r.error ? <p className="mt-1 text-xs text-rose-700">{r.error}</p> : null}
            </Td>
            <Td className="whitespace-nowrap">{fmtDate(r.generatedAt)}</Td>
            <Td>
              <div className="flex justify-end gap-2">
                <Button size="sm" variant="ghost" disabled={!r.content} onClick={() => setOpen(r)} aria-label={`Read summary ${r.id}`}>
                  Read
                </Button>
                <Button size="sm" variant="secondary" onClick={() => void regenerate(r)} aria-label={`Regenerate summary ${r.id}`}>
                  Regenerate
                </Button>
              </div>
            </Td>
          </tr>
        )}
      />
      <Pager page={page} pageSize={PAGE} total={data?.["@odata.count"] ?? 0} onPage={setPage} />
      {open ? (
        <Modal open onClose={() => setOpen(null)} size="lg" title={open.title ?? open.summaryType} footer={<Button onClick={() => setOpen(null)}>Close</Button>}>
          <div className="max-h-96 overflow-auto whitespace-pre-wrap">{open.content}</div>
        </Modal>
      ) : null}
    </div>
  );
}
