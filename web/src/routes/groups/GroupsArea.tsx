// /{clientId}/groups/{projectGroupId}/*: a project group's results (SPEC 2): the overview {tab?},
// segments, occasions, needs, qual/{questionId}, text/{questionId}, test-options/{tab}, u-and-a.
// The group's projects add up through the group functions (WeightSumGroup, QualResultsGroup,
// VerbatimGroup, ProjectGroupSegmentCounts); group segments chosen here filter every page.
import { lazy, Suspense, useMemo } from "react";
import { Link, Route, Switch, useLocation, useParams } from "wouter";
import { api, selected, type Page, type Row } from "../../api/client";
import { useApi } from "../../api/hooks";
import { EmptyState, PageSkeleton, cx } from "../../components/ui";
import { useSearchState } from "../../lib/search";
import { GroupCtx, type Group, type GroupQuestion } from "../../features/results/group";

const GroupOverview = lazy(() => import("./GroupOverview"));
const GroupSegments = lazy(() => import("./GroupSegments"));
const GroupQuestions = lazy(() => import("./GroupQuestions"));
const GroupQual = lazy(() => import("./GroupQual"));
const GroupText = lazy(() => import("./GroupText"));
const GroupTestOptions = lazy(() => import("./GroupTestOptions"));

const NAV = [
  { href: "", label: "Overview" },
  { href: "segments", label: "Segments" },
  { href: "occasions", label: "Occasions" },
  { href: "needs", label: "Needs" },
  { href: "u-and-a", label: "Usage & attitude" },
  { href: "test-options/all", label: "Test options" },
];

export default function GroupsArea({ clientId }: { clientId: number }) {
  const params = useParams<{ projectGroupId: string }>();
  const groupId = Number(params.projectGroupId);
  const [loc] = useLocation();
  const [search] = useSearchState();
  const { data: group, error } = useApi(Number.isInteger(groupId) ? ["ProjectGroups", groupId] : null, () =>
    selected<Group>(
      api.GET("/api/v1/ProjectGroups({key})", {
        params: {
          path: { key: String(groupId) },
          query: {
            $select: "id,name,description,activeVersionId",
            $expand:
              "activeVersion($select=id,versionNumber,name;$expand=projects($select=id,projectName,statusCode)),projectGroupVersions($select=id;$expand=projects($select=id,projectName,statusCode))",
          },
        },
      }),
    ),
  );
  const { data: questions } = useApi(group?.activeVersionId ? ["ProjectGroupQuestions", group.activeVersionId] : null, () =>
    selected<Page<GroupQuestion>>(
      api.GET("/api/v1/ProjectGroupQuestions", {
        params: {
          query: {
            $filter: `projectGroupVersionId eq ${group!.activeVersionId} and isHidden eq false`,
            $orderby: "questionPositionId,sortOrder",
            $select: "id,questionId,questionPositionId,title,sortOrder",
            $expand: "question($select=id,questionText,questionTypeId)",
          },
        },
      }),
    ),
  );
  const { data: tags } = useApi(["ProjectGroupTags", groupId], () =>
    selected<Page<Row<"ProjectGroupTags", "projectId", { project: Row<"Projects", "id" | "projectName" | "statusCode"> | null }>>>(
      api.GET("/api/v1/ProjectGroupTags", {
        params: { query: { $filter: `projectGroupId eq ${groupId} and projectId ne null`, $select: "projectId", $expand: "project($select=id,projectName,statusCode)" } },
      }),
    ),
  );
  // A group's projects, as the API pools them: those on any of its versions (a usage-and-attitude
  // seed project stays on the version it was made for) and those tagged into it.
  const projects = useMemo(() => {
    const m = new Map<number, { id: number; projectName: string; statusCode: number }>();
    for (const v of group?.projectGroupVersions ?? []) for (const p of v.projects ?? []) m.set(p.id, p);
    for (const t of tags?.value ?? []) if (t.project) m.set(t.project.id, t.project);
    return [...m.values()].sort((a, b) => a.id - b.id);
  }, [group, tags]);
  // The list is kept while its ids are the same (the search gives a new array on each render).
  const segKey = (Array.isArray(search.groupSegments) ? search.groupSegments.map(Number).filter(Number.isInteger) : []).join(",");
  const segmentIds = useMemo(() => (segKey ? segKey.split(",").map(Number) : []), [segKey]);
  const filtersJson = JSON.stringify(segmentIds.length ? { projectGroupSegmentIds: segmentIds } : {});
  const ctx = useMemo(
    () => (group && tags ? { clientId, group, projects, questions: questions?.value ?? [], filtersJson, segmentIds } : null),
    [clientId, group, tags, projects, questions, filtersJson, segmentIds],
  );
  if (error) return <EmptyState title="Project group not found">It may have been deleted, or it belongs to another team.</EmptyState>;
  if (!ctx || !group) return <PageSkeleton />;
  const here = loc.replace(/^\//, "");
  const qs = location.search;
  return (
    <GroupCtx.Provider value={ctx}>
      <div className="mb-5">
        <p className="text-xs font-medium text-ink-500">
          Project group · {group.activeVersion ? `version ${group.activeVersion.versionNumber}` : "no active version"} · {projects.length} project{projects.length === 1 ? "" : "s"}
        </p>
        <h1 className="text-2xl font-semibold text-ink-900">{group.name}</h1>
        {group.description ? <p className="mt-1 text-sm text-ink-600">{group.description}</p> : null}
      </div>
      <nav aria-label="Group pages" className="mb-6 flex gap-1 overflow-x-auto border-b border-ink-200">
        {NAV.map((n) => {
          const active = n.href === "" ? here === "" || here === "overview" : here.startsWith(n.href.split("/")[0]!);
          return (
            <Link
              key={n.label}
              href={`/${n.href}${qs}`}
              aria-current={active ? "page" : undefined}
              className={cx("-mb-px border-b-2 px-3 py-2.5 text-sm font-medium whitespace-nowrap", active ? "border-brand-600 text-brand-700" : "border-transparent text-ink-600 hover:text-ink-900")}
            >
              {n.label}
            </Link>
          );
        })}
      </nav>
      <Suspense fallback={<PageSkeleton />}>
        <Switch>
          <Route path="/segments">
            <GroupSegments />
          </Route>
          <Route path="/occasions">
            <GroupQuestions position={10} title="Occasions" />
          </Route>
          <Route path="/needs">
            <GroupQuestions position={11} title="Needs" />
          </Route>
          <Route path="/u-and-a">
            <GroupQuestions position={12} title="Usage & attitude" />
          </Route>
          <Route path="/qual/:questionId">{(p) => <GroupQual questionId={Number(p.questionId)} />}</Route>
          <Route path="/text/:questionId">{(p) => <GroupText questionId={Number(p.questionId)} />}</Route>
          <Route path="/test-options/:tab">{(p) => <GroupTestOptions tab={p.tab} />}</Route>
          <Route path="/:tab?">{(p) => <GroupOverview tab={p.tab} />}</Route>
        </Switch>
      </Suspense>
    </GroupCtx.Provider>
  );
}
