// admin/projects: projects of every client; search and status filter in the URL; per project
// AdminEdit (raw correction, audited), MarkAsDemo, Move (to another team of the enterprise),
// owner change, the SPEC's project link, and its survey runs.
import { useState } from "react";
import { Link } from "wouter";
import { Modal } from "../../components/Dialog";
import { Badge, Button, Field, Input, PageHeader, Select } from "../../components/ui";
import { STATUS_TONE, odataString } from "../../features/projects";
import { PROJECT_STATUSES, PROJECT_TYPES } from "../../lib/constants";
import { ProjectLinkTo } from "../../components/ProjectLink";
import { useSearchState } from "../../lib/search";
import { api, type Row, type Schemas } from "../../api/client";
import { AuditLog, DataTable, Pager, SearchBox, Td, act, fmtDate, forClient, keyPath, oneOf, useClients, useSet, type Call } from "./shared";

const PAGE = 25;

/** The statuses an admin edit may set (the contract's enum). */
const STATUS_CODES: NonNullable<Schemas["AdminEditProject"]["statusCode"]>[] = [0, 50, 100, 200, 300, 400, 800, 900, 950];

type ProjectRow = Row<
  "Projects",
  "id" | "clientId" | "projectName" | "projectTypeId" | "statusCode" | "ownerUserId" | "createdAt",
  {
    client: Row<"Clients", "name"> | null;
    owner: Row<"Users", "email"> | null;
  }
>;

export default function Projects() {
  const [search, setSearch] = useSearchState();
  const q = String(search.q ?? "");
  const status = String(search.status ?? "");
  const clientId = String(search.client ?? "");
  const page = Math.max(0, Number(search.page ?? 0) || 0);
  const [managing, setManaging] = useState<ProjectRow | null>(null);
  const [audit, setAudit] = useState(0);
  const { clients } = useClients();
  const filters = [
    q ? `contains(tolower(projectName),${odataString(q.toLowerCase())})` : "",
    /^\d+$/.test(status) ? `statusCode eq ${status}` : "",
    /^\d+$/.test(clientId) ? `clientId eq ${clientId}` : "",
  ].filter(Boolean);
  const query = {
    $select: "id,clientId,projectName,projectTypeId,statusCode,ownerUserId,createdAt",
    $expand: "client($select=name),owner($select=email)",
    $orderby: "createdAt desc",
    $count: true,
    $top: PAGE,
    $skip: page * PAGE,
    ...(filters.length ? { $filter: filters.join(" and ") } : {}),
  };
  const { data, isLoading, mutate } = useSet<ProjectRow>("Projects", query);
  const done = () => {
    void mutate();
    setAudit((n) => n + 1);
  };
  return (
    <div>
      <PageHeader title="Projects" subtitle="Every client's projects" />
      <div className="mb-4 grid gap-3 sm:grid-cols-[1fr_12rem_12rem]">
        <SearchBox id="admin-project-search" label="Search projects" value={q} onChange={(v) => setSearch({ q: v, page: null })} />
        <div>
          <label htmlFor="admin-project-status" className="sr-only">
            Status
          </label>
          <Select id="admin-project-status" value={status} onChange={(e) => setSearch({ status: e.target.value, page: null })}>
            <option value="">All statuses</option>
            {Object.entries(PROJECT_STATUSES).map(([k, v]) => (
              <option key={k} value={k}>
                {v}
              </option>
            ))}
          </Select>
        </div>
        <div>
          <label htmlFor="admin-project-client" className="sr-only">
            Client
          </label>
          <Select id="admin-project-client" value={clientId} onChange={(e) => setSearch({ client: e.target.value, page: null })}>
            <option value="">All clients</option>
            {clients
              ?.filter((c) => c.tier === "Team")
              .map((c) => (
                <option key={c.id} value={c.id}>
                  {c.name}
                </option>
              ))}
          </Select>
        </div>
      </div>
      <DataTable
        caption="Projects"
        head={["Project", "Team", "Status", "Owner", "Created", ""]}
        rows={data?.value}
        isLoading={isLoading}
        empty={filters.length ? "No projects match" : "No projects yet"}
        render={(p) => (
          <tr key={p.id}>
            <Td className="min-w-52">
              <ProjectLinkTo teamId={p.clientId} project={p} className="text-left font-medium text-ink-900 hover:text-brand-700 hover:underline">
                {p.projectName}
              </ProjectLinkTo>
              <p className="text-xs text-ink-500">
                #{p.id} · {PROJECT_TYPES[p.projectTypeId]}
              </p>
            </Td>
            <Td>{p.client?.name ?? p.clientId}</Td>
            <Td>
              <Badge tone={STATUS_TONE(p.statusCode)}>{PROJECT_STATUSES[p.statusCode] ?? p.statusCode}</Badge>
            </Td>
            <Td>{p.owner?.email ?? "—"}</Td>
            <Td className="whitespace-nowrap">{fmtDate(p.createdAt, false)}</Td>
            <Td>
              <div className="flex justify-end gap-2">
                <Link
                  href={`/surveys?project=${p.id}`}
                  className="inline-flex h-8 items-center rounded-lg px-3 text-sm font-medium text-brand-700 hover:bg-brand-50"
                  aria-label={`Survey runs of ${p.projectName}`}
                >
                  Runs
                </Link>
                <Button size="sm" variant="secondary" onClick={() => setManaging(p)} aria-label={`Manage ${p.projectName}`}>
                  Manage
                </Button>
              </div>
            </Td>
          </tr>
        )}
      />
      <Pager page={page} pageSize={PAGE} total={data?.["@odata.count"] ?? 0} onPage={(p) => setSearch({ page: p || null })} />
      {managing ? <ManageProject project={managing} teams={(clients ?? []).filter((c) => c.tier === "Team")} onClose={() => setManaging(null)} onDone={done} /> : null}
      <AuditLog filter="entityType eq 'Project'" title="Project events" refreshKey={audit} />
    </div>
  );
}

function ManageProject({ project, teams, onClose, onDone }: { project: ProjectRow; teams: { id: number; name: string }[]; onClose: () => void; onDone: () => void }) {
  const [name, setName] = useState(project.projectName);
  const [status, setStatus] = useState(String(project.statusCode));
  const [note, setNote] = useState("");
  const [moveTo, setMoveTo] = useState("");
  const [owner, setOwner] = useState(project.ownerUserId ? String(project.ownerUserId) : "");
  const [busy, setBusy] = useState<string | null>(null);
  const { data: members } = useSet<Row<"UserAndClients", "userId" | "roleId", { user: Row<"Users", "email"> | null }>>(
    "UserAndClients",
    { $select: "userId,roleId", $expand: "user($select=email)", $filter: `clientId eq ${project.clientId} and roleId le 2`, $top: 500 },
    project.clientId,
  );
  const on = { params: keyPath(project.id), ...forClient(project.clientId) };
  async function run(label: string, call: Call, success: string) {
    setBusy(label);
    const r = await act(call, success, project.projectName);
    setBusy(null);
    if (r) {
      onDone();
      onClose();
    }
  }
  const edit = () => {
    const body: Schemas["AdminEditProject"] = {};
    if (name.trim() !== project.projectName) body.projectName = name.trim();
    if (Number(status) !== project.statusCode) body.statusCode = oneOf(STATUS_CODES, status);
    if (note.trim()) body.note = note.trim();
    void run("edit", api.POST("/api/v1/Projects({key})/AdminEdit", { ...on, body }), "Project corrected");
  };
  return (
    <Modal
      open
      onClose={onClose}
      size="lg"
      title={`Manage ${project.projectName}`}
      footer={
        <Button variant="secondary" onClick={onClose}>
          Close
        </Button>
      }
    >
      <div className="space-y-6">
        <section aria-labelledby="pm-edit" className="space-y-3">
          <h3 id="pm-edit" className="font-semibold text-ink-900">
            Admin edit
          </h3>
          <div className="grid gap-3 sm:grid-cols-2">
            <Field id="pm-name" label="Name">
              <Input id="pm-name" value={name} onChange={(e) => setName(e.target.value)} />
            </Field>
            <Field id="pm-status" label="Status">
              <Select id="pm-status" value={status} onChange={(e) => setStatus(e.target.value)}>
                {Object.entries(PROJECT_STATUSES).map(([k, v]) => (
                  <option key={k} value={k}>
                    {k} {v}
                  </option>
                ))}
              </Select>
            </Field>
          </div>
          <Field id="pm-note" label="Why (kept in the audit row)">
            <Input id="pm-note" value={note} onChange={(e) => setNote(e.target.value)} />
          </Field>
          <Button size="sm" busy={busy === "edit"} onClick={edit} disabled={name.trim() === project.projectName && Number(status) === project.statusCode}>
            Save correction
          </Button>
        </section>
        <section aria-labelledby="pm-owner" className="space-y-3">
          <h3 id="pm-owner" className="font-semibold text-ink-900">
            Owner
          </h3>
          <div className="flex flex-col gap-2 sm:flex-row">
            <label htmlFor="pm-owner-select" className="sr-only">
              Owner
            </label>
            <Select id="pm-owner-select" value={owner} onChange={(e) => setOwner(e.target.value)}>
              <option value="">—</option>
              {members?.value.map((m) => (
                <option key={m.userId} value={m.userId}>
                  {m.user?.email ?? m.userId}
                </option>
              ))}
            </Select>
            <Button
              size="sm"
              variant="secondary"
              className="shrink-0"
              busy={busy === "owner"}
              disabled={!owner || Number(owner) === project.ownerUserId}
              onClick={() => void run("owner", api.POST("/api/v1/Projects({key})/UpdateProjectOwner", { ...on, body: { userId: Number(owner) } }), "Owner changed")}
            >
              Change owner
            </Button>
          </div>
        </section>
        <section aria-labelledby="pm-move" className="space-y-3">
          <h3 id="pm-move" className="font-semibold text-ink-900">
            Move to another team
          </h3>
          <p className="text-xs text-ink-600">Only a Draft without credit logs moves, within its enterprise.</p>
          <div className="flex flex-col gap-2 sm:flex-row">
            <label htmlFor="pm-move-select" className="sr-only">
              Team
            </label>
            <Select id="pm-move-select" value={moveTo} onChange={(e) => setMoveTo(e.target.value)}>
              <option value="">—</option>
              {teams
                .filter((t) => t.id !== project.clientId)
                .map((t) => (
                  <option key={t.id} value={t.id}>
                    {t.name}
                  </option>
                ))}
            </Select>
            <Button
              size="sm"
              variant="secondary"
              className="shrink-0"
              busy={busy === "move"}
              disabled={!moveTo}
              onClick={() => void run("move", api.POST("/api/v1/Projects({key})/Move", { ...on, body: { clientId: Number(moveTo) } }), "Project moved")}
            >
              Move
            </Button>
          </div>
        </section>
        <section aria-labelledby="pm-demo" className="flex items-center justify-between gap-3">
          <div>
            <h3 id="pm-demo" className="font-semibold text-ink-900">
              Demo
            </h3>
            <p className="text-xs text-ink-600">Marks the project as a demo (status 950).</p>
          </div>
          <Button
            size="sm"
            variant="secondary"
            busy={busy === "demo"}
            disabled={project.statusCode === 950}
            onClick={() => void run("demo", api.POST("/api/v1/Projects({key})/MarkAsDemo", { ...on, body: {} }), "Marked as demo")}
          >
            Mark as demo
          </Button>
        </section>
      </div>
    </Modal>
  );
}
