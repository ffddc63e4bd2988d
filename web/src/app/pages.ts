// The app's code-split pages, one chunk each, and the chunks a URL needs. main.tsx preloads them
// before the first render, so a page opened directly (a link, a reload) draws in one pass instead
// of one Suspense reveal per level of areas (lib/lazyPage.ts says why that costs 0.3 s a level).
// The paths here are SPEC 2's first segments; the areas' Switches remain what decides a route.
import { lazyPage, type LazyPage } from "../lib/lazyPage";
import { getToken } from "../state/session";
import { Onboarding, Account, AdminArea } from "./signedInPages";
import { Home, ProjectPage, ProjectSurveys, ManageArea, ResultsArea, GroupsArea, CreateGroup, EditGroup } from "./clientPages";
import { Summary, Overview, Demographics, Advertising, Npd, QuestionPage, TextPage, Wave, Drivers, GrowIdeas, HeadToHead, PriceSensitivity, MarketReach, Chat } from "./resultsPages";

// Outside sign-in (App.tsx)
export const AuthArea = lazyPage(() => import("../routes/auth/AuthArea"));
export const InvitesArea = lazyPage(() => import("../routes/auth/InvitesArea"));
export const CommonArea = lazyPage(() => import("../routes/common/CommonArea"));
export const SignedInArea = lazyPage(() => import("./SignedInArea"));

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
