// What every results page shares: the project and its lookups, the active filter state from the
// URL, the effective region, the response filter as the API takes it, the benchmark and the view
// settings. ResultsArea provides it; pages read it with useResults().
import { createContext, useCallback, useContext, useEffect, useMemo, useState, type ReactNode } from "react";
import { api, selected, type Page, type Row, type Schemas } from "../../api/client";
import { useApi } from "../../api/hooks";
import { useSearchState } from "../../lib/search";
import { questionSortKey } from "../../lib/constants";
import { useProjectAs, type ProjectDetail } from "../useProject";
import { benchmarkTypeAvailable, chooseBenchmark, storeBenchmarkId, storedBenchmarkId, viewSettings, type ViewSettings } from "./benchmarks";
import { effectiveRegionId, filtersFromSearch, filtersToSearch, isAllMarkets, toResponseFilter, type FilterState, type ResponseFilter } from "./filters";

/** The project as the results pages read it: the project pages' fields and its launch weeks. */
export type ResultsProject = ProjectDetail &
  Row<
    "Projects",
    "completedAt" | "launchDate" | "activeProjectObjectiveId" | "projectGroupVersionId",
    { projectWeeks: Row<"ProjectWeeks", "id" | "surveyRunId" | "regionId" | "week" | "scheduleDate">[] }
  >;

export type TestOption = Row<"TestOptions", "id" | "conceptText" | "conceptDescription" | "file" | "sortOrder">;

export type ResultsQuestion = Row<
  "ProjectQuestions",
  "id" | "questionPositionId" | "sortOrder" | "standardQuestionId" | "testOptionId",
  { question: Row<"Questions", "id" | "questionText" | "questionTitle" | "questionTypeId", { questionOptions: Row<"QuestionOptions", "id" | "optionText" | "exclusive" | "sortOrder">[] }> | null }
>;

export type BenchmarkRow = Schemas["ProjectBenchmarks"]["value"][number];

const PROJECT_EXPAND =
  "framework($select=id,title),projectsRegions($select=regionId;$expand=region($select=regionName,currencySymbol,currencyCode)),projectWeeks($select=id,surveyRunId,regionId,week,scheduleDate)";

export interface ResultsCtx {
  clientId: number;
  projectId: number;
  project: ResultsProject;
  refetchProject: () => void;
  testOptions: TestOption[];
  questions: ResultsQuestion[];
  regionIds: number[];
  regionId: number;
  /** "All markets" is chosen: the figures are the all-markets total (QualResults total=markets). */
  allMarkets: boolean;
  filters: FilterState;
  setFilters: (next: FilterState) => void;
  responseFilter: ResponseFilter;
  /** JSON of responseFilter: the `filters` query parameter and part of every swr key. */
  filtersJson: string;
  benchmarks: BenchmarkRow[] | undefined;
  benchmarkId: number | null;
  setBenchmarkId: (id: number) => void;
  npdWeek: number | null;
  view: ViewSettings;
  setView: (patch: Partial<{ splitBy: string; metric: string; benchmarkLine: string; confidence: string; adjust: string; xrows: string; xbanner: string }>) => void;
  confidence: "90" | "95" | "99";
  /** Multiple-comparison adjustment within a view (docs/statistics.md): Benjamini-Hochberg by default. */
  adjust: "bh" | "bonferroni" | "none";
  search: Record<string, unknown>;
}

const Ctx = createContext<ResultsCtx | null>(null);

export function useResults(): ResultsCtx {
  const c = useContext(Ctx);
  if (!c) throw new Error("useResults outside ResultsProvider");
  return c;
}

export function useResultsProject(projectId: number) {
  return useProjectAs(projectId, PROJECT_EXPAND, (call) => selected<ResultsProject>(call));
}

export function ResultsProvider({ clientId, project, refetchProject, children }: { clientId: number; project: ResultsProject; refetchProject: () => void; children: ReactNode }) {
  const projectId = project.id;
  const [search, setSearch] = useSearchState();
  const filters = useMemo(() => filtersFromSearch(search), [search]);
  const regionIds = useMemo(() => project.projectsRegions.map((r) => r.regionId), [project]);
  const allMarkets = isAllMarkets(filters.selectedRegionId, regionIds);
  // With All markets, regionId stays the first market: the demographic options' labels come from it.
  const regionId = effectiveRegionId(filters.selectedRegionId, regionIds);
  const responseFilter = useMemo(() => toResponseFilter(filters, allMarkets ? regionIds : regionId), [filters, regionId, allMarkets, regionIds]);
  const filtersJson = JSON.stringify(responseFilter);
  const setFilters = useCallback((next: FilterState) => setSearch(filtersToSearch(next)), [setSearch]);

  const { data: to } = useApi(["TestOptions", projectId], () =>
    selected<Page<TestOption>>(
      api.GET("/api/v1/TestOptions", { params: { query: { $filter: `projectId eq ${projectId}`, $orderby: "id", $select: "id,conceptText,conceptDescription,file,sortOrder" } } }),
    ),
  );
  const { data: qs } = useApi(["ProjectQuestions", projectId], () =>
    selected<Page<ResultsQuestion>>(
      api.GET("/api/v1/ProjectQuestions", {
        params: {
          query: {
            $filter: `projectId eq ${projectId}`,
            $orderby: "questionPositionId,sortOrder",
            $select: "id,questionPositionId,sortOrder,standardQuestionId,testOptionId",
            $expand: "question($select=id,questionText,questionTitle,questionTypeId;$expand=questionOptions($select=id,optionText,exclusive,sortOrder))",
            $top: 1000,
          },
        },
      }),
    ),
  );
  const regionsParam = allMarkets ? JSON.stringify(regionIds) : `[${regionId}]`;
  const { data: bm } = useApi(["Benchmarks", projectId, regionsParam], () =>
    api.GET("/api/v1/Projects({key})/Benchmarks", { params: { path: { key: String(projectId) }, query: { regionIds: regionsParam } } }),
  );
  const npdWeek = project.projectTypeId === 4 && project.projectWeeks.length ? Math.max(...project.projectWeeks.map((w) => w.week)) : null;
  const benchmarks = useMemo(
    () => bm?.value.map((b) => ({ ...b, isAvailable: b.isAvailable && (project.projectTypeId !== 4 || benchmarkTypeAvailable(b.benchmarkTypeId, npdWeek)) })),
    [bm, project.projectTypeId, npdWeek],
  );
  const [chosen, setChosen] = useState<number | null>(() => storedBenchmarkId());
  const benchmarkId = benchmarks ? chooseBenchmark(benchmarks, chosen) : null;
  const setBenchmarkId = useCallback((id: number) => {
    storeBenchmarkId(id);
    setChosen(id);
  }, []);
  useEffect(() => setChosen(storedBenchmarkId()), [projectId]);

  const view = useMemo(() => viewSettings(search), [search]);
  const confidence = search.confidence === "90" || search.confidence === "99" ? search.confidence : "95";
  const adjust = search.adjust === "bonferroni" || search.adjust === "none" ? search.adjust : "bh";
  const setView = useCallback((patch: Record<string, string>) => setSearch(patch), [setSearch]);
  const questions = useMemo(() => [...(qs?.value ?? [])].sort((a, b) => questionSortKey(a) - questionSortKey(b)), [qs]);

  const value: ResultsCtx = {
    clientId,
    projectId,
    project,
    refetchProject,
    testOptions: to?.value ?? [],
    questions,
    regionIds,
    regionId,
    allMarkets,
    filters,
    setFilters,
    responseFilter,
    filtersJson,
    benchmarks,
    benchmarkId,
    setBenchmarkId,
    npdWeek,
    view,
    setView,
    confidence,
    adjust,
    search,
  };
  return <Ctx.Provider value={value}>{children}</Ctx.Provider>;
}

export function testOptionName(options: TestOption[], id: number | null): string {
  if (id === null) return "All";
  return options.find((o) => o.id === id)?.conceptText ?? `Option ${id}`;
}
