// The project's AI summaries as the results pages read them: one list (the Summary page and the
// Objectives panel share its cache), polled every few seconds while a summary is being written,
// so "Being prepared…" turns into the text without a reload. Which one belongs to the view on
// screen: summaryScope.ts.
import { api, selected, type Page } from "../../api/client";
import { useApi } from "../../api/hooks";
import { isWriting, type AiSummary } from "./summaryScope";

export * from "./summaryScope";

export const SUMMARY_POLL_MS = 3000;

export function useAiSummaries(projectId: number) {
  return useApi(
    ["AiProjectSummaries", projectId],
    () =>
      selected<Page<AiSummary>>(
        api.GET("/api/v1/AiProjectSummaries", {
          params: {
            query: {
              $filter: `projectId eq ${projectId}`,
              $orderby: "createdAt desc",
              $top: 20,
              $select: "id,summaryType,title,content,status,generatedAt,projectObjectiveId,segmentId,filters,benchmarkTypeId,total,referencesData,createdAt",
            },
          },
        }),
      ),
    { refreshInterval: (d) => (d?.value.some(isWriting) ? SUMMARY_POLL_MS : 0) },
  );
}
