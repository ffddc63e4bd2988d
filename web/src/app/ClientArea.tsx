// /{clientId}/*: a numeric client id switches the current client (SPEC 2). The client is fetched
// first; a 404 or 403 drops the stored client_id and moves to the first client by name, or logs
// out when there is none (SPEC 8).
import { useEffect } from "react";
import { Redirect, Route, Switch, useLocation } from "wouter";
import { ApiError, api, selected } from "../api/client";
import { useApi } from "../api/hooks";
import { PageSkeleton } from "../components/ui";
import { STORAGE } from "../lib/constants";
import { defaultClientId, storeClientId, tierHome } from "../state/app";
import { joinClientChannel } from "../state/realtime";
import { logout } from "../state/session";
import { AppShell } from "./AppShell";
import { Gate, TierRedirect } from "./gates";
import { Home, ProjectPage, ProjectSurveys, ManageArea, ResultsArea, GroupsArea, CreateGroup, EditGroup } from "./clientPages";
import type { CurrentClient } from "../state/client";

/** The management areas of SPEC 2, each behind its tier's admin policy. */
const MANAGE_AREAS = [
  { area: "team", policy: "TeamAdmin" },
  { area: "org", policy: "OrgAdmin" },
  { area: "enterprise", policy: "EnterpriseAdmin" },
] as const;

export function useClient(clientId: number) {
  return useApi(
    ["Clients", clientId],
    () =>
      selected<CurrentClient>(
        api.GET("/api/v1/Clients({key})", {
          params: { path: { key: String(clientId) }, query: { $select: "id,name,tier,parentId,industry", $expand: "hubspotCompanies" } },
          headers: { clientId: String(clientId) },
        }),
      ),
    { onError: () => {} },
  );
}

function LinkedClientLost() {
  const [, navigate] = useLocation();
  useEffect(() => {
    localStorage.removeItem(STORAGE.clientId);
    defaultClientId()
      .then((id) => (id === null ? logout() : navigate(`~/${id}`, { replace: true })))
      .catch(() => void logout());
  }, [navigate]);
  return <PageSkeleton />;
}

/** result/{projectId}/... -> results/{projectId}/... (SPEC 2). */
function ResultToResults() {
  return <Redirect to={`~${location.pathname.replace("/result/", "/results/")}${location.search}`} replace />;
}

export function ClientArea({ clientId }: { clientId: number }) {
  const { data: client, error } = useClient(clientId);
  useEffect(() => {
    storeClientId(clientId);
    void joinClientChannel(clientId);
  }, [clientId]);
  if (error instanceof ApiError && (error.status === 404 || error.status === 403)) return <LinkedClientLost />;
  if (error) throw error;
  return (
    <AppShell clientId={clientId} client={client}>
      {!client ? (
        <PageSkeleton />
      ) : (
        <Switch>
          <Route path="/">
            <Redirect to="/home" replace />
          </Route>
          <Route path="/home">
            {/* Only teams have projects: other tiers land on their management area. */}
            {client.tier === "Team" ? <Home client={client} /> : <Redirect to={`~${tierHome(client)}`} replace />}
          </Route>
          <Route path="/result/*">
            <ResultToResults />
          </Route>
          <Route path="/project/:projectId">{(p) => <Redirect to={`/projects/${p.projectId}`} replace />}</Route>
          <Route path="/projects/:projectId/:tab?">
            <Gate policy="TeamUser" clientId={clientId}>
              <ProjectPage client={client} />
            </Gate>
          </Route>
          <Route path="/project-surveys/:projectId">
            <Gate policy="TeamUser" clientId={clientId}>
              <ProjectSurveys client={client} />
            </Gate>
          </Route>
          <Route path="/results/:projectId" nest>
            <ResultsArea clientId={clientId} />
          </Route>
          <Route path="/groups/:projectGroupId" nest>
            <GroupsArea clientId={clientId} />
          </Route>
          <Route path="/create-group">
            <Gate policy="IdeallyAdmin" clientId={clientId}>
              <CreateGroup clientId={clientId} />
            </Gate>
          </Route>
          <Route path="/edit-group/:projectGroupId">
            {(p) => (
              <Gate policy="IdeallyAdmin" clientId={clientId}>
                <EditGroup clientId={clientId} groupId={Number(p.projectGroupId)} />
              </Gate>
            )}
          </Route>
          {MANAGE_AREAS.map(({ area, policy }) => (
            <Route key={area} path={`/manage-${area}`} nest>
              <Gate policy={policy} clientId={clientId}>
                <ManageArea client={client} area={area} />
              </Gate>
            </Route>
          ))}
          <Route>
            <TierRedirect clientId={clientId} />
          </Route>
        </Switch>
      )}
    </AppShell>
  );
}
