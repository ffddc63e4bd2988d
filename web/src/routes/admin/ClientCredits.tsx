// admin/clients/{clientId}/credits: the client's ledger and balance; staff adjustments (project
// adjustments 80-85 and 90 name a project), freebies (86), HubSpot deals (1) and transfers to
// another client of the same enterprise (MakeCreditTransfer). Every change is audited.
import { useState } from "react";
import { Link } from "wouter";
import { Modal } from "../../components/Dialog";
import { Badge, Button, Card, Field, Input, PageHeader, Select } from "../../components/ui";
import { api, type Row, type Schemas } from "../../api/client";
import { AuditLog, DataTable, Pager, Td, act, fmtCredits, fmtDate, forClient, oneOf, useBalances, useClients, useSet } from "./shared";

const PAGE = 50;
const KINDS: Record<string, { label: string; types: Schemas["NewCreditLog"]["type"][] }> = {
  adjustment: { label: "Adjustment", types: [80, 81, 82, 83, 84, 85, 90] },
  freebie: { label: "Freebie", types: [86] },
  deal: { label: "Deal", types: [1] },
};
const TYPE_NAMES: Record<number, string> = {
  1: "HubspotDeal",
  2: "CBSubscription",
  30: "PendingSurveyRun",
  40: "SurveyRun",
  80: "AddRunAdj",
  81: "StdQuestionAdj",
  82: "AddProfilerAdj",
  83: "MakeGoodAdj",
  84: "BoostedSampleAdj",
  85: "MonadicAdj",
  86: "Freebie",
  90: "OtherAdj",
  130: "PendingTransfer",
  140: "Transfer",
};

type Log = Row<
  "CreditLogs",
  "id" | "type" | "creditAmount" | "projectId" | "description" | "hubspotDealId" | "createdAt",
  {
    project: Row<"Projects", "projectName"> | null;
    createdByUser: Row<"Users", "email"> | null;
    relatedClient: Row<"Clients", "name"> | null;
  }
>;

export default function ClientCredits({ clientId }: { clientId: number }) {
  const [page, setPage] = useState(0);
  const [dialog, setDialog] = useState<"adjustment" | "freebie" | "deal" | "transfer" | null>(null);
  const [audit, setAudit] = useState(0);
  const { byId, clients } = useClients();
  const client = byId.get(clientId);
  const { balances, mutate: refreshBalance } = useBalances();
  const query = {
    $select: "id,type,creditAmount,projectId,description,hubspotDealId,createdAt",
    $expand: "project($select=projectName),createdByUser($select=email),relatedClient($select=name)",
    $filter: `clientId eq ${clientId}`,
    $orderby: "createdAt desc,id desc",
    $count: true,
    $top: PAGE,
    $skip: page * PAGE,
  };
  const { data, isLoading, mutate } = useSet<Log>("CreditLogs", query, clientId);
  const done = () => {
    void mutate();
    void refreshBalance();
    setAudit((n) => n + 1);
  };
  return (
    <div>
      <p className="mb-2 text-sm">
        <Link href="/clients" className="text-brand-700 hover:underline">
          ← Clients
        </Link>
      </p>
      <PageHeader
        title={`Credits: ${client?.name ?? `client ${clientId}`}`}
        subtitle="The ledger: every charge, refund, adjustment and transfer"
        actions={
          <>
            <Button onClick={() => setDialog("adjustment")}>Add adjustment</Button>
            <Button variant="secondary" onClick={() => setDialog("freebie")}>
              Freebie
            </Button>
            <Button variant="secondary" onClick={() => setDialog("deal")}>
              Deal
            </Button>
            <Button variant="secondary" onClick={() => setDialog("transfer")}>
              Transfer
            </Button>
          </>
        }
      />
      <div className="mb-6 grid gap-4 sm:grid-cols-2">
        <Card>
          <p className="text-sm text-ink-600">Balance</p>
          <p className="mt-1 text-3xl font-semibold text-ink-900" data-testid="credit-balance">
            {fmtCredits(balances.get(clientId) ?? 0)}
          </p>
        </Card>
        <Card>
          <p className="text-sm text-ink-600">Ledger rows</p>
          <p className="mt-1 text-3xl font-semibold text-ink-900">{data?.["@odata.count"] ?? "—"}</p>
        </Card>
      </div>
      <DataTable
        caption="Credit ledger"
        head={["Date", "Type", "Amount", "Project", "Note", "By"]}
        rows={data?.value}
        isLoading={isLoading}
        empty="No credit logs yet"
        render={(l) => (
          <tr key={l.id}>
            <Td className="whitespace-nowrap">{fmtDate(l.createdAt)}</Td>
            <Td>
              <Badge tone={l.type >= 80 && l.type <= 90 ? "amber" : l.type === 140 || l.type === 130 ? "blue" : "neutral"}>
                {l.type} {TYPE_NAMES[l.type] ?? ""}
              </Badge>
            </Td>
            <Td className={`whitespace-nowrap font-medium ${l.creditAmount < 0 ? "text-rose-700" : "text-emerald-700"}`}>
              {l.creditAmount > 0 ? "+" : ""}
              {fmtCredits(l.creditAmount)}
            </Td>
            <Td className="min-w-40">{l.project ? `${l.project.projectName} (#${l.projectId})` : "—"}</Td>
            <Td className="min-w-56">
              {[l.description, l.hubspotDealId ? `deal ${l.hubspotDealId}` : null, l.relatedClient ? `with ${l.relatedClient.name}` : null].filter(Boolean).join(" · ") || "—"}
            </Td>
            <Td>{l.createdByUser?.email ?? "system"}</Td>
          </tr>
        )}
      />
      <Pager page={page} pageSize={PAGE} total={data?.["@odata.count"] ?? 0} onPage={setPage} />
      {dialog === "transfer" ? (
        <TransferDialog clientId={clientId} clients={(clients ?? []).filter((c) => c.id !== clientId)} onClose={() => setDialog(null)} onDone={done} />
      ) : dialog ? (
        <LogDialog clientId={clientId} kind={dialog} onClose={() => setDialog(null)} onDone={done} />
      ) : null}
      <AuditLog filter={`entityType eq 'CreditLog' and clientId eq ${clientId}`} title="Credit changes" refreshKey={audit} />
    </div>
  );
}

function LogDialog({ clientId, kind, onClose, onDone }: { clientId: number; kind: keyof typeof KINDS; onClose: () => void; onDone: () => void }) {
  const k = KINDS[kind]!;
  const [type, setType] = useState(k.types[0]!);
  const [amount, setAmount] = useState("");
  const [projectId, setProjectId] = useState("");
  const [description, setDescription] = useState("");
  const [deal, setDeal] = useState("");
  const [busy, setBusy] = useState(false);
  const { data: projects } = useSet<Row<"Projects", "id" | "projectName">>(
    "Projects",
    kind === "adjustment" ? { $select: "id,projectName", $filter: `clientId eq ${clientId}`, $orderby: "createdAt desc", $top: 200 } : null,
    clientId,
  );
  const projectType = kind === "adjustment"; // SPEC 3: 80-85 and 90 are project adjustments
  async function save() {
    setBusy(true);
    const body = {
      type,
      creditAmount: Number(amount),
      clientId,
      projectId: projectId ? Number(projectId) : null,
      description: description.trim() || null,
      hubspotDealId: kind === "deal" ? deal.trim() || null : null,
    };
    const r = await act(api.POST("/api/v1/CreditLogs", { body, ...forClient(clientId) }), `${k.label} added`, `${body.creditAmount > 0 ? "+" : ""}${body.creditAmount} credits (${TYPE_NAMES[type]})`);
    setBusy(false);
    if (r) {
      onDone();
      onClose();
    }
  }
  const valid = amount.trim() !== "" && Number.isFinite(Number(amount)) && Number(amount) !== 0 && (!projectType || projectId !== "");
  return (
    <Modal
      open
      onClose={onClose}
      title={`Add ${k.label.toLowerCase()}`}
      footer={
        <>
          <Button variant="secondary" onClick={onClose}>
            Cancel
          </Button>
          <Button busy={busy} disabled={!valid} onClick={() => void save()}>
            Add
          </Button>
        </>
      }
    >
      <div className="space-y-4">
        {k.types.length > 1 ? (
          <Field id="l-type" label="Type">
            <Select id="l-type" value={type} onChange={(e) => setType(oneOf(k.types, e.target.value) ?? type)}>
              {k.types.map((t) => (
                <option key={t} value={t}>
                  {t} {TYPE_NAMES[t]}
                </option>
              ))}
            </Select>
          </Field>
        ) : null}
        <Field id="l-amount" label="Credits" hint="Positive adds credits, negative takes them away">
          <Input id="l-amount" inputMode="decimal" value={amount} onChange={(e) => setAmount(e.target.value)} />
        </Field>
        {kind === "adjustment" ? (
          <Field id="l-project" label={projectType ? "Project" : "Project (optional)"}>
            <Select id="l-project" value={projectId} onChange={(e) => setProjectId(e.target.value)}>
              <option value="">—</option>
              {projects?.value.map((p) => (
                <option key={p.id} value={p.id}>
                  {p.projectName} (#{p.id})
                </option>
              ))}
            </Select>
          </Field>
        ) : null}
        {kind === "deal" ? (
          <Field id="l-deal" label="HubSpot deal id">
            <Input id="l-deal" value={deal} onChange={(e) => setDeal(e.target.value)} />
          </Field>
        ) : null}
        <Field id="l-note" label="Note">
          <Input id="l-note" value={description} onChange={(e) => setDescription(e.target.value)} />
        </Field>
      </div>
    </Modal>
  );
}

function TransferDialog({ clientId, clients, onClose, onDone }: { clientId: number; clients: { id: number; name: string; tier: string }[]; onClose: () => void; onDone: () => void }) {
  const [to, setTo] = useState("");
  const [amount, setAmount] = useState("");
  const [note, setNote] = useState("");
  const [busy, setBusy] = useState(false);
  async function save() {
    setBusy(true);
    const r = await act(
      api.POST("/api/v1/CreditLogs/MakeCreditTransfer", { body: { fromClientId: clientId, toClientId: Number(to), amount: Number(amount), note: note.trim() || null }, ...forClient(clientId) }),
      "Credits transferred",
    );
    setBusy(false);
    if (r) {
      onDone();
      onClose();
    }
  }
  return (
    <Modal
      open
      onClose={onClose}
      title="Transfer credits"
      footer={
        <>
          <Button variant="secondary" onClick={onClose}>
            Cancel
          </Button>
          <Button busy={busy} disabled={!to || !(Number(amount) > 0)} onClick={() => void save()}>
            Transfer
          </Button>
        </>
      }
    >
      <div className="space-y-4">
        <Field id="x-to" label="To client" hint="A client of the same enterprise">
          <Select id="x-to" value={to} onChange={(e) => setTo(e.target.value)}>
            <option value="">—</option>
            {clients.map((c) => (
              <option key={c.id} value={c.id}>
                {c.name} ({c.tier})
              </option>
            ))}
          </Select>
        </Field>
        <Field id="x-amount" label="Credits">
          <Input id="x-amount" inputMode="decimal" value={amount} onChange={(e) => setAmount(e.target.value)} />
        </Field>
        <Field id="x-note" label="Note">
          <Input id="x-note" value={note} onChange={(e) => setNote(e.target.value)} />
        </Field>
      </div>
    </Modal>
  );
}
