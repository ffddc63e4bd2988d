// One project by key for the project pages; a missing project shows 'Project not found' and
// returns to / (SPEC 2, 8).
import { useEffect } from "react";
import { useLocation } from "wouter";
import { ApiError, api } from "../api/client";
import { useApi } from "../api/hooks";
import { toast } from "../components/toast";
import { useProjectEvents } from "./projects";

export const PROJECT_NOT_FOUND = "Project not found";

export type ProjectDetail = {
  id: number;
  clientId: number;
  projectName: string;
  projectTypeId: number;
  statusCode: number;
  frameworkId: number | null;
  categoryId: number | null;
  createdAt: string;
  submittedAt: string | null;
  researchNote: string | null;
  scheduleWavesRequired: number | null;
  scheduleFrequencyWeeks: number | null;
  scheduleStartDate: string | null;
  wavesRequired: boolean;
  incidenceEstimate: number | null;
  framework: { id: number; title: string } | null;
  projectsRegions: { regionId: number; region: { regionName: string; currencySymbol: string; currencyCode: string } | null }[];
};

export function useProject(projectId: number, expand = "framework($select=id,title),projectsRegions($expand=region($select=regionName,currencySymbol,currencyCode))") {
  const [, navigate] = useLocation();
  const valid = Number.isInteger(projectId) && projectId > 0;
  const res = useApi<ProjectDetail>(valid ? ["Project", projectId, expand] : null, () =>
    api.GET("/api/v1/Projects({key})", { params: { path: { key: String(projectId) }, query: { $expand: expand } } } as never) as never,
    { onError: () => {} },
  );
  useEffect(() => {
    if (!valid || (res.error instanceof ApiError && (res.error.status === 404 || res.error.status === 403 || res.error.status === 400))) {
      toast.error(PROJECT_NOT_FOUND);
      navigate("~/", { replace: true });
    }
  }, [valid, res.error, navigate]);
  useProjectEvents(() => void res.mutate(), projectId);
  return res;
}
