// /{clientId}/results/{projectId}/*: the results frame (SPEC 2 "Results page"): the header with
// rename and clone, the route list as a left sub-nav, the filter sidebar, the side panels, and
// every results route as its own lazily loaded chunk. The empty path asks the API where the
// project opens (Projects ResultsLanding) and keeps the query parameters.
import { Suspense, useMemo, useState, type ReactNode } from "react";
import { Link, Redirect, Route, Switch, useLocation, useParams } from "wouter";
import { api } from "../../api/client";
import { useApi } from "../../api/hooks";
import { Button, PageSkeleton, cx } from "../../components/ui";
import { PROJECT_STATUSES, PROJECT_TYPES } from "../../lib/constants";
import { resultsLink } from "../../lib/projectLinks";
import { ResultsProvider, useResults, useResultsProject, type ResultsProject, type ResultsQuestion } from "../../features/results/context";
import { filterCount } from "../../features/results/filters";
import { TEXT_TYPE, hasAdvertisingMeasures, isPriceQuestion, questionLabel, questionRoute } from "../../features/results/questions";
import { useMe } from "../../state/app";
import { ProjectAccessProvider, SharedProjectNote, useProjectAccess } from "../../features/access";
import { FilterSidebar } from "./FilterSidebar";
import { CloneDialog, RenameDialog } from "./ProjectDialogs";
import { PanelHost, type PanelId } from "./panels/PanelHost";
import {
  Summary,
  Overview,
  Demographics,
  Advertising,
  Npd,
  QuestionPage,
  TextPage,
  Wave,
  Drivers,
  GrowIdeas,
  HeadToHead,
  PriceSensitivity,
  MarketReach,
  Chat,
  Markets,
  CrossTab,
} from "../../app/resultsPages";
import { AllMarketsNote } from "./AllMarketsNote";
import { SimulatedNote } from "./SimulatedNote";

type NavEntry = { href: string; label: string; match: string };

function useNav(project: ResultsProject, questions: ResultsQuestion[], options: { id: number; conceptText: string }[], marketReach: boolean): { title: string; items: NavEntry[] }[] {
  return useMemo(() => {
    const sections: { title: string; items: NavEntry[] }[] = [];
    const main: NavEntry[] = [];
    const t = project.projectTypeId;
    const fw = project.frameworkId;
    if (t === 4) main.push({ href: "npd", label: "NPD", match: "npd" });
    main.push({ href: "summary", label: "Summary", match: "summary" }, { href: "all", label: "All results", match: "all" });
    if (hasAdvertisingMeasures(questions)) main.push({ href: "advertising", label: "Advertising", match: "advertising" });
    if (fw === 1010 || questions.some((q) => isPriceQuestion(q.standardQuestionId))) main.push({ href: "price-sensitivity", label: "Price sensitivity", match: "price-sensitivity" });
    if (marketReach && (fw === 1020 || questions.some((q) => q.standardQuestionId === 25))) main.push({ href: "market-reach", label: "Market reach", match: "market-reach" });
    if (project.projectsRegions.length > 1) main.push({ href: "markets", label: "Markets", match: "markets" });
    main.push({ href: "crosstab", label: "Cross-tabs", match: "crosstab" });
    main.push({ href: "demographics", label: "Demographics", match: "demographics" }, { href: "drivers", label: "Drivers", match: "drivers" });
    if (options.length >= 2) main.push({ href: "h2h/measures", label: "Head to head", match: "h2h" });
    const waveQ = questions.find((q) => q.standardQuestionId !== null && q.question?.questionTypeId !== TEXT_TYPE && q.standardQuestionId < 19);
    const waveMode = (!!project.scheduleStartDate && !!project.scheduleFrequencyWeeks) || project.wavesRequired || (project.scheduleWavesRequired ?? 0) > 1;
    if ((waveMode || t === 4) && waveQ) main.push({ href: `wave/${waveQ.id}`, label: t === 4 ? "Weeks since launch" : "Waves", match: "wave" });
    main.push({ href: "chat", label: "AI chat", match: "chat" });
    sections.push({ title: "Results", items: main });
    if (options.length) sections.push({ title: "Test options", items: options.map((o) => ({ href: `grow-ideas/${o.id}`, label: o.conceptText, match: `grow-ideas/${o.id}` })) });
    const qs = questions
      .map((q) => ({ q, route: questionRoute(q, t) }))
      .filter((x): x is { q: ResultsQuestion; route: string } => x.route !== null)
      .map(({ q, route }) => ({ href: route, label: questionLabel(q), match: route }));
    if (qs.length) sections.push({ title: "Questions", items: qs });
    return sections;
  }, [project, questions, options, marketReach]);
}

function SubNav({ sections }: { sections: { title: string; items: NavEntry[] }[] }) {
  const { clientId, projectId } = useResults();
  const [loc] = useLocation();
  const here = loc.replace(/^\//, "");
  return (
    <nav aria-label="Results pages" className="space-y-5">
      {sections.map((s) => (
        <div key={s.title}>
          <h2 className="mb-1.5 px-2 text-xs font-semibold tracking-wide text-ink-500 uppercase">{s.title}</h2>
          <ul className="space-y-0.5">
            {s.items.map((i) => {
              const active = here === i.match || here.startsWith(`${i.match}/`);
              return (
                <li key={i.href}>
                  <Link
                    href={`~${resultsLink(clientId, projectId, i.href)}`}
                    aria-current={active ? "page" : undefined}
                    className={cx("block truncate rounded-md px-2 py-1.5 text-sm", active ? "bg-brand-50 font-medium text-brand-800" : "text-ink-700 hover:bg-ink-100")}
                    title={i.label}
                  >
                    {i.label}
                  </Link>
                </li>
              );
            })}
          </ul>
        </div>
      ))}
    </nav>
  );
}

/** The empty path: where ResultsLanding says; a market-reach project without the MarketReach flag opens the overview (all). */
function Landing({ marketReach }: { marketReach: boolean | null }) {
  const { clientId, projectId } = useResults();
  const { data } = useApi(["ResultsLanding", projectId], () => api.GET("/api/v1/Projects({key})/ResultsLanding", { params: { path: { key: String(projectId) } } }));
  if (!data || marketReach === null) return <PageSkeleton />;
  const tab = data.tab.startsWith("market-reach") && !marketReach ? "all" : data.tab;
  return <Redirect to={`~${resultsLink(clientId, projectId, tab)}`} replace />;
}

const PANEL_BUTTONS: { id: PanelId; label: string }[] = [
  { id: "info", label: "Test info" },
  { id: "benchmark", label: "Benchmark" },
  { id: "segment", label: "Filter sets" },
  { id: "objectives", label: "Objectives" },
  { id: "followers", label: "Followers" },
  { id: "scheduling", label: "Scheduling" },
  { id: "export", label: "Export" },
];

function Frame({ children, marketReach }: { children: ReactNode; marketReach: boolean }) {
  const ctx = useResults();
  const { project, questions, testOptions, filters, benchmarks, benchmarkId } = ctx;
  const sections = useNav(project, questions, testOptions, marketReach);
  const [panel, setPanel] = useState<PanelId | null>(null);
  const [renaming, setRenaming] = useState(false);
  const [cloning, setCloning] = useState(false);
  const [filtersOpen, setFiltersOpen] = useState(false);
  const [navOpen, setNavOpen] = useState(false);
  const count = filterCount(filters);
  const bm = benchmarks?.find((b) => b.benchmarkTypeId === benchmarkId);
  const { data: access } = useProjectAccess(project.id);
  const canWrite = access?.canWrite ?? false;
  return (
    <ProjectAccessProvider access={access}>
      <SharedProjectNote access={access} />
      <header className="mb-5 space-y-3">
        <div className="min-w-0">
          <p className="text-xs font-medium text-ink-500">
            {PROJECT_TYPES[project.projectTypeId]} · {project.framework?.title ?? "No framework"} · {PROJECT_STATUSES[project.statusCode] ?? project.statusCode}
          </p>
          <div className="flex items-center gap-2">
            <h1 className="min-w-0 text-2xl font-semibold break-words text-ink-900">{project.projectName}</h1>
            {canWrite ? (
              <Button variant="ghost" size="sm" onClick={() => setRenaming(true)} aria-label="Rename project">
                Rename
              </Button>
            ) : null}
          </div>
          <p className="mt-0.5 text-sm text-ink-600">
            Benchmark: <span className="font-medium text-ink-800">{bm ? bm.description : "…"}</span>
          </p>
          {ctx.allMarkets ? <AllMarketsNote /> : null}
          <SimulatedNote />
        </div>
        <div className="flex flex-wrap gap-2">
          {PANEL_BUTTONS.map((b) => (
            <Button key={b.id} variant="secondary" size="sm" onClick={() => setPanel(b.id)}>
              {b.label}
            </Button>
          ))}
          {canWrite ? (
            <Button variant="secondary" size="sm" onClick={() => setCloning(true)}>
              Clone
            </Button>
          ) : null}
        </div>
      </header>
      <div className="mb-4 flex gap-2 lg:hidden">
        <Button variant="secondary" size="sm" onClick={() => setNavOpen((v) => !v)} aria-expanded={navOpen}>
          Pages
        </Button>
        <Button variant="secondary" size="sm" onClick={() => setFiltersOpen((v) => !v)} aria-expanded={filtersOpen}>
          Filters{count ? ` (${count})` : ""}
        </Button>
      </div>
      <div className="grid gap-5 lg:grid-cols-[11rem_minmax(0,1fr)_15rem]">
        <aside className={cx("lg:block", navOpen ? "block" : "hidden")}>
          <SubNav sections={sections} />
        </aside>
        <div className="min-w-0" data-testid="results-page">
          {children}
        </div>
        <aside className={cx("order-first lg:order-none lg:block", filtersOpen ? "block" : "hidden")} aria-label="Filters">
          <FilterSidebar onOpenSegments={() => setPanel("segment")} />
        </aside>
      </div>
      <PanelHost panel={panel} onClose={() => setPanel(null)} />
      {renaming ? <RenameDialog onClose={() => setRenaming(false)} /> : null}
      {cloning ? <CloneDialog onClose={() => setCloning(false)} /> : null}
    </ProjectAccessProvider>
  );
}

export default function ResultsArea({ clientId }: { clientId: number }) {
  const params = useParams<{ projectId: string }>();
  const projectId = Number(params.projectId);
  const { data: project, mutate } = useResultsProject(projectId);
  const { data: me } = useMe(clientId);
  const marketReach = !!me?.featureFlags?.some((f) => f.ff === "MarketReach" && f.isEnabled);
  if (!project) return <PageSkeleton />;
  return (
    <ResultsProvider clientId={clientId} project={project} refetchProject={() => void mutate()}>
      <Frame marketReach={marketReach}>
        <Suspense fallback={<PageSkeleton />}>
          <Switch>
            <Route path="/">
              <Landing marketReach={me ? marketReach : null} />
            </Route>
            <Route path="/summary">
              <Summary />
            </Route>
            <Route path="/demographics">
              <Demographics />
            </Route>
            <Route path="/markets">
              <Markets />
            </Route>
            <Route path="/crosstab">
              <CrossTab />
            </Route>
            <Route path="/advertising">
              <Advertising />
            </Route>
            <Route path="/npd">
              <Npd />
            </Route>
            <Route path="/npd-qual/:projectQuestionId">{(p) => <QuestionPage projectQuestionId={Number(p.projectQuestionId)} kind="npd-qual" />}</Route>
            <Route path="/npd-text/:projectQuestionId">{(p) => <TextPage projectQuestionId={Number(p.projectQuestionId)} kind="npd-text" />}</Route>
            <Route path="/qual/:projectQuestionId/:tab?">{(p) => <QuestionPage projectQuestionId={Number(p.projectQuestionId)} kind="qual" tab={p.tab} />}</Route>
            <Route path="/wave/:projectQuestionId">{(p) => <Wave projectQuestionId={Number(p.projectQuestionId)} />}</Route>
            <Route path="/text/:projectQuestionId/:tab?">{(p) => <TextPage projectQuestionId={Number(p.projectQuestionId)} kind="text" tab={p.tab} />}</Route>
            <Route path="/drivers">
              <Drivers />
            </Route>
            <Route path="/grow-ideas/:testOptionId/:tab?">{(p) => <GrowIdeas testOptionId={Number(p.testOptionId)} tab={p.tab} />}</Route>
            <Route path="/h2h/:tab">{(p) => <HeadToHead tab={p.tab} />}</Route>
            <Route path="/segment-question/:projectQuestionId">{(p) => <QuestionPage projectQuestionId={Number(p.projectQuestionId)} kind="segment-question" />}</Route>
            <Route path="/profile-question/:projectQuestionId">{(p) => <QuestionPage projectQuestionId={Number(p.projectQuestionId)} kind="profile-question" />}</Route>
            <Route path="/price-sensitivity">
              <PriceSensitivity />
            </Route>
            <Route path="/market-reach/:tab?">{(p) => (marketReach ? <MarketReach tab={p.tab} /> : me ? <Redirect to="~/" replace /> : <PageSkeleton />)}</Route>
            <Route path="/chat/:chatId?">{(p) => <Chat chatId={p.chatId ? Number(p.chatId) : undefined} />}</Route>
            <Route path="/:tab">{(p) => <Overview tab={p.tab} />}</Route>
          </Switch>
        </Suspense>
      </Frame>
    </ResultsProvider>
  );
}
