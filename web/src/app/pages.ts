// The app's code-split pages, one chunk each, and the chunks a URL needs. main.tsx preloads them
// before the first render, so a page opened directly (a link, a reload) draws in one pass instead
// of one Suspense reveal per level of areas (lib/lazyPage.ts says why that costs 0.3 s a level).
// The paths here are SPEC 2's first segments; the areas' Switches remain what decides a route.
import { lazyPage, type LazyPage } from "../lib/lazyPage";
import { getToken } from "../state/session";

// Outside sign-in (App.tsx)
export const AuthArea = lazyPage(() => import("../routes/auth/AuthArea"));
export const InvitesArea = lazyPage(() => import("../routes/auth/InvitesArea"));
export const CommonArea = lazyPage(() => import("../routes/common/CommonArea"));
export const SignedInArea = lazyPage(() => import("./SignedInArea"));
// Behind sign-in (SignedInArea.tsx)
export const Onboarding = lazyPage(() => import("../routes/account/Onboarding"));
export const Account = lazyPage(() => import("../routes/account/Account"));
export const AdminArea = lazyPage(() => import("../routes/admin/AdminArea"));
// A client's pages (ClientArea.tsx)
export const Home = lazyPage(() => import("../routes/main/Home"));
export const ProjectPage = lazyPage(() => import("../routes/main/ProjectPage"));
export const ProjectSurveys = lazyPage(() => import("../routes/main/ProjectSurveys"));
export const ManageArea = lazyPage(() => import("../routes/manage/ManageArea"));
export const ResultsArea = lazyPage(() => import("../routes/results/ResultsArea"));
export const GroupsArea = lazyPage(() => import("../routes/groups/GroupsArea"));
export const CreateGroup = lazyPage(() => import("../routes/groups-admin/CreateGroup"));
export const EditGroup = lazyPage(() => import("../routes/groups-admin/EditGroup"));
// A project's results pages (ResultsArea.tsx)
export const Summary = lazyPage(() => import("../routes/results/pages/Summary"));
export const Overview = lazyPage(() => import("../routes/results/pages/Overview"));
export const Demographics = lazyPage(() => import("../routes/results/pages/Demographics"));
export const Advertising = lazyPage(() => import("../routes/results/pages/Advertising"));
export const Npd = lazyPage(() => import("../routes/results/pages/Npd"));
export const QuestionPage = lazyPage(() => import("../routes/results/pages/QuestionPage"));
export const TextPage = lazyPage(() => import("../routes/results/pages/TextPage"));
export const Wave = lazyPage(() => import("../routes/results/pages/Wave"));
export const Drivers = lazyPage(() => import("../routes/results/pages/Drivers"));
export const GrowIdeas = lazyPage(() => import("../routes/results/pages/GrowIdeas"));
export const HeadToHead = lazyPage(() => import("../routes/results/pages/HeadToHead"));
export const PriceSensitivity = lazyPage(() => import("../routes/results/pages/PriceSensitivity"));
export const MarketReach = lazyPage(() => import("../routes/results/pages/MarketReach"));
export const Chat = lazyPage(() => import("../routes/results/pages/Chat"));
export const Markets = lazyPage(() => import("../routes/results/pages/Markets"));
export const CrossTab = lazyPage(() => import("../routes/results/pages/CrossTab"));

/** A page of these tables: their props differ, and only preload is called through them. */
type AnyPage = Pick<LazyPage<object>, "preload">;

const OUTSIDE: Record<string, AnyPage> = { auth: AuthArea, invites: InvitesArea, common: CommonArea };
const SIGNED_IN: Record<string, AnyPage> = { onboarding: Onboarding, account: Account, admin: AdminArea };
const CLIENT: Record<string, AnyPage> = {
  home: Home,
  projects: ProjectPage,
  "project-surveys": ProjectSurveys,
  results: ResultsArea,
  groups: GroupsArea,
  "create-group": CreateGroup,
  "edit-group": EditGroup,
  "manage-team": ManageArea,
  "manage-org": ManageArea,
  "manage-enterprise": ManageArea,
};
const RESULTS: Record<string, AnyPage> = {
  summary: Summary,
  demographics: Demographics,
  advertising: Advertising,
  npd: Npd,
  "npd-qual": QuestionPage,
  "npd-text": TextPage,
  qual: QuestionPage,
  wave: Wave,
  text: TextPage,
  drivers: Drivers,
  "grow-ideas": GrowIdeas,
  h2h: HeadToHead,
  "segment-question": QuestionPage,
  "profile-question": QuestionPage,
  "price-sensitivity": PriceSensitivity,
  "market-reach": MarketReach,
  chat: Chat,
};

/** The chunks a path draws with: its area and, in a client's results, the results page. */
export function pagesFor(path: string, signedIn: boolean): AnyPage[] {
  const [first = "", second = "", , fourth] = path.split("/").filter(Boolean);
  if (OUTSIDE[first]) return [OUTSIDE[first]];
  if (!signedIn) return [];
  const pages: AnyPage[] = [SignedInArea];
  if (SIGNED_IN[first]) pages.push(SIGNED_IN[first]);
  else if (/^\d+$/.test(first)) {
    const area = CLIENT[second || "home"];
    if (area) pages.push(area);
    if (second === "results" && fourth) pages.push(RESULTS[fourth] ?? Overview); // any other tab is the overview
  }
  return pages;
}

/** Starts loading a path's chunks; resolves when they are here (a failed one is left to its page). */
export function preloadPath(path: string): Promise<void> {
  return Promise.all(pagesFor(path, !!getToken()).map((p) => p.preload().catch(() => {}))).then(() => {});
}
