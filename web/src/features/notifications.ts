// Where a notification leads. A notification about a project opens the project where its status
// is NOW (SPEC 2's project links: the status may have moved on since it was sent), under a client
// the reader belongs to: a project shared from another client opens under the reader's own client
// (the API reads it there through the share). Other notifications go to their stored path.
import { api, unwrap, type Schemas } from "../api/client";
import { projectLink } from "../lib/projectLinks";
import type { Policies } from "../state/app";

export type NotificationItem = Schemas["NotificationItem"];

export type NotificationTarget = { kind: "navigate"; href: string } | { kind: "in-progress"; teamId: number; project: { id: number; statusCode: number } } | { kind: "not-found" };

/** The client a project link is built under: the project's own if the reader is a member, else theirs. */
export function readerClientId(projectClientId: number, policies: Policies | undefined, currentClientId: number | null): number {
  if (!policies || policies.value.some((c) => c.clientId === projectClientId)) return projectClientId;
  return currentClientId ?? policies.value.find((c) => c.tier === "Team")?.clientId ?? projectClientId;
}

/** The path part of a stored url (absolute links in emails carry the host). */
export function storedPath(url: string | null | undefined): string {
  if (!url) return "/";
  const path = url.startsWith("http") ? new URL(url).pathname + new URL(url).search : url;
  return path.startsWith("/") && !path.startsWith("//") ? path : "/";
}

export async function notificationTarget(n: NotificationItem, policies: Policies | undefined, currentClientId: number | null): Promise<NotificationTarget> {
  // A password reset notice has no link: it opens where the password is changed.
  if (n.type === "PasswordReset" && !n.url) return { kind: "navigate", href: "/auth/change-password" };
  const path = storedPath(n.url);
  // Staff's approval queue and other non-project links keep their stored path.
  if (n.projectId === null || n.clientId === null || path.startsWith("/admin")) return { kind: "navigate", href: path };
  const clientId = readerClientId(n.clientId, policies, currentClientId);
  try {
    const p = await unwrap(
      api.GET("/api/v1/Projects({key})", {
        params: { path: { key: String(n.projectId) }, query: { $select: "id,statusCode" } },
        headers: { clientId: String(clientId) },
      }),
    );
    if (p.id === undefined || p.statusCode === undefined) return { kind: "not-found" };
    const project = { id: p.id, statusCode: p.statusCode };
    const link = projectLink(clientId, project);
    if (link.kind === "in-progress") return { kind: "in-progress", teamId: clientId, project };
    // A reader from another client has no editor or survey page of its own: results once there are any.
    if (clientId !== n.clientId && link.kind === "navigate" && !link.href.includes("/results/")) return { kind: "navigate", href: `/${clientId}/projects/${p.id}` };
    return link;
  } catch {
    return { kind: "not-found" };
  }
}
