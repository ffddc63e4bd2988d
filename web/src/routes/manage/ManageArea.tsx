// manage-team, manage-org and manage-enterprise (SPEC 2): default pages and redirects, the area's
// sub-navigation, and its pages. Each page module is its own chunk, so the charts load only where
// a dashboard shows them.
import { lazy, Suspense } from "react";
import { Redirect, Route, Switch, useLocation } from "wouter";
import type { CurrentClient } from "../../state/client";
import { PageSkeleton, TabLinks } from "../../components/ui";
import { AREA_PAGES, type ManageKind, type ManageProps } from "./manage";

export type { ManageKind };

const Members = lazy(() => import("./Members"));
const Transactions = lazy(() => import("./Transactions"));
const Templates = lazy(() => import("./Templates"));
const Dashboard = lazy(() => import("./Dashboard"));
const Security = lazy(() => import("./Security"));

const DEFAULT: Record<ManageKind, string> = { team: "/members", org: "/admin-dashboard", enterprise: "/overview" };

export default function ManageArea({ client, area }: { client: CurrentClient; area: ManageKind }) {
  const [path] = useLocation();
  const active = path.split("/")[1] ?? "";
  const props: ManageProps = { client, area };
  const pages = AREA_PAGES[area];
  return (
    <div>
      <TabLinks label={`Manage ${area}`} active={active} tabs={pages.map((p) => ({ id: p.id, label: p.label, href: `/${p.id}` }))} />
      <Suspense fallback={<PageSkeleton />}>
        <Switch>
          <Route path="/">
            <Redirect to={DEFAULT[area]} replace />
          </Route>
          {area === "team" ? (
            <Route path="/overview">
              <Redirect to="/members" replace />
            </Route>
          ) : null}
          {area === "enterprise" ? (
            <Route path="/admin-dashboard">
              <Redirect to="/overview" replace />
            </Route>
          ) : null}
          {area === "team" ? (
            <Route path="/members/:tab?">{(p) => <Members {...props} tab={p.tab} />}</Route>
          ) : (
            <Route path="/members">
              <Members {...props} />
            </Route>
          )}
          <Route path="/transactions/:tab?">{(p) => <Transactions {...props} tab={p.tab} />}</Route>
          {area === "team" ? (
            <Route path="/templates">
              <Templates {...props} />
            </Route>
          ) : null}
          {area === "org" ? (
            <Route path="/admin-dashboard">
              <Dashboard {...props} view="dashboard" />
            </Route>
          ) : null}
          {area !== "team" ? (
            <Route path="/overview">
              <Dashboard {...props} view={area === "enterprise" ? "both" : "overview"} />
            </Route>
          ) : null}
          {area !== "team" ? (
            <Route path="/security">
              <Security {...props} />
            </Route>
          ) : null}
          <Route>
            <Redirect to={DEFAULT[area]} replace />
          </Route>
        </Switch>
      </Suspense>
    </div>
  );
}
