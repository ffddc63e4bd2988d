// Project data shared by the project pages: the list query, status tones, the realtime refetch.
import { useEffect } from "react";
import { onRealtime } from "../state/realtime";

export const STATUS_TONE = (s: number): "neutral" | "amber" | "blue" | "brand" | "green" => {
  if (s === 0) return "neutral";
  if (s < 200) return "amber";
  if (s < 500) return "blue";
  if (s >= 800 && s < 950) return "green";
  return "brand";
};

/** Refetch when a project of the client changes (ProjectUpdated / IncidenceEstimateUpdated). */
export function useProjectEvents(refetch: () => void, projectId?: number) {
  useEffect(
    () =>
      onRealtime((ev) => {
        if (ev.event !== "ProjectUpdated" && ev.event !== "IncidenceEstimateUpdated" && ev.event !== "ProjectReady") return;
        const id = ev.data?.projectId;
        if (projectId === undefined || id === undefined || id === projectId) refetch();
      }),
    [refetch, projectId],
  );
}

/** OData string literal: single quotes doubled. */
export function odataString(s: string): string {
  return `'${s.replace(/'/g, "''")}'`;
}
