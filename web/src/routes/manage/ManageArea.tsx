// manage-team, manage-org and manage-enterprise (SPEC 2): default pages and redirects.
import { Redirect, Route, Switch } from "wouter";
import type { CurrentClient } from "../../app/ClientArea";
import { PageHeader } from "../../components/ui";

export type ManageKind = "team" | "org" | "enterprise";

const DEFAULT: Record<ManageKind, string> = { team: "/members", org: "/admin-dashboard", enterprise: "/overview" };

export default function ManageArea({ client, area }: { client: CurrentClient; area: ManageKind }) {
  return (
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
      <Route>
        <PageHeader title={`Manage ${area}`} subtitle={client.name} />
      </Route>
    </Switch>
  );
}
