// A project group as staff shape it (SPEC 6: IdeallyAdmin): name and description, the projects
// tagged into it, its versions (CreateNewVersion) and segments (GenerateSegments,
// SyncSegmentSurveySessions). Used by {clientId}/edit-group/{id} and admin/project-groups/{id}.
import { useState } from "react";
import { api, selected, type Row } from "../../api/client";
import { useApi } from "../../api/hooks";
import { Badge, Button, Card, EmptyState, Field, Input, PageHeader, Select, Textarea } from "../../components/ui";
import { AuditLog, LoadingRows, act, forClient, keyPath, useSet, type Call } from "../admin/shared";

type Group = Row<
  "ProjectGroups",
  "id" | "clientId" | "name" | "description" | "activeVersionId",
  {
    client: Row<"Clients", "name"> | null;
    projectGroupVersions: Row<"ProjectGroupVersions", "id" | "versionNumber" | "name", { "projects@odata.count"?: number; "projectGroupSegments@odata.count"?: number }>[];
    projectGroupTags: Row<"ProjectGroupTags", "id" | "name" | "projectId", { project: Row<"Projects", "projectName"> | null }>[];
  }
>;

export function GroupEditor({ groupId, clientId }: { groupId: number; clientId?: number }) {
  const {
    data: g,
    isLoading,
    error,
    mutate,
  } = useApi(["ProjectGroups", groupId], () =>
    selected<Group>(
      api.GET("/api/v1/ProjectGroups({key})", {
        params: {
          ...keyPath(groupId),
          query: {
            $expand:
              "client($select=name),projectGroupVersions($orderby=versionNumber desc;$expand=projects/$count,projectGroupSegments/$count),projectGroupTags($expand=project($select=projectName))",
          },
        },
        ...forClient(clientId),
      }),
    ),
  );
  const [draft, setDraft] = useState<{ name: string; description: string } | null>(null);
  const [tagProject, setTagProject] = useState("");
  const [busy, setBusy] = useState<string | null>(null);
  const [audit, setAudit] = useState(0);
  const cid = g?.clientId ?? clientId ?? null;
  const { data: projects } = useSet<Row<"Projects", "id" | "projectName">>(
    "Projects",
    cid ? { $select: "id,projectName", $filter: `clientId eq ${cid}`, $orderby: "createdAt desc", $top: 500 } : null,
    cid,
  );
  if (error) return <EmptyState title="Project group not found">It may have been deleted, or the id is wrong.</EmptyState>;
  if (isLoading || !g) return <LoadingRows label="Loading project group" />;
  const d = draft ?? { name: g.name, description: g.description ?? "" };
  const after = () => {
    void mutate();
    setAudit((n) => n + 1);
  };
  async function run(label: string, call: Call, success: string) {
    setBusy(label);
    const r = await act(call, success, g!.name);
    setBusy(null);
    if (r !== undefined) after();
    return r;
  }
  const tagged = new Set(g.projectGroupTags.map((t) => t.projectId));
  return (
    <div>
      <PageHeader title={g.name} subtitle={`Project group of ${g.client?.name ?? `client ${g.clientId}`}`} />
      <div className="grid gap-6 xl:grid-cols-2">
        <Card title="Details">
          <div className="space-y-4">
            <Field id="g-name" label="Name">
              <Input id="g-name" value={d.name} onChange={(e) => setDraft({ ...d, name: e.target.value })} />
            </Field>
            <Field id="g-desc" label="Description">
              <Textarea id="g-desc" rows={3} value={d.description} onChange={(e) => setDraft({ ...d, description: e.target.value })} />
            </Field>
            <Button
              busy={busy === "save"}
              disabled={!draft || !d.name.trim()}
              onClick={async () => {
                const r = await run(
                  "save",
                  api.PATCH("/api/v1/ProjectGroups({key})", { params: keyPath(g.id), body: { name: d.name.trim(), description: d.description.trim() || null }, ...forClient(g.clientId) }),
                  "Group saved",
                );
                if (r) setDraft(null);
              }}
            >
              Save
            </Button>
          </div>
        </Card>
        <Card title="Projects tagged into the group">
          {g.projectGroupTags.length ? (
            <ul className="mb-4 space-y-1 text-sm">
              {g.projectGroupTags.map((t) => (
                <li key={t.id}>
                  {t.project?.projectName ?? t.name} {t.projectId ? <span className="text-xs text-ink-500">#{t.projectId}</span> : null}
                </li>
              ))}
            </ul>
          ) : (
            <p className="mb-4 text-sm text-ink-600">No projects tagged yet.</p>
          )}
          <div className="flex flex-col gap-2 sm:flex-row">
            <label htmlFor="g-tag" className="sr-only">
              Project to tag
            </label>
            <Select id="g-tag" value={tagProject} onChange={(e) => setTagProject(e.target.value)}>
              <option value="">Choose a project</option>
              {projects?.value
                .filter((p) => !tagged.has(p.id))
                .map((p) => (
                  <option key={p.id} value={p.id}>
                    {p.projectName}
                  </option>
                ))}
            </Select>
            <Button
              className="shrink-0"
              variant="secondary"
              busy={busy === "tag"}
              disabled={!tagProject}
              onClick={async () => {
                const p = projects?.value.find((x) => x.id === Number(tagProject));
                const r = await run(
                  "tag",
                  api.POST("/api/v1/ProjectGroupTags", { body: { projectGroupId: g.id, projectId: Number(tagProject), name: p?.projectName ?? `Project ${tagProject}` }, ...forClient(g.clientId) }),
                  "Project tagged",
                );
                if (r) setTagProject("");
              }}
            >
              Tag project
            </Button>
          </div>
        </Card>
      </div>
      <Card
        title="Versions"
        className="mt-6"
        actions={
          <div className="flex flex-wrap gap-2">
            <Button
              size="sm"
              variant="secondary"
              busy={busy === "version"}
              onClick={() => void run("version", api.POST("/api/v1/ProjectGroups({key})/CreateNewVersion", { params: keyPath(g.id), body: {}, ...forClient(g.clientId) }), "New version created")}
            >
              New version
            </Button>
            <Button
              size="sm"
              variant="secondary"
              busy={busy === "segments"}
              onClick={() => void run("segments", api.POST("/api/v1/ProjectGroups({key})/GenerateSegments", { params: keyPath(g.id), ...forClient(g.clientId) }), "Segments generated")}
            >
              Generate segments
            </Button>
            <Button
              size="sm"
              variant="secondary"
              busy={busy === "sync"}
              onClick={() => void run("sync", api.POST("/api/v1/ProjectGroups({key})/SyncSegmentSurveySessions", { params: keyPath(g.id), ...forClient(g.clientId) }), "Segment respondents synced")}
            >
              Sync segments
            </Button>
          </div>
        }
      >
        {g.projectGroupVersions.length ? (
          <ul className="divide-y divide-ink-100 text-sm">
            {g.projectGroupVersions.map((v) => (
              <li key={v.id} className="flex flex-wrap items-center gap-3 py-2">
                <span className="font-medium">
                  v{v.versionNumber}
                  {v.name ? ` ${v.name}` : ""}
                </span>
                {v.id === g.activeVersionId ? <Badge tone="green">Active</Badge> : null}
                <span className="text-ink-600">
                  {v["projects@odata.count"] ?? 0} projects · {v["projectGroupSegments@odata.count"] ?? 0} segments
                </span>
              </li>
            ))}
          </ul>
        ) : (
          <p className="text-sm text-ink-600">No versions yet: create one to hold the group's questions and segments.</p>
        )}
      </Card>
      <AuditLog filter={`entityType eq 'ProjectGroup' and entityId eq ${g.id}`} title="Group changes" refreshKey={audit} />
    </div>
  );
}
