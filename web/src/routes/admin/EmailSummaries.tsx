// admin/email-summaries: the AI-written result emails of every client (subject, status, recipients,
// the prompt version that wrote them), newest first, with the body on demand.
import { useState } from "react";
import { Modal } from "../../components/Dialog";
import { Badge, Button, PageHeader, Select } from "../../components/ui";
import type { Row } from "../../api/client";
import { DataTable, Pager, Td, fmtDate, useSet } from "./shared";

const PAGE = 25;
type Summary = Row<
  "ProjectEmailSummaries",
  "id" | "projectId" | "subject" | "body" | "status" | "recipients" | "sentAt" | "createdAt",
  {
    client: Row<"Clients", "name"> | null;
    project: Row<"Projects", "projectName"> | null;
    promptVersion: Row<"PromptVersions", "versionNumber" | "promptId"> | null;
  }
>;

export default function EmailSummaries() {
  const [page, setPage] = useState(0);
  const [status, setStatus] = useState("");
  const [open, setOpen] = useState<Summary | null>(null);
  const { data, isLoading } = useSet<Summary>("ProjectEmailSummaries", {
    $expand: "client($select=name),project($select=projectName),promptVersion($select=versionNumber,promptId)",
    $orderby: "createdAt desc",
    $count: true,
    $top: PAGE,
    $skip: page * PAGE,
    ...(status ? { $filter: `status eq '${status.replace(/'/g, "''")}'` } : {}),
  });
  return (
    <div>
      <PageHeader title="Email summaries" subtitle="Result summaries emailed to teams" />
      <div className="mb-4 max-w-48">
        <label htmlFor="es-status" className="sr-only">
          Status
        </label>
        <Select
          id="es-status"
          value={status}
          onChange={(e) => {
            setStatus(e.target.value);
            setPage(0);
          }}
        >
          <option value="">All statuses</option>
          {["Draft", "Approved", "Sent", "Failed"].map((s) => (
            <option key={s} value={s}>
              {s}
            </option>
          ))}
        </Select>
      </div>
      <DataTable
        caption="Email summaries"
        head={["Subject", "Project", "Team", "Status", "Recipients", "Sent", ""]}
        rows={data?.value}
        isLoading={isLoading}
        empty="No email summaries yet"
        render={(r) => (
          <tr key={r.id}>
            <Td className="font-medium text-ink-900">{r.subject}</Td>
            <Td>{r.project?.projectName ?? `#${r.projectId}`}</Td>
            <Td>{r.client?.name}</Td>
            <Td>
              <Badge tone={r.status === "Sent" ? "green" : r.status === "Failed" ? "red" : "neutral"}>{r.status}</Badge>
            </Td>
            <Td>{Array.isArray(r.recipients) ? r.recipients.length : 0}</Td>
            <Td className="whitespace-nowrap">{fmtDate(r.sentAt)}</Td>
            <Td className="text-right">
              <Button size="sm" variant="ghost" onClick={() => setOpen(r)} aria-label={`Read ${r.subject}`}>
                Read
              </Button>
            </Td>
          </tr>
        )}
      />
      <Pager page={page} pageSize={PAGE} total={data?.["@odata.count"] ?? 0} onPage={setPage} />
      {open ? (
        <Modal open onClose={() => setOpen(null)} size="lg" title={open.subject} footer={<Button onClick={() => setOpen(null)}>Close</Button>}>
          <p className="mb-2 text-xs text-ink-500">
            To {Array.isArray(open.recipients) ? open.recipients.join(", ") : "—"}
            {open.promptVersion ? ` · prompt ${open.promptVersion.promptId} v${open.promptVersion.versionNumber}` : ""}
          </p>
          <div className="max-h-96 overflow-auto whitespace-pre-wrap">{open.body}</div>
        </Modal>
      ) : null}
    </div>
  );
}
