// Everything behind sign-in: onboarding, account, the admin area and the client area, with the
// redirect rules of SPEC 2 (/ and unmatched paths by tier; no client -> the default client).
import { useEffect, useState, type ReactNode } from "react";
import { Redirect, Route, Switch, useLocation } from "wouter";
import { PageSkeleton } from "../components/ui";
import { api, unwrap } from "../api/client";
import { defaultClientId, hasPolicy, storedClientId, tierHome, usePolicies, type Policy } from "../state/app";
import { AppShell } from "./AppShell";
import { ClientArea } from "./ClientArea";
import { Onboarding, Account, AdminArea } from "./pages";

/** A policy gate: a disallowed user goes to / (SPEC 2 general behaviour). */
export function Gate({ policy, clientId, children }: { policy: Policy; clientId: number | null; children: ReactNode }) {
  const { data, isLoading } = usePolicies();
  if (isLoading || !data) return <PageSkeleton />;
  if (!hasPolicy(data, clientId, policy)) return <Redirect to="~/" replace />;
  return <>{children}</>;
}

/** / and any unmatched path: the chosen client's tier home; with none, the default client. */
export function TierRedirect({ clientId }: { clientId?: number | null }) {
  const [, navigate] = useLocation();
  const [failed, setFailed] = useState(false);
  useEffect(() => {
    let live = true;
    (async () => {
      let id = clientId ?? storedClientId();
      if (id === null) id = await defaultClientId();
      if (id === null) return live && navigate("~/common/no-client-id", { replace: true });
      const client = (await unwrap(api.GET("/api/v1/Clients({key})", { params: { path: { key: String(id) }, query: { $select: "id,tier" } }, headers: { clientId: String(id) } }))) as { id: number; tier: string };
      if (live) navigate(`~${tierHome(client)}`, { replace: true });
    })().catch(() => live && setFailed(true));
    return () => {
      live = false;
    };
  }, [clientId, navigate]);
  if (failed) return <Redirect to="~/common/no-client-id" replace />;
  return <PageSkeleton />;
}

export default function SignedInArea() {
  return (
    <Switch>
      <Route path="/onboarding/user-details">
        <Onboarding />
      </Route>
      <Route path="/account">
        <AppShell clientId={storedClientId()}>
          <Account />
        </AppShell>
      </Route>
      <Route path="/admin" nest>
        <Gate policy="IdeallyAdmin" clientId={null}>
          <AdminArea />
        </Gate>
      </Route>
      <Route path="/:clientId" nest>
        {(params) =>
          /^\d+$/.test(params.clientId) ? <ClientArea clientId={Number(params.clientId)} /> : <TierRedirect />
        }
      </Route>
      <Route>
        <TierRedirect />
      </Route>
    </Switch>
  );
}
