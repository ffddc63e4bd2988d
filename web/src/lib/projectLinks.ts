// Where a project's link goes, by status (SPEC 2 "Project links by status"), and the internal
// results links that carry the current query parameters (arrays written as [a,b]).

export type ProjectLink = { kind: "navigate"; href: string } | { kind: "in-progress" };

export function projectLink(teamId: number, p: { id: number; statusCode: number }, opts: { chat?: boolean } = {}): ProjectLink {
  const s = p.statusCode;
  if (s === 50) return { kind: "navigate", href: `/${teamId}/projects/${p.id}/review` };
  if (s < 200) return { kind: "navigate", href: `/${teamId}/projects/${p.id}` };
  if (s < 400) return { kind: "navigate", href: `/${teamId}/project-surveys/${p.id}` };
  if (s < 500) return { kind: "in-progress" };
  if (s >= 800) return { kind: "navigate", href: `/${teamId}/results/${p.id}${opts.chat ? "/chat" : ""}` };
  // 500-799 are not statuses the spec names; the survey page shows where such a project stands.
  return { kind: "navigate", href: `/${teamId}/project-surveys/${p.id}` };
}

/** /results/{projectId}/{rest} with the current query parameters; arrays as [a,b]. */
export function resultsLink(clientId: number, projectId: number, rest = "", search = location.search): string {
  const q = new URLSearchParams(search);
  const parts: string[] = [];
  for (const [k, v] of q) {
    let val = v;
    if (v.startsWith("[") && v.endsWith("]")) {
      try {
        const arr: unknown = JSON.parse(v);
        if (Array.isArray(arr)) val = `[${arr.join(",")}]`;
      } catch {
        /* already in [a,b] form */
      }
    }
    parts.push(`${encodeURIComponent(k)}=${encodeURIComponent(val).replace(/%5B/g, "[").replace(/%5D/g, "]").replace(/%2C/g, ",")}`);
  }
  const path = `/${clientId}/results/${projectId}${rest ? `/${rest.replace(/^\//, "")}` : ""}`;
  return parts.length ? `${path}?${parts.join("&")}` : path;
}
