// /common/*: no-client-id (signed in without any client), mobile (the editor on a phone), and
// notification-redirect (an emailed notification link: mark it read, then go where it points).
import { useEffect } from "react";
import { Link, Redirect, Route, Switch, useLocation, useSearch } from "wouter";
import { api, unwrap } from "../../api/client";
import { Button, PageSkeleton } from "../../components/ui";
import { getToken, logout, rememberLocation } from "../../state/session";
import { AuthLayout } from "../auth/AuthLayout";

function NoClientId() {
  return (
    <AuthLayout title="No team yet" subtitle="Your account is not a member of any client on Ideally.">
      <p className="text-sm text-ink-700">Ask your team's admin to invite you, or contact us to set up a trial for your organisation.</p>
      <div className="mt-6 flex gap-2">
        <Button variant="secondary" onClick={() => void logout()}>
          Log out
        </Button>
        <Button onClick={() => location.assign("/")}>Try again</Button>
      </div>
    </AuthLayout>
  );
}

function Mobile() {
  const back = new URLSearchParams(useSearch()).get("from");
  return (
    <AuthLayout title="Best on a larger screen" subtitle="The project editor needs room for its questions, concepts and targets.">
      <p className="text-sm text-ink-700">Open this page on a laptop or a tablet in landscape to edit the project. You can still follow your projects and read results here.</p>
      <div className="mt-6 flex gap-2">
        <Link href="~/" className="inline-flex h-10 items-center rounded-lg bg-brand-600 px-4 text-sm font-medium text-white">
          Go to my projects
        </Link>
        {back ? (
          <Link href={`~${back}`} className="inline-flex h-10 items-center rounded-lg px-4 text-sm font-medium text-ink-700 ring-1 ring-ink-200">
            Open anyway
          </Link>
        ) : null}
      </div>
    </AuthLayout>
  );
}

function NotificationRedirect() {
  const q = new URLSearchParams(useSearch());
  const [, navigate] = useLocation();
  const id = Number(q.get("notificationId") ?? q.get("id"));
  const url = q.get("url") ?? q.get("redirect") ?? "/";
  const target = url.startsWith("/") && !url.startsWith("//") ? url : "/";
  useEffect(() => {
    if (!getToken()) return;
    (Number.isInteger(id) && id > 0 ? unwrap(api.POST("/api/v1/Notifications/MarkAsRead", { body: { ids: [id] } })) : Promise.resolve())
      .catch(() => {})
      .finally(() => navigate(`~${target}`, { replace: true }));
  }, [id, target, navigate]);
  if (!getToken()) {
    localStorage.setItem("lastVisitedUrl", target);
    rememberLocation();
    return <Redirect to="~/auth/login" replace />;
  }
  return <PageSkeleton rows={1} />;
}

export default function CommonArea() {
  return (
    <Switch>
      <Route path="/no-client-id" component={NoClientId} />
      <Route path="/mobile" component={Mobile} />
      <Route path="/notification-redirect" component={NotificationRedirect} />
      <Route>
        <Redirect to="~/" replace />
      </Route>
    </Switch>
  );
}
