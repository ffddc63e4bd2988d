// home: the team's projects with status, type, regions and dates; search and filters in the URL;
// create a project; live updates from the client channel.
import { useState } from "react";
import { api, selected, type Page, type Row } from "../../api/client";
import { useApi } from "../../api/hooks";
import type { CurrentClient } from "../../state/client";
import { ProjectLinkTo } from "../../components/ProjectLink";
import { Pager } from "../../components/Pager";
import { Badge, Button, EmptyState, Input, PageHeader, Select, Skeletons, Table } from "../../components/ui";
import { PROJECT_STATUSES, PROJECT_TYPES } from "../../lib/constants";
import { useSearchState } from "../../lib/search";
import { STATUS_TONE, odataString, useProjectEvents } from "../../features/projects";
import { InvitationsNotice } from "../../features/invitations";
import { hasPolicy, usePolicies } from "../../state/app";
import { CreateProjectDialog } from "./CreateProject";

const PAGE = 20;
const STATUS_GROUPS: Record<string, { label: string; filter: string }> = {
  draft: { label: "Drafts", filter: "statusCode lt 100" },
  review: { label: "In review", filter: "statusCode ge 100 and statusCode lt 400" },
  fielding: { label: "Fielding", filter: "statusCode ge 400 and statusCode lt 800" },
  results: { label: "Results ready", filter: "statusCode ge 800" },
};

type ProjectRow = Row<
  "Projects",
  "id" | "projectName" | "projectTypeId" | "statusCode" | "createdAt" | "updatedAt",
  { projectsRegions: Row<"ProjectsRegions", "regionId", { region: Row<"Regions", "regionName"> | null }>[] }
>;

/**
 * A team Admin's approvals inbox: the team's projects Awaiting Approval (50), oldest first, each
 * opening its review page. Shown only to those who can approve (TeamAdmin); empty, it is not shown.
 */
function ApprovalsInbox({ client }: { client: CurrentClient }) {
  const query = { $select: "id,projectName,statusCode,submittedAt", $filter: `clientId eq ${client.id} and statusCode eq 50`, $orderby: "submittedAt", $top: 50 };
  const { data, mutate } = useApi(["Projects", client.id, "approvals"], () => api.GET("/api/v1/Projects", { params: { query } }));
  useProjectEvents(() => void mutate());
  const rows = (data?.value ?? []).flatMap((p) =>
    p.id !== undefined && p.statusCode !== undefined ? [{ id: p.id, statusCode: p.statusCode, name: p.projectName ?? "", submittedAt: p.submittedAt ?? null }] : [],
  );
  if (!rows.length) return null;
  return (
    <section aria-labelledby="approvals-title" className="mb-6 rounded-xl border border-amber-200 bg-amber-50 p-4">
      <h2 id="approvals-title" className="text-sm font-semibold text-amber-900">
        Waiting for your approval ({rows.length})
      </h2>
      <ul className="mt-2 space-y-1 text-sm">
        {rows.map((p) => (
          <li key={p.id} className="flex flex-wrap items-baseline gap-x-2">
            <ProjectLinkTo teamId={client.id} project={p} className="font-medium text-ink-900 underline hover:text-brand-700">
              {p.name}
            </ProjectLinkTo>
            {p.submittedAt ? <span className="text-xs text-ink-600">submitted {new Date(p.submittedAt).toLocaleDateString()}</span> : null}
          </li>
        ))}
      </ul>
    </section>
  );
}

export default function Home({ client }: { client: CurrentClient }) {
  const [search, setSearch] = useSearchState();
  const [creating, setCreating] = useState(false);
  const { data: policies } = usePolicies();
  const q = String(search.q ?? "");
  const status = String(search.status ?? "");
  const type = String(search.type ?? "");
  const page = Math.max(0, Number(search.page ?? 0) || 0);
  const filters = [q ? `contains(tolower(projectName),${odataString(q.toLowerCase())})` : "", STATUS_GROUPS[status]?.filter ?? "", /^[1-4]$/.test(type) ? `projectTypeId eq ${type}` : ""].filter(
    Boolean,
  );
  const query = {
    $select: "id,projectName,projectTypeId,statusCode,createdAt,updatedAt",
    $expand: "projectsRegions($select=regionId;$expand=region($select=regionName))",
    $orderby: "createdAt desc",
    $count: true,
    $top: PAGE,
    $skip: page * PAGE,
    ...(filters.length ? { $filter: filters.join(" and ") } : {}),
  };
  const { data, isLoading, mutate } = useApi(["Projects", client.id, query], () => selected<Page<ProjectRow>>(api.GET("/api/v1/Projects", { params: { query } })));
  useProjectEvents(() => void mutate());
  const canCreate = hasPolicy(policies, client.id, "TeamUser");
  const total = data?.["@odata.count"] ?? 0;

  return (
    <div>
      <PageHeader
        title="Projects"
        subtitle={`${client.name} · test ideas, messages, questions and new products`}
        actions={canCreate ? <Button onClick={() => setCreating(true)}>New project</Button> : undefined}
      />
      <InvitationsNotice />
      {hasPolicy(policies, client.id, "TeamAdmin") ? <ApprovalsInbox client={client} /> : null}
      <div className="mb-4 grid gap-3 sm:grid-cols-[1fr_12rem_10rem]">
        <label className="sr-only" htmlFor="project-search">
          Search projects
        </label>
        <Input id="project-search" type="search" placeholder="Search projects" defaultValue={q} onChange={(e) => setSearch({ q: e.target.value, page: null })} />
        <label className="sr-only" htmlFor="status-filter">
          Status
        </label>
        <Select id="status-filter" value={status} onChange={(e) => setSearch({ status: e.target.value, page: null })}>
          <option value="">All statuses</option>
          {Object.entries(STATUS_GROUPS).map(([k, g]) => (
            <option key={k} value={k}>
              {g.label}
            </option>
          ))}
        </Select>
        <label className="sr-only" htmlFor="type-filter">
          Type
        </label>
        <Select id="type-filter" value={type} onChange={(e) => setSearch({ type: e.target.value, page: null })}>
          <option value="">All types</option>
          {Object.entries(PROJECT_TYPES).map(([k, t]) => (
            <option key={k} value={k}>
              {t}
            </option>
          ))}
        </Select>
      </div>
      {isLoading ? (
        <div className="space-y-2" role="status" aria-label="Loading projects">
          <Skeletons count={6} className="h-14" />
        </div>
      ) : !data?.value.length ? (
        <EmptyState
          title={filters.length ? "No projects match" : "No projects yet"}
          action={!filters.length && canCreate ? <Button onClick={() => setCreating(true)}>Create your first project</Button> : undefined}
        >
          {filters.length ? "Try another search or clear the filters." : "Create a project to test an idea, a message, a question or a new product with real people."}
        </EmptyState>
      ) : (
        <>
          <ul className="space-y-2 sm:hidden" aria-label="Projects">
            {data.value.map((p) => (
              <li key={p.id} className="rounded-xl border border-ink-200 bg-white p-4 shadow-sm">
                <ProjectLinkTo teamId={client.id} project={p} setupAllowed={canCreate} className="text-left font-medium text-ink-900 hover:text-brand-700 hover:underline">
                  {p.projectName}
                </ProjectLinkTo>
                <div className="mt-2 flex flex-wrap items-center gap-2 text-xs text-ink-600">
                  <Badge tone={STATUS_TONE(p.statusCode)}>{PROJECT_STATUSES[p.statusCode] ?? p.statusCode}</Badge>
                  <span>{PROJECT_TYPES[p.projectTypeId]}</span>
                  <span>·</span>
                  <span>
                    {p.projectsRegions
                      .map((r) => r.region?.regionName)
                      .filter(Boolean)
                      .join(", ") || "—"}
                  </span>
                  <span>·</span>
                  <span>{new Date(p.createdAt).toLocaleDateString()}</span>
                </div>
              </li>
            ))}
          </ul>
          <div className="hidden sm:block">
            <Table head={["Project", "Type", "Status", "Markets", "Created"]} caption="Projects">
              {data.value.map((p) => (
                <tr key={p.id} className="hover:bg-ink-50">
                  <td className="px-4 py-3">
                    <ProjectLinkTo teamId={client.id} project={p} setupAllowed={canCreate} className="text-left font-medium text-ink-900 hover:text-brand-700 hover:underline">
                      {p.projectName}
                    </ProjectLinkTo>
                  </td>
                  <td className="px-4 py-3 text-ink-700">{PROJECT_TYPES[p.projectTypeId]}</td>
                  <td className="px-4 py-3">
                    <Badge tone={STATUS_TONE(p.statusCode)}>{PROJECT_STATUSES[p.statusCode] ?? p.statusCode}</Badge>
                  </td>
                  <td className="px-4 py-3 text-ink-700">
                    {p.projectsRegions
                      .map((r) => r.region?.regionName)
                      .filter(Boolean)
                      .join(", ") || "—"}
                  </td>
                  <td className="px-4 py-3 whitespace-nowrap text-ink-600">{new Date(p.createdAt).toLocaleDateString()}</td>
                </tr>
              ))}
            </Table>
          </div>
          <Pager page={page} pageSize={PAGE} total={total} onPage={(n) => setSearch({ page: n || null })} />
        </>
      )}
      {creating ? <CreateProjectDialog client={client} onClose={() => setCreating(false)} /> : null}
    </div>
  );
}
