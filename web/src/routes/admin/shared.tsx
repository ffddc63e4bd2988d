// What every admin page shares: lists over the typed client (staff see every client when no
// clientId is sent; a call about one client names it in the header), actions with toasts, the
// audit rows of DataEventsLog, job progress from the websocket, paging and dates.
import { useEffect, useState, type ReactNode } from "react";
import { api, selected, unwrap, type Page, type Row } from "../../api/client";
import { listSet, type Answer, type ListSet, type ODataQuery, type SetFor } from "@ideally/contracts/odata";
import { handleError } from "../../api/errors";
import { useApi } from "../../api/hooks";
import { toast } from "../../components/toast";
import { Badge, Card, EmptyState, Input, Skeletons, Table } from "../../components/ui";
import { joinChannel, leaveChannel, onRealtime } from "../../state/realtime";
import { isJobNews, type JobNews } from "@ideally/contracts/events";

/** A typed call (what api.GET/POST/... return). */
export type Call<T = unknown> = Promise<Answer<T>>;

/** The header that aims a call at one client (admin URLs carry none). */
export function forClient(clientId: number | string | null | undefined): { headers?: Record<string, string> } {
  return clientId === null || clientId === undefined ? {} : { headers: { clientId: String(clientId) } };
}

/**
 * `GET /api/v1/{set}` with OData options, across clients unless one is named: a page of rows typed
 * `T`, a row of that set (`useSet<Row<"Clients", "id" | "name">>("Clients", ...)`; contracts/odata.ts).
 */
export function useSet<T>(set: SetFor<T> & ListSet, query: ODataQuery | null, clientId?: number | null) {
  // The set's name as a plain string in the cache key: an array literal holding `SetFor<T> & ListSet`
  // (a union over every entity set) costs tsc a subtype reduction across it, seconds of the type gate.
  const name: string = set;
  return useApi<Page<T>>(query ? [name, query, clientId ?? null] : null, () => listSet<T>(api, set, query ?? {}, forClient(clientId).headers));
}

/** Runs a call; toasts success (title, optional detail) or hands the error to SPEC 8's chain. */
export async function act<T>(call: Call<T>, success?: string, detail?: string): Promise<T | undefined> {
  try {
    const data = await unwrap(call);
    if (success) toast.success(success, detail);
    return data;
  } catch (e) {
    handleError(e);
    return undefined;
  }
}

/** The choice a form value names (a select's string), typed as the contract's enum; undefined if none. */
export function oneOf<T extends string | number>(choices: readonly T[], value: string | number | null | undefined): T | undefined {
  return choices.find((c) => String(c) === String(value));
}

/** The `{key}` path parameter of a row: `{ params: keyPath(7) }`. */
export function keyPath(key: number | string): { path: { key: string } } {
  return { path: { key: String(key) } };
}

export function fmtDate(v: string | null | undefined, time = true): string {
  if (!v) return "—";
  const d = new Date(v);
  return time ? d.toLocaleString(undefined, { dateStyle: "medium", timeStyle: "short" }) : d.toLocaleDateString(undefined, { dateStyle: "medium" });
}

export function fmtCredits(n: number | null | undefined): string {
  return n === null || n === undefined ? "—" : n.toLocaleString(undefined, { maximumFractionDigits: 2 });
}

export function Td({ children, className = "" }: { children?: ReactNode; className?: string }) {
  return <td className={`min-w-24 px-4 py-3 align-top text-ink-700 ${className}`}>{children}</td>;
}

/** The heading row of a small table in a dialog (its columns' names). */
export function DialogTableHead({ heads }: { heads: string[] }) {
  return (
    <thead className="text-xs text-ink-500">
      <tr>
        {heads.map((h) => (
          <th key={h} scope="col" className="px-2 py-1 font-medium">
            {h}
          </th>
        ))}
      </tr>
    </thead>
  );
}

export function LoadingRows({ label, rows = 5 }: { label: string; rows?: number }) {
  return (
    <div className="space-y-2" role="status" aria-label={label}>
      <Skeletons count={rows} className="h-12" />
    </div>
  );
}

export function SearchBox({ id, label, value, onChange }: { id: string; label: string; value: string; onChange: (v: string) => void }) {
  return (
    <div className="min-w-0 flex-1">
      <label htmlFor={id} className="sr-only">
        {label}
      </label>
      <Input id={id} type="search" placeholder={label} defaultValue={value} onChange={(e) => onChange(e.target.value)} />
    </div>
  );
}

export { Pager } from "../../components/Pager";

type AuditRow = Row<"DataEventsLog", "id" | "event" | "entityType" | "entityId" | "clientId" | "projectId" | "data" | "createdAt", { user: Row<"Users", "email"> | null }>;

function summarise(data: unknown): string {
  if (data === null || data === undefined) return "";
  const s = JSON.stringify(data);
  return s.length > 160 ? `${s.slice(0, 157)}…` : s;
}

/** The audit rows (DataEventsLog) of a page: who did what and when, newest first. */
export function AuditLog({ filter, title = "Audit log", top = 15, refreshKey }: { filter: string; title?: string; top?: number; refreshKey?: unknown }) {
  const query = { $filter: filter, $orderby: "id desc", $top: top, $expand: "user($select=email)", $count: true };
  const { data, isLoading, mutate } = useSet<AuditRow>("DataEventsLog", query);
  useEffect(() => {
    if (refreshKey !== undefined) void mutate();
  }, [refreshKey, mutate]);
  return (
    <Card title={title} className="mt-8" actions={<Badge>{data?.["@odata.count"] ?? 0} events</Badge>}>
      {isLoading ? (
        <LoadingRows label="Loading audit rows" rows={3} />
      ) : !data?.value.length ? (
        <p className="text-sm text-ink-600">No audited actions yet.</p>
      ) : (
        <ul className="divide-y divide-ink-100 text-sm" aria-label={title}>
          {data.value.map((r) => (
            <li key={r.id} className="py-2.5">
              <div className="flex flex-wrap items-baseline gap-x-3 gap-y-0.5">
                <time className="text-xs whitespace-nowrap text-ink-500" dateTime={r.createdAt}>
                  {fmtDate(r.createdAt)}
                </time>
                <span className="font-medium text-ink-900">{r.event}</span>
                <span className="text-ink-500">
                  {r.entityType}
                  {r.entityId !== null ? ` ${r.entityId}` : ""}
                </span>
                <span className="text-ink-700">by {r.user?.email ?? "system"}</span>
              </div>
              {r.data ? <code className="mt-0.5 block text-xs break-all text-ink-600">{summarise(r.data)}</code> : null}
            </li>
          ))}
        </ul>
      )}
    </Card>
  );
}

// Job events (on `job-{id}`, joined once the page knows the id) are kept briefly, and a job that
// finishes before the page could join its channel shows its outcome from its audit row.
const jobEvents = new Map<string, JobNews[]>();
let listening = false;
export function listenForJobs() {
  if (listening) return;
  listening = true;
  onRealtime((ev) => {
    if (!isJobNews(ev)) return;
    const list = jobEvents.get(ev.data.jobId) ?? [];
    list.push(ev);
    jobEvents.set(ev.data.jobId, list);
    if (jobEvents.size > 50) jobEvents.delete(jobEvents.keys().next().value!);
  });
}

export type JobState = { pct: number; status: "queued" | "running" | "done" | "failed"; message?: string; result?: unknown };

/** Follows a queued job (`job-{id}` events, also sent to the starter's user channel). */
export function useJob(jobId: string | null): JobState | null {
  const [state, setState] = useState<JobState | null>(null);
  useEffect(() => {
    if (!jobId) return;
    listenForJobs();
    const apply = (ev: JobNews) => {
      if (ev.event === "Progress") setState((s) => (s?.status === "done" ? s : { pct: ev.data.pct, status: "running", message: ev.data.message }));
      else if (ev.event === "Success") setState({ pct: 100, status: "done", result: ev.data.result });
      else setState((s) => ({ pct: s?.pct ?? 0, status: ev.data.willRetry ? "running" : "failed", message: ev.data.message }));
    };
    setState({ pct: 0, status: "queued" });
    let seen = 0;
    const replay = () => {
      const list = jobEvents.get(jobId) ?? [];
      for (; seen < list.length; seen++) apply(list[seen]!);
    };
    replay();
    const off = onRealtime((ev) => {
      if (isJobNews(ev) && ev.data.jobId === jobId) queueMicrotask(replay);
    });
    // Job events go to the job's own channel only.
    joinChannel(`job-${jobId}`);
    // The outcome is also an audit row (CommandCompleted / CommandFailed with the job id): read it
    // while no event has arrived, so a lost socket message cannot leave the job looking queued.
    const poll = setInterval(async () => {
      try {
        const query = { $select: "event,data", $filter: "entityType eq 'Command' and event in ('CommandCompleted','CommandFailed')", $orderby: "id desc", $top: 50 };
        const r = await unwrap(selected<Page<Row<"DataEventsLog", "event" | "data">>>(api.GET("/api/v1/DataEventsLog", { params: { query } })));
        const outcome = (d: unknown) => (typeof d === "object" && d !== null ? (d as { jobId?: string; result?: unknown; message?: string }) : {});
        const row = r.value.find((x) => outcome(x.data).jobId === jobId);
        if (!row) return;
        const d = outcome(row.data);
        clearInterval(poll);
        setState((s) =>
          s?.status === "done" || s?.status === "failed"
            ? s
            : row.event === "CommandCompleted"
              ? { pct: 100, status: "done", result: d.result }
              : { pct: s?.pct ?? 0, status: "failed", message: d.message },
        );
      } catch {
        /* the next tick tries again */
      }
    }, 1500);
    return () => {
      off();
      clearInterval(poll);
      leaveChannel(`job-${jobId}`);
    };
  }, [jobId]);
  return state;
}

export function JobProgress({ label, job }: { label: string; job: JobState }) {
  const tone = job.status === "failed" ? "bg-rose-500" : job.status === "done" ? "bg-emerald-500" : "bg-brand-500";
  return (
    <div className="space-y-1.5">
      <div className="flex items-center justify-between text-sm">
        <span className="font-medium text-ink-800">{label}</span>
        <Badge tone={job.status === "failed" ? "red" : job.status === "done" ? "green" : "blue"}>
          {job.status === "done" ? "Done" : job.status === "failed" ? "Failed" : job.status === "queued" ? "Queued" : `${job.pct}%`}
        </Badge>
      </div>
      <div className="h-2 overflow-hidden rounded-full bg-ink-100" role="progressbar" aria-label={`${label} progress`} aria-valuenow={job.pct} aria-valuemin={0} aria-valuemax={100}>
        <div className={`h-full ${tone} transition-all`} style={{ width: `${job.pct}%` }} />
      </div>
      {job.message ? <p className="text-xs text-ink-600">{job.message}</p> : null}
      {job.status === "done" && job.result !== undefined && job.result !== null ? (
        <pre className="max-h-48 overflow-auto rounded-lg bg-ink-50 p-2 text-xs text-ink-700">{JSON.stringify(job.result, null, 2)}</pre>
      ) : null}
    </div>
  );
}

/** A table with its loading and empty states. */
export function DataTable<T>({
  caption,
  head,
  rows,
  isLoading,
  empty,
  render,
}: {
  caption: string;
  head: ReactNode[];
  rows: T[] | undefined;
  isLoading: boolean;
  empty: string;
  render: (row: T) => ReactNode;
}) {
  if (isLoading) return <LoadingRows label={`Loading ${caption.toLowerCase()}`} />;
  if (!rows?.length) return <EmptyState title={empty} />;
  // On phones each row becomes a stacked card (no sideways scrolling to reach a row's actions).
  return (
    <div className="max-sm:[&_tbody_tr]:block max-sm:[&_tbody_tr]:py-2 max-sm:[&_td]:block max-sm:[&_td]:min-w-0 max-sm:[&_td]:py-1 max-sm:[&_td>div]:justify-start max-sm:[&_thead]:hidden">
      <Table head={head} caption={caption}>
        {rows.map(render)}
      </Table>
    </div>
  );
}

type ClientRow = Row<"Clients", "id" | "name" | "tier" | "parentId">;

/** Every client (staff read across clients): names for ids, and the balance of each. */
export function useClients() {
  const { data, ...rest } = useSet<ClientRow>("Clients", { $select: "id,name,tier,parentId", $orderby: "name", $top: 1000 });
  const byId = new Map((data?.value ?? []).map((c) => [c.id, c]));
  return { clients: data?.value, byId, ...rest };
}

/** Ledger balances per client: the sum of its credit logs (SPEC's credits are a ledger). */
export function useBalances() {
  // An aggregate row: the group's key and the sum named `balance` (not a property of the set).
  const { data, mutate } = useApi(["CreditLogs", "balances"], () =>
    selected<Page<Row<"CreditLogs", "clientId"> & { balance: number | string }>>(
      api.GET("/api/v1/CreditLogs", { params: { query: { $apply: "groupby((clientId),aggregate(creditAmount with sum as balance))" } } }),
    ),
  );
  return { balances: new Map((data?.value ?? []).map((r) => [r.clientId, Number(r.balance)])), mutate };
}

/** Runs a call for its effect (204s included): true when it succeeded; errors go to SPEC 8's chain. */
export async function ok(call: Call): Promise<boolean> {
  try {
    await unwrap(call);
    return true;
  } catch (e) {
    handleError(e);
    return false;
  }
}
