// Followers (project watchers): who gets this project's notifications; follow or stop following.
import { useState } from "react";
import { api, selected, unwrap, type Page, type Row } from "../../../api/client";
import { useApi } from "../../../api/hooks";
import { handleError } from "../../../api/errors";
import { Button, EmptyState, Skeleton } from "../../../components/ui";
import { useResults } from "../../../features/results/context";
import { useMe } from "../../../state/app";

type Watcher = Row<"ProjectWatchers", "id" | "userId", { user: Row<"Users", "id" | "email" | "firstName" | "lastName"> | null }>;

export default function FollowersPanel({ onChanged }: { onChanged: () => void }) {
  const { projectId, clientId } = useResults();
  const { data: me } = useMe(clientId);
  const { data, mutate } = useApi(["ProjectWatchers", projectId], () =>
    selected<Page<Watcher>>(api.GET("/api/v1/ProjectWatchers", { params: { query: { $filter: `projectId eq ${projectId}`, $expand: "user($select=id,email,firstName,lastName)" } } })),
  );
  const [busy, setBusy] = useState(false);
  const following = !!me && !!data?.value.some((w) => w.userId === me.id);
  const toggle = async () => {
    setBusy(true);
    try {
      const path = following ? "/api/v1/Projects({key})/StopWatching" : "/api/v1/Projects({key})/StartWatching";
      await unwrap(api.POST(path, { params: { path: { key: String(projectId) } }, body: {} }));
      onChanged();
      await mutate();
    } catch (e) {
      handleError(e);
    } finally {
      setBusy(false);
    }
  };
  return (
    <div className="space-y-4 text-sm">
      <p className="text-ink-600">Followers are notified when new results arrive.</p>
      <Button variant={following ? "secondary" : "primary"} busy={busy} onClick={() => void toggle()}>
        {following ? "Stop following" : "Follow this project"}
      </Button>
      {!data ? (
        <Skeleton className="h-20" />
      ) : !data.value.length ? (
        <EmptyState title="No followers yet" />
      ) : (
        <ul className="divide-y divide-ink-100 rounded-lg border border-ink-200" aria-label="Followers">
          {data.value.map((w) => (
            <li key={w.id} className="px-3 py-2">
              <p className="font-medium text-ink-900">{[w.user?.firstName, w.user?.lastName].filter(Boolean).join(" ") || w.user?.email}</p>
              <p className="text-xs text-ink-500">{w.user?.email}</p>
            </li>
          ))}
        </ul>
      )}
    </div>
  );
}
