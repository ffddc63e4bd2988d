// One project by key for the project pages; a missing project shows 'Project not found' and
// returns to / (SPEC 2, 8).
import { useEffect, useEffectEvent, useState } from "react";
import { useLocation } from "wouter";
import { ApiError, api, selected, type Row } from "../api/client";
import { useApi } from "../api/hooks";
import { toast } from "../components/toast";
import { useProjectEvents } from "./projects";

export const PROJECT_NOT_FOUND = "Project not found";

/** The project as the project pages read it (every scalar property, its framework and markets). */
export type ProjectDetail = Row<
  "Projects",
  | "id"
  | "clientId"
  | "projectName"
  | "projectTypeId"
  | "statusCode"
  | "frameworkId"
  | "categoryId"
  | "createdAt"
  | "submittedAt"
  | "researchNote"
  | "scheduleWavesRequired"
  | "scheduleFrequencyWeeks"
  | "scheduleStartDate"
  | "wavesRequired"
  | "incidenceEstimate",
  {
    framework: Row<"Frameworks", "id" | "title"> | null;
    projectsRegions: Row<"ProjectsRegions", "regionId", { region: Row<"Regions", "regionName" | "currencySymbol" | "currencyCode"> | null }>[];
  }
>;

const projectCall = (projectId: number, expand: string) => api.GET("/api/v1/Projects({key})", { params: { path: { key: String(projectId) }, query: { $expand: expand } } });

export function useProject(projectId: number, expand = "framework($select=id,title),projectsRegions($expand=region($select=regionName,currencySymbol,currencyCode))") {
  return useProjectAs(projectId, expand, (call) => selected<ProjectDetail>(call));
}

/** One project with `expand`, typed by `as` (selected<> with the row that expansion returns). */
export function useProjectAs<T extends ProjectDetail>(projectId: number, expand: string, as: (call: ReturnType<typeof projectCall>) => Promise<{ data?: T; error?: unknown; response: Response }>) {
  const [, navigate] = useLocation();
  const valid = Number.isInteger(projectId) && projectId > 0;
  const res = useApi(valid ? ["Project", projectId, expand] : null, () => as(projectCall(projectId, expand)), { onError: () => {} });
  // An error cached from before this page opened (the project deleted, then restored from the
  // toast) is not the answer: a page that opens on one asks again, past the cache's deduplication
  // (a fetch of the last two seconds would otherwise be reused), and decides on that answer.
  const [fresh, setFresh] = useState(() => res.error === undefined);
  const askAgain = useEffectEvent(() => {
    if (fresh) return;
    let live = true;
    const done = () => live && setFresh(true);
    void res.mutate().then(done, done);
    return () => {
      live = false;
    };
  });
  // Once, when the page opens.
  useEffect(() => askAgain(), []);
  useEffect(() => {
    if (!fresh || res.isValidating) return;
    if (!valid || (res.error instanceof ApiError && (res.error.status === 404 || res.error.status === 403 || res.error.status === 400))) {
      // Said on the page the user is sent to (a page change clears the last page's errors).
      toast.show({ severity: "error", summary: PROJECT_NOT_FOUND, forNextPage: true });
      navigate("~/", { replace: true });
    }
  }, [valid, fresh, res.error, res.isValidating, navigate]);
  useProjectEvents(() => void res.mutate(), projectId);
  return res;
}
