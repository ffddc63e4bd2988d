// admin/clients: the client tree (Enterprise > Org > Team) with tier, industry, HubSpot company,
// trial and balance; AdminUpdate, domain verification (ValidateDomainRecord's TXT record) and
// SetupTrialAccount; links to each client's credits.
import { useState } from "react";
import { Link } from "wouter";
import { Modal } from "../../components/Dialog";
import { Badge, Button, Field, Input, PageHeader, Select } from "../../components/ui";
import { INDUSTRIES } from "../../lib/constants";
import { api, type Row, type Schemas } from "../../api/client";
import { AuditLog, DataTable, Td, act, fmtCredits, fmtDate, forClient, keyPath, useBalances, useSet } from "./shared";

type ClientRow = Row<
  "Clients",
  "id" | "name" | "tier" | "parentId" | "industry" | "hsCompanyId" | "domain" | "isTrial" | "trialEndsAt",
  {
    hubspotCompanies: Row<"LinkedClients", "name" | "industry">[];
  }
>;

/** Parents before children, each with its depth. */
function tree(rows: ClientRow[]): { row: ClientRow; depth: number }[] {
  const kids = new Map<number | null, ClientRow[]>();
  const ids = new Set(rows.map((r) => r.id));
  for (const r of rows) {
    const p = r.parentId !== null && ids.has(r.parentId) ? r.parentId : null;
    kids.set(p, [...(kids.get(p) ?? []), r]);
  }
  const out: { row: ClientRow; depth: number }[] = [];
  const walk = (p: number | null, depth: number) => {
    for (const r of kids.get(p) ?? []) {
      out.push({ row: r, depth });
      walk(r.id, depth + 1);
    }
  };
  walk(null, 0);
  return out;
}

export default function Clients() {
  const query = { $select: "id,name,tier,parentId,industry,hsCompanyId,domain,isTrial,trialEndsAt", $expand: "hubspotCompanies", $orderby: "name", $top: 1000 };
  const { data, isLoading, mutate } = useSet<ClientRow>("Clients", query);
  const { balances } = useBalances();
  const [editing, setEditing] = useState<ClientRow | null>(null);
  const [domainFor, setDomainFor] = useState<ClientRow | null>(null);
  const [trial, setTrial] = useState(false);
  const [audit, setAudit] = useState(0);
  const saved = () => {
    void mutate();
    setAudit((n) => n + 1);
  };
  const rows = data ? tree(data.value) : undefined;
  return (
    <div>
      <PageHeader title="Clients" subtitle="Enterprises, orgs and teams" actions={<Button onClick={() => setTrial(true)}>Set up trial account</Button>} />
      <DataTable
        caption="Clients"
        head={["Client", "Tier", "Industry", "HubSpot", "Balance", "Trial", ""]}
        rows={rows}
        isLoading={isLoading}
        empty="No clients yet"
        render={({ row: c, depth }) => (
          <tr key={c.id}>
            <Td className="min-w-56 whitespace-nowrap">
              <span style={{ paddingLeft: `${depth * 1.25}rem` }} className="block font-medium text-ink-900">
                {depth ? (
                  <span className="text-ink-400" aria-hidden="true">
                    └{" "}
                  </span>
                ) : null}
                {c.name} <span className="text-xs font-normal text-ink-500">#{c.id}</span>
              </span>
              {c.domain ? (
                <span style={{ paddingLeft: `${depth * 1.25}rem` }} className="block text-xs text-ink-500">
                  {c.domain}
                </span>
              ) : null}
            </Td>
            <Td>
              <Badge tone={c.tier === "Team" ? "neutral" : c.tier === "Org" ? "blue" : "brand"}>{c.tier}</Badge>
            </Td>
            <Td>{c.industry ?? c.hubspotCompanies[0]?.industry ?? "—"}</Td>
            <Td>{c.hsCompanyId ?? "—"}</Td>
            <Td className="whitespace-nowrap">{fmtCredits(balances.get(c.id) ?? 0)}</Td>
            <Td className="whitespace-nowrap">{c.isTrial ? <Badge tone="amber">until {fmtDate(c.trialEndsAt, false)}</Badge> : "—"}</Td>
            <Td>
              <div className="flex justify-end gap-2 whitespace-nowrap">
                <Link
                  href={`/clients/${c.id}/credits`}
                  className="inline-flex h-8 items-center rounded-lg px-3 text-sm font-medium text-brand-700 hover:bg-brand-50"
                  aria-label={`Credits of ${c.name}`}
                >
                  Credits
                </Link>
                <Button size="sm" variant="secondary" onClick={() => setEditing(c)} aria-label={`Edit ${c.name}`}>
                  Edit
                </Button>
                <Button size="sm" variant="ghost" onClick={() => setDomainFor(c)} aria-label={`Verify a domain of ${c.name}`}>
                  Domain
                </Button>
              </div>
            </Td>
          </tr>
        )}
      />
      {editing ? <EditClient client={editing} clients={data?.value ?? []} onClose={() => setEditing(null)} onSaved={saved} /> : null}
      {domainFor ? <DomainDialog client={domainFor} onClose={() => setDomainFor(null)} onDone={saved} /> : null}
      {trial ? <TrialDialog onClose={() => setTrial(false)} onDone={saved} /> : null}
      <AuditLog filter="entityType eq 'Client'" title="Client changes" refreshKey={audit} />
    </div>
  );
}

function EditClient({ client, clients, onClose, onSaved }: { client: ClientRow; clients: ClientRow[]; onClose: () => void; onSaved: () => void }) {
  const [name, setName] = useState(client.name);
  const [industry, setIndustry] = useState(client.industry ?? "");
  const [hs, setHs] = useState(client.hsCompanyId ?? "");
  const [parentId, setParentId] = useState(client.parentId === null ? "" : String(client.parentId));
  const [isTrial, setIsTrial] = useState(client.isTrial);
  const [trialEnds, setTrialEnds] = useState(client.trialEndsAt?.slice(0, 10) ?? "");
  const [busy, setBusy] = useState(false);
  const parents = clients.filter((c) => c.id !== client.id && (client.tier === "Team" ? c.tier !== "Team" : client.tier === "Org" ? c.tier === "Enterprise" : false));
  async function save() {
    setBusy(true);
    const body = {
      name: name.trim(),
      industry: industry || null,
      hsCompanyId: hs.trim() || null,
      parentId: parentId ? Number(parentId) : null,
      isTrial,
      trialEndsAt: isTrial && trialEnds ? new Date(`${trialEnds}T23:59:59Z`).toISOString() : null,
    };
    const r = await act(api.POST("/api/v1/Clients({key})/AdminUpdate", { params: keyPath(client.id), body, ...forClient(client.id) }), "Client updated", body.name);
    setBusy(false);
    if (r) {
      onSaved();
      onClose();
    }
  }
  return (
    <Modal
      open
      onClose={onClose}
      title={`Edit ${client.name}`}
      footer={
        <>
          <Button variant="secondary" onClick={onClose}>
            Cancel
          </Button>
          <Button busy={busy} onClick={() => void save()} disabled={!name.trim()}>
            Save
          </Button>
        </>
      }
    >
      <div className="space-y-4">
        <Field id="c-name" label="Name">
          <Input id="c-name" value={name} onChange={(e) => setName(e.target.value)} />
        </Field>
        <div className="grid gap-4 sm:grid-cols-2">
          <Field id="c-industry" label="Industry">
            <Select id="c-industry" value={industry} onChange={(e) => setIndustry(e.target.value)}>
              <option value="">—</option>
              {INDUSTRIES.map((i) => (
                <option key={i} value={i}>
                  {i}
                </option>
              ))}
            </Select>
          </Field>
          <Field id="c-hs" label="HubSpot company id">
            <Input id="c-hs" value={hs} onChange={(e) => setHs(e.target.value)} />
          </Field>
        </div>
        {client.tier !== "Enterprise" ? (
          <Field id="c-parent" label="Parent">
            <Select id="c-parent" value={parentId} onChange={(e) => setParentId(e.target.value)}>
              <option value="">None</option>
              {parents.map((p) => (
                <option key={p.id} value={p.id}>
                  {p.name} ({p.tier})
                </option>
              ))}
            </Select>
          </Field>
        ) : null}
        <div className="grid gap-4 sm:grid-cols-2">
          <label className="flex items-center gap-2 text-sm font-medium text-ink-800">
            <input type="checkbox" checked={isTrial} onChange={(e) => setIsTrial(e.target.checked)} className="size-4 rounded border-ink-300" /> Trial account
          </label>
          {isTrial ? (
            <Field id="c-trial" label="Trial ends">
              <Input id="c-trial" type="date" value={trialEnds} onChange={(e) => setTrialEnds(e.target.value)} />
            </Field>
          ) : null}
        </div>
      </div>
    </Modal>
  );
}

type DomainResult = Schemas["ValidateDomainRecordResult"];

function DomainDialog({ client, onClose, onDone }: { client: ClientRow; onClose: () => void; onDone: () => void }) {
  const [domain, setDomain] = useState(client.domain ?? "");
  const [busy, setBusy] = useState(false);
  const [result, setResult] = useState<DomainResult>();
  async function check() {
    setBusy(true);
    const r = await act(api.POST("/api/v1/Clients({key})/ValidateDomainRecord", { params: keyPath(client.id), body: { domain: domain.trim() }, ...forClient(client.id) }));
    setBusy(false);
    if (r) {
      setResult(r);
      onDone();
    }
  }
  return (
    <Modal
      open
      onClose={onClose}
      title={`Domain of ${client.name}`}
      footer={
        <>
          <Button variant="secondary" onClick={onClose}>
            Close
          </Button>
          <Button busy={busy} onClick={() => void check()} disabled={domain.trim().length < 3}>
            Check record
          </Button>
        </>
      }
    >
      <div className="space-y-4">
        <Field id="d-domain" label="Email domain" hint="Users with this email domain belong to the client once it is verified">
          <Input id="d-domain" value={domain} onChange={(e) => setDomain(e.target.value)} placeholder="example.com" />
        </Field>
        {result ? (
          <div className="space-y-2 rounded-lg bg-ink-50 p-3" role="status">
            <Badge tone={result.verified ? "green" : "amber"}>{result.verified ? "Verified" : "Not verified yet"}</Badge>
            <p>{result.message}</p>
            <dl className="grid grid-cols-[5rem_1fr] gap-1 text-xs">
              <dt className="text-ink-500">Type</dt>
              <dd>{result.record.type}</dd>
              <dt className="text-ink-500">Name</dt>
              <dd className="break-all">{result.record.name}</dd>
              <dt className="text-ink-500">Value</dt>
              <dd className="font-mono break-all">{result.record.value}</dd>
            </dl>
          </div>
        ) : null}
      </div>
    </Modal>
  );
}

function TrialDialog({ onClose, onDone }: { onClose: () => void; onDone: () => void }) {
  const [f, setF] = useState({ name: "", industry: "", adminEmail: "", firstName: "", lastName: "", credits: "500", trialDays: "30" });
  const [busy, setBusy] = useState(false);
  const set = (k: keyof typeof f) => (e: { target: { value: string } }) => setF({ ...f, [k]: e.target.value });
  async function save() {
    setBusy(true);
    const body = {
      name: f.name.trim(),
      adminEmail: f.adminEmail.trim(),
      industry: f.industry || null,
      ...(f.firstName.trim() ? { firstName: f.firstName.trim() } : {}),
      ...(f.lastName.trim() ? { lastName: f.lastName.trim() } : {}),
      credits: Number(f.credits) || 0,
      trialDays: Number(f.trialDays) || 30,
    };
    const r = await act(api.POST("/api/v1/Clients/SetupTrialAccount", { body }), "Trial account set up", `${body.name}: ${body.adminEmail} is invited as its Admin.`);
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
      title="Set up a trial account"
      footer={
        <>
          <Button variant="secondary" onClick={onClose}>
            Cancel
          </Button>
          <Button busy={busy} onClick={() => void save()} disabled={!f.name.trim() || !f.adminEmail.trim()}>
            Set up
          </Button>
        </>
      }
    >
      <div className="space-y-4">
        <Field id="t-name" label="Team name">
          <Input id="t-name" value={f.name} onChange={set("name")} />
        </Field>
        <Field id="t-industry" label="Industry">
          <Select id="t-industry" value={f.industry} onChange={set("industry")}>
            <option value="">—</option>
            {INDUSTRIES.map((i) => (
              <option key={i} value={i}>
                {i}
              </option>
            ))}
          </Select>
        </Field>
        <Field id="t-email" label="Admin email">
          <Input id="t-email" type="email" value={f.adminEmail} onChange={set("adminEmail")} />
        </Field>
        <div className="grid gap-4 sm:grid-cols-2">
          <Field id="t-first" label="Admin first name">
            <Input id="t-first" value={f.firstName} onChange={set("firstName")} />
          </Field>
          <Field id="t-last" label="Admin last name">
            <Input id="t-last" value={f.lastName} onChange={set("lastName")} />
          </Field>
          <Field id="t-credits" label="Free credits">
            <Input id="t-credits" inputMode="decimal" value={f.credits} onChange={set("credits")} />
          </Field>
          <Field id="t-days" label="Trial days">
            <Input id="t-days" inputMode="numeric" value={f.trialDays} onChange={set("trialDays")} />
          </Field>
        </div>
      </div>
    </Modal>
  );
}
