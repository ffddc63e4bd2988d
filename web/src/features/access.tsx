// What the signed-in person may do with a project (Projects Access): pages offer only that. A
// Viewer and a reader of a project shared from another client read; Admins, Users and staff write.
import { createContext, useContext, type ReactNode } from "react";
import { api, type Schemas } from "../api/client";
import { useApi } from "../api/hooks";

export type ProjectAccess = Schemas["ProjectAccess"];

export function useProjectAccess(projectId: number) {
  return useApi(["ProjectAccess", projectId], () => api.GET("/api/v1/Projects({key})/Access", { params: { path: { key: String(projectId) } } }));
}

const CanWrite = createContext(false);

/** Below it, useCanWrite() answers for the project (false until the API has said). */
export function ProjectAccessProvider({ access, children }: { access: ProjectAccess | undefined; children: ReactNode }) {
  return <CanWrite.Provider value={access?.canWrite ?? false}>{children}</CanWrite.Provider>;
}

export function useCanWrite(): boolean {
  return useContext(CanWrite);
}

/** The read-only note of a project shared from another client: whose it is and who shared it. */
export function SharedProjectNote({ access }: { access: ProjectAccess | undefined }) {
  if (!access?.shared) return null;
  return (
    <p role="note" className="mb-4 rounded-lg bg-sky-50 px-4 py-3 text-sm text-sky-900">
      Shared with you{access.sharedBy ? ` by ${access.sharedBy}` : ""} from <strong>{access.clientName}</strong>. You can read it; only {access.clientName} can change it.
    </p>
  );
}
