// /invites/demo?identifier=...: the share-registration landing (LinkInvites
// GetDemoProjectByIdentifier); empty and unknown paths go to /auth/login (SPEC 2).
import { useState } from "react";
import { Link, Redirect, Route, Switch, useLocation, useSearch } from "wouter";
import { ApiError, api, unwrap } from "../../api/client";
import { useApi } from "../../api/hooks";
import { Button, ButtonLink, PageSkeleton } from "../../components/ui";
import { getToken, rememberLocation } from "../../state/session";
import { AuthLayout, FormError } from "./AuthLayout";

function Demo() {
  const identifier = new URLSearchParams(useSearch()).get("identifier") ?? "";
  const [, navigate] = useLocation();
  const [error, setError] = useState<string | null>(null);
  const { data, error: loadError } = useApi(
    identifier ? ["Registration", identifier] : null,
    () => api.GET("/auth/Login/GetRegistrationInvite/{inviteIdentifier}", { params: { path: { inviteIdentifier: identifier } } }),
    { onError: () => {} },
  );
  const signedIn = !!getToken();
  async function open() {
    try {
      const r = (await unwrap(api.POST("/api/v1/LinkInvites/AcceptShare", { body: { identifier } }))) as { projectId: number; clientId?: number };
      navigate(`~/${r.clientId ?? ""}/results/${r.projectId}`.replace("//", "/"));
    } catch (e) {
      setError(e instanceof ApiError ? e.message : "The shared project could not be opened.");
    }
  }
  if (!identifier) return <Redirect to="~/auth/login" replace />;
  if (!data && !loadError) return <PageSkeleton rows={2} />;
  return (
    <AuthLayout
      title={data ? `${data.clientName} shared research with you` : "Shared research"}
      subtitle={data?.projectName ? `“${data.projectName}”${data.projectType ? ` · ${data.projectType} test` : ""}` : undefined}
    >
      <div className="space-y-4">
        <FormError message={loadError ? "This link is not valid." : data?.expired ? "This link has expired. Ask for a new one." : error} />
        {data && !data.expired ? (
          signedIn ? (
            <Button className="w-full" onClick={() => void open()}>
              Open the project
            </Button>
          ) : (
            <>
              <ButtonLink href={`~/auth/sign-up?identifier=${encodeURIComponent(identifier)}`} className="w-full">
                Create an account
              </ButtonLink>
              <p className="text-center text-sm text-ink-600">
                Have an account?{" "}
                <Link href="~/auth/login" onClick={() => rememberLocation()} className="font-medium text-brand-700 hover:underline">
                  Sign in
                </Link>
              </p>
            </>
          )
        ) : null}
      </div>
    </AuthLayout>
  );
}

export default function InvitesArea() {
  return (
    <Switch>
      <Route path="/demo" component={Demo} />
      <Route>
        <Redirect to="~/auth/login" replace />
      </Route>
    </Switch>
  );
}
