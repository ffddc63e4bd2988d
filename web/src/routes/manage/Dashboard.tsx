// admin-dashboard and overview (org and enterprise): key figures from Clients ClientSubStats over
// the client and everything beneath it, active users from Users CognitoStatus, projects by status,
// and charts of projects started and credits spent per month and of each team's usage.
import { useMemo } from "react";
import useSWR from "swr";
import { api, selected, unwrap, type Page, type Row } from "../../api/client";
import { useApi } from "../../api/hooks";
import { Badge, Card, EmptyState, PageHeader, Skeleton, Table } from "../../components/ui";
import { STATUS_TONE } from "../../features/projects";
import { PROJECT_STATUSES } from "../../lib/constants";
import { BarChart } from "./Charts";
import { Figure } from "./parts";
import { SPEND_TYPES, formatCredits, headersFor, lastMonths, monthLabel, perMonth, type ManageProps } from "./manage";

const MONTHS = 12;
const ACTIVE_DAYS = 30;
const PAGE = 1000;
const MAX_PAGES = 20;

/** Every row of a list (pages of 1000, the server's $top limit), for month sums. */
async function allRows<T>(pageOf: (top: number, skip: number) => Promise<{ data?: Page<T>; error?: unknown; response: Response }>): Promise<T[]> {
  const out: T[] = [];
  for (let page = 0; page < MAX_PAGES; page++) {
    const r = await unwrap(pageOf(PAGE, page * PAGE));
    out.push(...r.value);
    if (r.value.length < PAGE) break;
  }
  return out;
}

export default function Dashboard({ client, view }: ManageProps & { view: "dashboard" | "overview" | "both" }) {
  const months = useMemo(() => lastMonths(MONTHS), []);
  const since = `${months[0]}-01T00:00:00Z`;
  const stats = useApi(["Clients/ClientSubStats", client.id, "descendants"], () =>
    api.GET("/api/v1/Clients({key})/ClientSubStats", { params: { path: { key: String(client.id) } }, headers: headersFor(client.id, "descendants") }),
  );
  const people = useApi(["Users/CognitoStatus", client.id, "descendants"], () => api.GET("/api/v1/Users/CognitoStatus", { headers: headersFor(client.id, "descendants") }));
  const charts = view !== "overview";
  // Several pages of rows, so swr directly rather than useApi's one call.
  const projects = useSWR(charts ? ["dashboard/projects", client.id, since] : null, () =>
    allRows((top, skip) =>
      selected<Page<Row<"Projects", "createdAt">>>(
        api.GET("/api/v1/Projects", {
          params: { query: { $select: "id,createdAt", $filter: `createdAt ge ${since}`, $orderby: "id", $top: top, $skip: skip } },
          headers: headersFor(client.id, "descendants"),
        }),
      ),
    ),
  );
  const spend = useSWR(charts ? ["dashboard/spend", client.id, since] : null, () =>
    allRows((top, skip) =>
      selected<Page<Row<"CreditLogs", "createdAt" | "creditAmount">>>(
        api.GET("/api/v1/CreditLogs", {
          params: { query: { $select: "id,createdAt,creditAmount", $filter: `type in (${SPEND_TYPES.join(",")}) and createdAt ge ${since}`, $orderby: "id", $top: top, $skip: skip } },
          headers: headersFor(client.id, "descendants"),
        }),
      ),
    ),
  );

  const totals = stats.data?.totals;
  const own = stats.data?.client;
  const cutoff = Date.now() - ACTIVE_DAYS * 86_400_000;
  const members = people.data?.value.filter((p) => p.status !== "disabled") ?? [];
  const active = members.filter((p) => p.lastLoginAt && Date.parse(p.lastLoginAt) >= cutoff).length;
  const teams = (stats.data?.children ?? []).filter((c) => c.tier === "Team");
  const title = view === "dashboard" ? "Admin dashboard" : "Overview";

  return (
    <div>
      <PageHeader title={title} subtitle={`${client.name} · ${client.tier.toLowerCase()} and every ${client.tier === "Enterprise" ? "org and team" : "team"} beneath it`} />
      <div className="mb-6 grid grid-cols-2 gap-3 lg:grid-cols-3 xl:grid-cols-6">
        <Figure label="Credit balance" value={totals?.balance ?? own?.balance} loading={stats.isLoading} />
        <Figure label="Spent this month" value={totals?.spendThisMonth ?? own?.spendThisMonth} loading={stats.isLoading} />
        <Figure label="Spent this year" value={totals?.spendThisYear ?? own?.spendThisYear} loading={stats.isLoading} />
        <Figure label="Survey runs this year" value={totals?.runsThisYear ?? own?.runsThisYear} loading={stats.isLoading} />
        <Figure label="Projects" value={totals?.projectsTotal ?? own?.projectsTotal} loading={stats.isLoading} />
        <Figure label={`Active users (${ACTIVE_DAYS} days)`} value={people.data ? active : undefined} loading={people.isLoading} hint={people.data ? `of ${members.length} members` : undefined} />
      </div>

      {charts ? (
        <div className="mb-6 grid gap-4 lg:grid-cols-2">
          <Card title={`Projects started per month · ${monthLabel(months[0]!, true)} to ${monthLabel(months.at(-1)!, true)}`}>
            {projects.isLoading || !projects.data ? (
              <Skeleton className="h-60" />
            ) : (
              <BarChart
                label="Projects started per month"
                unit="projects"
                data={perMonth(
                  projects.data,
                  months,
                  (p) => p.createdAt,
                  () => 1,
                ).map((m) => ({ label: monthLabel(m.month), value: m.value }))}
              />
            )}
          </Card>
          <Card title={`Credits spent per month · ${monthLabel(months[0]!, true)} to ${monthLabel(months.at(-1)!, true)}`}>
            {spend.isLoading || !spend.data ? (
              <Skeleton className="h-60" />
            ) : (
              <BarChart
                label="Credits spent per month"
                unit="credits"
                color="#0e9384"
                data={perMonth(
                  spend.data,
                  months,
                  (l) => l.createdAt,
                  (l) => -l.creditAmount,
                ).map((m) => ({ label: monthLabel(m.month), value: m.value }))}
              />
            )}
          </Card>
          <Card title="Teams' usage this year" className="lg:col-span-2">
            {stats.isLoading ? (
              <Skeleton className="h-48" />
            ) : !teams.length ? (
              <p className="text-sm text-ink-600">No teams beneath {client.name} yet.</p>
            ) : (
              <BarChart
                horizontal
                label="Credits spent this year per team"
                unit="credits"
                color="#7a5af8"
                height={Math.max(120, teams.length * 44 + 40)}
                data={teams.map((t) => ({ label: t.name, value: t.spendThisYear }))}
              />
            )}
          </Card>
        </div>
      ) : null}

      {view !== "dashboard" ? (
        <div className="grid gap-4 lg:grid-cols-[20rem_1fr]">
          <Card title="Projects by status">
            {stats.isLoading ? (
              <Skeleton className="h-32" />
            ) : !(totals ?? own)?.projectsByStatus.length ? (
              <p className="text-sm text-ink-600">No projects yet.</p>
            ) : (
              <ul className="space-y-2">
                {(totals ?? own)!.projectsByStatus.map((s) => (
                  <li key={s.statusCode} className="flex items-center justify-between text-sm">
                    <Badge tone={STATUS_TONE(s.statusCode)}>{PROJECT_STATUSES[s.statusCode] ?? s.statusCode}</Badge>
                    <span className="font-medium text-ink-900 tabular-nums">{s.count}</span>
                  </li>
                ))}
              </ul>
            )}
          </Card>
          <div className="min-w-0">
            <h2 className="mb-3 text-sm font-semibold text-ink-900">Clients beneath {client.name}</h2>
            {stats.isLoading ? (
              <Skeleton className="h-40" />
            ) : !stats.data?.children.length ? (
              <EmptyState title="No clients beneath yet">Teams and orgs created under {client.name} appear here with their credits and usage.</EmptyState>
            ) : (
              <Table head={["Client", "Balance", "Spent this year", "Runs this year", "Projects"]} caption={`Clients beneath ${client.name}`}>
                {stats.data.children.map((c) => (
                  <tr key={c.clientId}>
                    <td className="px-4 py-3 whitespace-nowrap">
                      <span className="font-medium text-ink-900">{c.name}</span> <span className="text-xs text-ink-500">{c.tier}</span>
                    </td>
                    <td className="px-4 py-3 tabular-nums">{formatCredits(c.balance)}</td>
                    <td className="px-4 py-3 tabular-nums">{formatCredits(c.spendThisYear)}</td>
                    <td className="px-4 py-3 tabular-nums">{c.runsThisYear}</td>
                    <td className="px-4 py-3 tabular-nums">{c.projectsTotal}</td>
                  </tr>
                ))}
              </Table>
            )}
          </div>
        </div>
      ) : null}
    </div>
  );
}
