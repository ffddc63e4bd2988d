// The sign-in area's routing rules, used by it (SignedInArea.tsx) and by the client area inside it
// (ClientArea.tsx): in a module of their own, so the client area never imports the area that
// imports it.
import { useEffect, useState, type ReactNode } from "react";
import { Redirect, useLocation } from "wouter";
import { PageSkeleton } from "../components/ui";
import { api, unwrap } from "../api/client";
import { defaultClientId, hasPolicy, storedClientId, tierHome, usePolicies, type Policy } from "../state/app";

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
      const client = (await unwrap(api.GET("/api/v1/Clients({key})", { params: { path: { key: String(id) }, query: { $select: "id,tier" } }, headers: { clientId: String(id) } }))) as {
        id: number;
        tier: string;
      };
      if (live) navigate(`~${tierHome(client)}`, { replace: true });
    })().catch(() => live && setFailed(true));
    return () => {
      live = false;
    };
  }, [clientId, navigate]);
  if (failed) return <Redirect to="~/common/no-client-id" replace />;
  return <PageSkeleton />;
}
