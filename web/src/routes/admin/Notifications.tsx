// admin/notifications: send a test notification to a user (the TestNotification command, a queued
// job with progress) and the notifications sent lately across users.
import { useEffect, useState } from "react";
import { Badge, Button, Card, Field, Input, PageHeader, Select } from "../../components/ui";
import { api, type Row } from "../../api/client";
import { AuditLog, DataTable, JobProgress, Pager, Td, act, listenForJobs, fmtDate, oneOf, useJob, useSet } from "./shared";

const PAGE = 25;
const TYPES = [
  "SurveySubmittedForApproval",
  "SurveyApproved",
  "SurveyApprovalDeclined",
  "ProjectSentOutForSurvey",
  "ProjectReady",
  "PasswordReset",
  "UserAddedToTeam",
  "CustomPanelProjectReadyForSurvey",
  "ScheduleBlocked",
  "ProjectShared",
] as const;
type Sent = Row<"Notifications", "id" | "title" | "body" | "readAt" | "createdAt", { user: Row<"Users", "email"> | null; notificationType: Row<"NotificationTypes", "name"> | null }>;

export default function Notifications() {
  const [page, setPage] = useState(0);
  const [email, setEmail] = useState("");
  const [type, setType] = useState<(typeof TYPES)[number]>(TYPES[0]);
  const [title, setTitle] = useState("");
  const [jobId, setJobId] = useState<string | null>(null);
  const job = useJob(jobId);
  useEffect(listenForJobs, []);
  const [audit, setAudit] = useState(0);
  const { data: users } = useSet<Row<"Users", "id" | "email">>(
    "Users",
    email.includes("@") ? { $select: "id,email", $filter: `tolower(email) eq '${email.trim().toLowerCase().replace(/'/g, "''")}'`, $top: 1 } : null,
  );
  const user = users?.value[0];
  const { data, isLoading, mutate } = useSet<Sent>("Notifications", {
    $select: "id,title,body,readAt,createdAt",
    $expand: "user($select=email),notificationType($select=name)",
    $orderby: "id desc",
    $count: true,
    $top: PAGE,
    $skip: page * PAGE,
  });
  async function send() {
    if (!user) return;
    const r = await act(api.POST("/api/CommandRunner/TestNotification", { body: { userId: user.id, type, ...(title.trim() ? { title: title.trim() } : {}) } }), "Test notification queued", user.email);
    if (r) {
      setJobId(r.jobId);
      setAudit((n) => n + 1);
    }
  }
  useEffect(() => {
    if (job?.status !== "done") return;
    void mutate();
    setAudit((n) => n + 1);
  }, [job?.status, mutate]);
  return (
    <div>
      <PageHeader title="Notifications" subtitle="Test notifications and what users were sent" />
      <Card title="Send a test notification" className="mb-6">
        <div className="grid gap-4 sm:grid-cols-3">
          <Field id="tn-email" label="User email" error={email.includes("@") && users && !user ? "No user with this email" : undefined}>
            <Input id="tn-email" type="email" value={email} onChange={(e) => setEmail(e.target.value)} />
          </Field>
          <Field id="tn-type" label="Type">
            <Select id="tn-type" value={type} onChange={(e) => setType(oneOf(TYPES, e.target.value) ?? type)}>
              {TYPES.map((t) => (
                <option key={t} value={t}>
                  {t}
                </option>
              ))}
            </Select>
          </Field>
          <Field id="tn-title" label="Title (optional)">
            <Input id="tn-title" value={title} onChange={(e) => setTitle(e.target.value)} />
          </Field>
        </div>
        <div className="mt-4 flex flex-col gap-4 sm:flex-row sm:items-center">
          <Button disabled={!user} onClick={() => void send()}>
            Send test notification
          </Button>
          {job ? (
            <div className="flex-1">
              <JobProgress label="TestNotification" job={job} />
            </div>
          ) : null}
        </div>
      </Card>
      <DataTable
        caption="Notifications"
        head={["Notification", "Type", "User", "Sent", "Read"]}
        rows={data?.value}
        isLoading={isLoading}
        empty="No notifications yet"
        render={(n) => (
          <tr key={n.id}>
            <Td>
              <p className="font-medium text-ink-900">{n.title}</p>
              {n.body ? <p className="text-xs text-ink-500">{n.body}</p> : null}
            </Td>
            <Td>
              <Badge>{n.notificationType?.name}</Badge>
            </Td>
            <Td>{n.user?.email}</Td>
            <Td className="whitespace-nowrap">{fmtDate(n.createdAt)}</Td>
            <Td className="whitespace-nowrap">{n.readAt ? fmtDate(n.readAt) : <Badge tone="amber">Unread</Badge>}</Td>
          </tr>
        )}
      />
      <Pager page={page} pageSize={PAGE} total={data?.["@odata.count"] ?? 0} onPage={setPage} />
      <AuditLog filter="entityType eq 'Command'" title="Command runs" refreshKey={audit} />
    </div>
  );
}
