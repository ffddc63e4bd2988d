// admin/approvals: the queue of projects waiting on an approval step (50 Awaiting Approval, 100
// Submitted, 200 Reviewing Questions) with the charge and the team's balance; Approve (one step),
// SuperApprove (straight to Awaiting Survey, super admins), Decline with a reason; and each market's
// sample (WaveSample: the simulated panel or a sample supplier, chosen before approval).
import { useState } from "react";
import { ActionFooter, Modal } from "../../components/Dialog";
import { Badge, Button, Field, PageHeader, Textarea } from "../../components/ui";
import { STATUS_TONE } from "../../features/projects";
import { PROJECT_STATUSES, PROJECT_TYPES } from "../../lib/constants";
import { useMe } from "../../state/app";
import { api, type Row } from "../../api/client";
import { AuditLog, DataTable, Td, act, fmtCredits, fmtDate, forClient, keyPath, useBalances, useSet } from "./shared";
import { toast } from "../../components/toast";
import { useWaveSuppliers, WaveSample, type Wave } from "./WaveSample";

type Waiting = Row<
  "Projects",
  "id" | "clientId" | "projectName" | "projectTypeId" | "statusCode" | "submittedAt",
  {
    client: Row<"Clients", "name"> | null;
    createdByUser: Row<"Users", "email"> | null;
    creditLogs: Row<"CreditLogs", "creditAmount">[];
    projectSchedules: Wave[];
  }
>;

export default function Approvals() {
  const { data: me } = useMe(null);
  const [declining, setDeclining] = useState<Waiting | null>(null);
  const [busy, setBusy] = useState<string | null>(null);
  const [audit, setAudit] = useState(0);
  const query = {
    $select: "id,clientId,projectName,projectTypeId,statusCode,submittedAt",
    $expand:
      "client($select=name),createdByUser($select=email),creditLogs($select=creditAmount),projectSchedules($select=id,regionId,isCustomerPanel,sampleSupplierId,surveyRunId;$expand=region($select=regionName))",
    $filter: "statusCode in (50,100,200)",
    $orderby: "submittedAt",
    $top: 200,
  };
  const { data, isLoading, mutate } = useSet<Waiting>("Projects", query);
  const { balances, mutate: refreshBalances } = useBalances();
  const suppliers = useWaveSuppliers();

  async function run(p: Waiting, action: "Approve" | "SuperApprove" | "Decline", reason?: string) {
    setBusy(`${action}-${p.id}`);
    const r = await act(api.POST(`/api/v1/Projects({key})/${action}`, { params: keyPath(p.id), body: reason ? { reason } : {}, ...forClient(p.clientId) }));
    setBusy(null);
    if (!r) return false;
    toast.success(
      action === "Decline" ? "Project declined" : "Project approved",
      `${r.projectName} is now ${r.status}.${r.balanceAfter !== undefined && r.balanceAfter !== null ? ` ${p.client?.name ?? "The team"}'s balance: ${fmtCredits(r.balanceAfter)} credits.` : ""}`,
    );
    void mutate();
    void refreshBalances();
    setAudit((n) => n + 1);
    return true;
  }

  return (
    <div>
      <PageHeader title="Approvals" subtitle="Projects waiting for an approval step, oldest submission first" />
      <DataTable
        caption="Approval queue"
        head={["Project", "Team", "Status", "Charge", "Team balance", "Submitted", ""]}
        rows={data?.value}
        isLoading={isLoading}
        empty="Nothing waits for approval"
        render={(p) => {
          const charge = -p.creditLogs.reduce((s, c) => s + Number(c.creditAmount), 0);
          return (
            <tr key={p.id}>
              <Td className="min-w-52">
                <p className="font-medium text-ink-900">{p.projectName}</p>
                <p className="text-xs text-ink-500">
                  #{p.id} · {PROJECT_TYPES[p.projectTypeId]} · {p.createdByUser?.email ?? "—"}
                </p>
                <WaveSample project={p} waves={p.projectSchedules} suppliers={suppliers} onChanged={() => void mutate()} />
              </Td>
              <Td>{p.client?.name ?? p.clientId}</Td>
              <Td>
                <Badge tone={STATUS_TONE(p.statusCode)}>{PROJECT_STATUSES[p.statusCode]}</Badge>
              </Td>
              <Td className="whitespace-nowrap">{fmtCredits(charge)}</Td>
              <Td className="whitespace-nowrap">
                <span data-testid={`balance-${p.clientId}`}>{fmtCredits(balances.get(p.clientId) ?? 0)}</span>
              </Td>
              <Td>{fmtDate(p.submittedAt)}</Td>
              <Td>
                {/* Wraps rather than clips: three buttons do not fit beside the columns at 1440 px. */}
                <div className="flex flex-wrap justify-end gap-2 [&>button]:whitespace-nowrap">
                  <Button size="sm" busy={busy === `Approve-${p.id}`} onClick={() => void run(p, "Approve")} aria-label={`Approve ${p.projectName}`}>
                    Approve
                  </Button>
                  {me?.isSuperAdmin ? (
                    <Button size="sm" variant="secondary" busy={busy === `SuperApprove-${p.id}`} onClick={() => void run(p, "SuperApprove")} aria-label={`Super approve ${p.projectName}`}>
                      Super approve
                    </Button>
                  ) : null}
                  <Button size="sm" variant="ghost" onClick={() => setDeclining(p)} aria-label={`Decline ${p.projectName}`}>
                    Decline
                  </Button>
                </div>
              </Td>
            </tr>
          );
        }}
      />
      {declining ? <DeclineDialog project={declining} onClose={() => setDeclining(null)} onDecline={(reason) => run(declining, "Decline", reason)} /> : null}
      <AuditLog filter="entityType eq 'Project' and event in ('StatusChanged','SubmittedForSurvey')" title="Recent status changes" refreshKey={audit} />
    </div>
  );
}

function DeclineDialog({ project, onClose, onDecline }: { project: Waiting; onClose: () => void; onDecline: (reason: string) => Promise<boolean> }) {
  const [reason, setReason] = useState("");
  return (
    <Modal
      open
      onClose={onClose}
      title={`Decline ${project.projectName}`}
      footer={<ActionFooter onClose={onClose} label="Decline" variant="danger" disabled={!reason.trim()} onAction={() => onDecline(reason.trim())} />}
    >
      <Field id="decline-reason" label="Reason" hint="Sent to whoever submitted the project">
        <Textarea id="decline-reason" rows={4} value={reason} onChange={(e) => setReason(e.target.value)} />
      </Field>
    </Modal>
  );
}
