// The top of the app: error boundary, data and toast providers, and the route areas of SPEC 2,
// each loaded on demand (code-split by area).
import { Suspense, useEffect, type ReactNode } from "react";
import { SWRConfig } from "swr";
import { Redirect, Route, Switch, useLocation } from "wouter";
import { handleError } from "../api/errors";
import { ErrorBoundary } from "../components/ErrorView";
import { Toaster, toast } from "../components/toast";
import { Spinner } from "../components/ui";
import { recordVisit, restoreScroll, saveScroll } from "../lib/history";
import { rememberLocation } from "../state/session";
import { useSignedIn } from "../state/app";
import { AuthArea, InvitesArea, CommonArea, SignedInArea } from "./pages";

export function FullPageSpinner() {
  return (
    <div className="flex min-h-screen items-center justify-center text-brand-600" role="status" aria-label="Loading">
      <Spinner className="size-8" />
    </div>
  );
}

/** Records the module history and restores the scroll position of each page. */
function Navigation() {
  const [path] = useLocation();
  useEffect(() => {
    recordVisit(path);
    toast.clearErrors();
    const key = path + location.search;
    restoreScroll(key);
    return () => saveScroll(key);
  }, [path]);
  return null;
}

/** Signed-out visitors go to login, remembering where they were. */
export function RequireAuth({ children }: { children: ReactNode }) {
  const signedIn = useSignedIn();
  if (!signedIn) {
    rememberLocation();
    return <Redirect to="/auth/login" replace />;
  }
  return <>{children}</>;
}

export function App() {
  return (
    <ErrorBoundary>
      <SWRConfig value={{ onError: (e) => handleError(e), shouldRetryOnError: false, revalidateOnFocus: false }}>
        <Toaster />
        <Navigation />
        <Suspense fallback={<FullPageSpinner />}>
          <Switch>
            <Route path="/auth" nest>
              <AuthArea />
            </Route>
            <Route path="/invites" nest>
              <InvitesArea />
            </Route>
            <Route path="/common" nest>
              <CommonArea />
            </Route>
            <Route>
              <RequireAuth>
                <SignedInArea />
              </RequireAuth>
            </Route>
          </Switch>
        </Suspense>
      </SWRConfig>
    </ErrorBoundary>
  );
}
