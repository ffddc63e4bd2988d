// transactions/{tab?}: the credit ledger (CreditLogs) with its balance (Clients ClientSubStats),
// tabs by kind of movement, the CSV export (Clients ExportTransactionListCsv) and, for org and
// enterprise admins, credit transfers between the clients beneath (CreditLogs MakeCreditTransfer).
import { Menu, MenuButton, MenuItem, MenuItems } from "@headlessui/react";
import { useMemo, useState, type FormEvent } from "react";
import { api, selected, unwrap, type Page, type Row } from "../../api/client";
import { handleError } from "../../api/errors";
import { useApi } from "../../api/hooks";
import { Pager } from "../../components/Pager";
import { ProjectLinkTo } from "../../components/ProjectLink";
import { toast } from "../../components/toast";
import { Button, EmptyState, Field, Input, PageHeader, Select, Skeletons, TabLinks, Table, cx } from "../../components/ui";
import { useSearchState } from "../../lib/search";
import { usePolicies } from "../../state/app";
import {
  CREDIT_TYPE_LABELS,
  SPEND_TYPES,
  TOP_UP_TYPES,
  TRANSFER_TYPES,
  formatCredits,
  formatDate,
  formatSigned,
  formatTime,
  headersFor,
  scopeOf,
  subtreeOf,
  type ManageProps,
  type ReachedClient,
} from "./manage";
import { saveFile } from "../../lib/download";
import { Figure } from "./parts";
import { FormModal } from "../../components/FormModal";

const PAGE = 25;
const TABS: { id: string; label: string; types?: number[] }[] = [
  { id: "all", label: "All" },
  { id: "spend", label: "Spend", types: SPEND_TYPES },
  { id: "top-ups", label: "Top-ups", types: TOP_UP_TYPES },
  { id: "transfers", label: "Transfers", types: TRANSFER_TYPES },
];

type LogRow = Row<
  "CreditLogs",
  "id" | "clientId" | "type" | "creditAmount" | "description" | "createdAt",
  { project: Row<"Projects", "id" | "projectName" | "statusCode"> | null; client: Row<"Clients", "id" | "name"> | null; relatedClient: Row<"Clients", "id" | "name"> | null }
>;

export default function Transactions({ client, area, tab }: ManageProps & { tab?: string }) {
  const scope = scopeOf(area);
  const active = TABS.find((t) => t.id === tab) ?? TABS[0]!;
  const [search, setSearch] = useSearchState();
  const page = Math.max(0, Number(search.page ?? 0) || 0);
  const { data: policies } = usePolicies();
  const clients = useMemo(() => subtreeOf(policies, client), [policies, client]);
  const [transferring, setTransferring] = useState(false);
  const [exporting, setExporting] = useState(false);

  const query = {
    $select: "id,clientId,type,creditAmount,description,createdAt",
    $expand: "project($select=id,projectName,statusCode),client($select=id,name),relatedClient($select=id,name)",
    $orderby: "createdAt desc,id desc",
    $count: true,
    $top: PAGE,
    $skip: page * PAGE,
    ...(active.types ? { $filter: `type in (${active.types.join(",")})` } : {}),
  };
  const logs = useApi(["CreditLogs", client.id, scope, query], () => selected<Page<LogRow>>(api.GET("/api/v1/CreditLogs", { params: { query }, headers: headersFor(client.id, scope) })));
  const stats = useApi(["Clients/ClientSubStats", client.id, scope], () =>
    api.GET("/api/v1/Clients({key})/ClientSubStats", { params: { path: { key: String(client.id) } }, headers: headersFor(client.id, scope) }),
  );
  const total = logs.data?.["@odata.count"] ?? 0;
  const own = stats.data?.client;
  const balance = scope === "descendants" ? stats.data?.totals?.balance : own?.balance;

  /** One client's ledger (the export is per client, oldest first with a running balance). */
  async function exportCsv(c: ReachedClient) {
    setExporting(true);
    try {
      const blob = (await unwrap(
        api.GET("/api/v1/Clients({key})/ExportTransactionListCsv", { params: { path: { key: String(c.clientId) } }, parseAs: "blob", headers: headersFor(c.clientId) }),
      )) as Blob;
      saveFile(blob, `transactions-${c.clientName.replace(/[^A-Za-z0-9]+/g, "-").toLowerCase()}-${new Date().toISOString().slice(0, 10)}.csv`);
      toast.success("Export ready", `The transactions of ${c.clientName} have been downloaded as CSV.`);
    } catch (e) {
      handleError(e);
    } finally {
      setExporting(false);
    }
  }

  return (
    <div>
      <PageHeader
        title="Transactions"
        subtitle={`${client.name} · credit ledger${scope === "descendants" ? " of this client and every client beneath it" : ""}`}
        actions={
          <>
            {scope === "descendants" && clients.length > 1 ? (
              <Menu as="div" className="relative">
                <MenuButton as={Button} variant="secondary" busy={exporting}>
                  Export CSV
                </MenuButton>
                <MenuItems anchor="bottom end" className="z-40 mt-1 w-64 rounded-xl bg-white p-1 shadow-lg ring-1 ring-ink-200 focus:outline-none">
                  {clients.map((c) => (
                    <MenuItem key={c.clientId}>
                      <button type="button" onClick={() => void exportCsv(c)} className="block w-full rounded-lg px-3 py-2 text-left text-sm data-[focus]:bg-ink-100">
                        {c.clientName} <span className="text-xs text-ink-500">{c.tier}</span>
                      </button>
                    </MenuItem>
                  ))}
                </MenuItems>
              </Menu>
            ) : (
              <Button variant="secondary" busy={exporting} onClick={() => void exportCsv({ clientId: client.id, clientName: client.name, tier: client.tier, parentId: client.parentId })}>
                Export CSV
              </Button>
            )}
            {area !== "team" && clients.length > 1 ? <Button onClick={() => setTransferring(true)}>Transfer credits</Button> : null}
          </>
        }
      />
      <div className="mb-6 grid grid-cols-2 gap-3 lg:grid-cols-4">
        <Figure label={scope === "descendants" ? "Balance (all clients)" : "Balance"} value={balance} loading={stats.isLoading} />
        <Figure
          label={scope === "descendants" ? `Available to ${client.name}` : "Available"}
          value={own?.available}
          loading={stats.isLoading}
          hint={own?.overdraftLimit ? `Overdraft limit ${formatCredits(own.overdraftLimit)}` : undefined}
        />
        <Figure label="Reserved for scheduled runs" value={scope === "descendants" ? stats.data?.totals?.pendingCharges : own?.pendingCharges} loading={stats.isLoading} />
        <Figure label="Spent this year" value={scope === "descendants" ? stats.data?.totals?.spendThisYear : own?.spendThisYear} loading={stats.isLoading} />
      </div>
      <TabLinks label="Transaction kinds" active={active.id} tabs={TABS.map((t) => ({ id: t.id, label: t.label, href: t.id === "all" ? "/transactions" : `/transactions/${t.id}` }))} />
      {logs.isLoading ? (
        <div className="space-y-2" role="status" aria-label="Loading transactions">
          <Skeletons count={6} className="h-12" />
        </div>
      ) : !logs.data?.value.length ? (
        <EmptyState title={active.types ? `No ${active.label.toLowerCase()} yet` : "No transactions yet"}>Credits bought, spent on survey runs, adjusted or transferred appear here.</EmptyState>
      ) : (
        <>
          <Table
            head={[
              "Date",
              ...(scope === "descendants" ? ["Client"] : []),
              "Type",
              "Project",
              <span key="credits" className="block text-right">
                Credits
              </span>,
            ]}
            caption="Credit transactions"
          >
            {logs.data.value.map((l) => (
              <tr key={l.id} className="hover:bg-ink-50">
                <td className="px-4 py-3 whitespace-nowrap text-ink-700">
                  {formatDate(l.createdAt)}
                  <div className="text-xs text-ink-500">{formatTime(l.createdAt)}</div>
                </td>
                {scope === "descendants" ? <td className="px-4 py-3 whitespace-nowrap text-ink-700">{l.client?.name}</td> : null}
                <td className="px-4 py-3">
                  <div className="text-ink-900">
                    {CREDIT_TYPE_LABELS[l.type] ?? `Type ${l.type}`}
                    {l.relatedClient ? (
                      <span className="text-ink-600">
                        {" "}
                        {l.creditAmount < 0 ? "to" : "from"} {l.relatedClient.name}
                      </span>
                    ) : null}
                  </div>
                  {l.description ? (
                    <div className="max-w-72 truncate text-xs text-ink-600" title={l.description}>
                      {l.description}
                    </div>
                  ) : null}
                </td>
                <td className="min-w-44 px-4 py-3">
                  {l.project ? (
                    <ProjectLinkTo teamId={l.clientId} project={l.project} className="text-left text-ink-800 hover:text-brand-700 hover:underline">
                      {l.project.projectName}
                    </ProjectLinkTo>
                  ) : (
                    <span className="text-ink-400">—</span>
                  )}
                </td>
                <td className={cx("px-4 py-3 text-right font-medium whitespace-nowrap tabular-nums", l.creditAmount < 0 ? "text-rose-700" : "text-emerald-700")}>{formatSigned(l.creditAmount)}</td>
              </tr>
            ))}
          </Table>
          <Pager page={page} pageSize={PAGE} total={total} onPage={(n) => setSearch({ page: n || null })} />
        </>
      )}
      {transferring ? (
        <TransferDialog
          root={client.id}
          clients={clients}
          balances={new Map([own, ...(stats.data?.children ?? [])].filter(Boolean).map((c) => [c!.clientId, c!.available]))}
          onClose={() => setTransferring(false)}
          onDone={() => {
            void logs.mutate();
            void stats.mutate();
          }}
        />
      ) : null}
    </div>
  );
}

function TransferDialog({ root, clients, balances, onClose, onDone }: { root: number; clients: ReachedClient[]; balances: Map<number, number>; onClose: () => void; onDone: () => void }) {
  // From the client with the most credits available, to the next one in the tree.
  const richest = [...clients].sort((a, b) => (balances.get(b.clientId) ?? 0) - (balances.get(a.clientId) ?? 0))[0]?.clientId ?? 0;
  const [from, setFrom] = useState(richest);
  const [to, setTo] = useState(clients.find((c) => c.clientId !== richest)?.clientId ?? 0);
  const [amount, setAmount] = useState("");
  const [note, setNote] = useState("");
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string>();
  const name = (id: number) => clients.find((c) => c.clientId === id)?.clientName ?? String(id);

  async function submit(e: FormEvent) {
    e.preventDefault();
    setError(undefined);
    const n = Number(amount);
    if (from === to) return setError("Choose two different clients.");
    if (!(n > 0)) return setError("Enter an amount above 0.");
    setBusy(true);
    try {
      await unwrap(api.POST("/api/v1/CreditLogs/MakeCreditTransfer", { body: { fromClientId: from, toClientId: to, amount: n, note: note.trim() || null }, headers: headersFor(root) }));
      toast.success("Credits transferred", `${formatCredits(n)} credits moved from ${name(from)} to ${name(to)}.`);
      onDone();
      onClose();
    } catch (err) {
      handleError(err, { status: { 400: (x) => setError(x.message), 409: (x) => setError(x.message) } });
    } finally {
      setBusy(false);
    }
  }

  const option = (c: ReachedClient) => (
    <option key={c.clientId} value={c.clientId}>
      {c.clientName} ({c.tier}
      {balances.has(c.clientId) ? `, ${formatCredits(balances.get(c.clientId))} available` : ""})
    </option>
  );
  return (
    <FormModal id="transfer-form" title="Transfer credits" submitLabel="Transfer" busy={busy} onSubmit={(e) => void submit(e)} onClose={onClose}>
      <div className="space-y-4">
        <p className="text-ink-600">Moves credits between clients beneath {name(root)} at once; both ledgers show the transfer.</p>
        {error ? (
          <p className="rounded-lg bg-rose-50 px-3 py-2 text-rose-800" role="alert">
            {error}
          </p>
        ) : null}
        <Field id="transfer-from" label="From">
          <Select id="transfer-from" value={from} onChange={(e) => setFrom(Number(e.target.value))}>
            {clients.map(option)}
          </Select>
        </Field>
        <Field id="transfer-to" label="To">
          <Select id="transfer-to" value={to} onChange={(e) => setTo(Number(e.target.value))}>
            {clients.map(option)}
          </Select>
        </Field>
        <Field id="transfer-amount" label="Credits">
          <Input id="transfer-amount" type="number" min="0.01" step="0.01" required inputMode="decimal" value={amount} onChange={(e) => setAmount(e.target.value)} />
        </Field>
        <Field id="transfer-note" label="Note (optional)">
          <Input id="transfer-note" maxLength={1000} value={note} onChange={(e) => setNote(e.target.value)} />
        </Field>
      </div>
    </FormModal>
  );
}
