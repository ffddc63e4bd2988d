// The project editor's data: the project with what the tabs show, the calls they share, and one
// way to run an action (typed call, success toast, SPEC 8's error chain, refetch).
import { unreachableFromHere } from "../../lib/origin";
import { useCallback } from "react";
import { useSWRConfig } from "swr";
import { api, selected, unwrap, type Page, type Row, type Schemas } from "../../api/client";
import { handleError } from "../../api/errors";
import { useApi } from "../../api/hooks";
import { toast } from "../../components/toast";
import { useProjectAs, type ProjectDetail } from "../useProject";
import type { StoredTarget } from "../quotas";
import type { StoredCrossedCell } from "../crossed";

type EditorRegion = Row<"ProjectsRegions", "regionId" | "sampleSize" | "isCustomerPanel", { region: ProjectDetail["projectsRegions"][number]["region"] }>;

export type EditorProject = Omit<ProjectDetail, "projectsRegions"> &
  Row<"Projects", "categoryId" | "isBranded" | "brandName" | "ownerUserId" | "schedulePause" | "splitCellQuota", { projectsRegions: EditorRegion[] }>;

export const EDITOR_EXPAND = "framework($select=id,title),projectsRegions($select=regionId,sampleSize,isCustomerPanel;$expand=region($select=regionName,currencySymbol,currencyCode))";

export function useEditorProject(projectId: number) {
  return useProjectAs(projectId, EDITOR_EXPAND, (call) => selected<EditorProject>(call));
}

/** Only a Draft is edited; from Submitted on the questionnaire is fixed (docs/project-lifecycle.md). */
export const isEditable = (p: { statusCode: number }) => p.statusCode === 0;

/** Refetch every cached call about a project: the project pages' keys are [name, projectId, ...]. */
export function useRefreshProject(projectId: number) {
  const { mutate } = useSWRConfig();
  return useCallback(() => mutate((key) => Array.isArray(key) && key[1] === projectId, undefined, { revalidate: true }), [mutate, projectId]);
}

/** Runs a call: its data (null for a 204), or undefined after the error chain has spoken. */
export async function run<T>(call: Promise<{ data?: T; error?: unknown; response: Response }>, success?: [string, string?]): Promise<T | undefined> {
  try {
    const data = await unwrap(call);
    if (success) toast.success(success[0], success[1]);
    return (data ?? null) as T;
  } catch (e) {
    handleError(e);
    return undefined;
  }
}

export const keyPath = (id: number) => ({ path: { key: String(id) } });

export type CreditCost = Schemas["CreditCostNow"];

export function useCreditCost(projectId: number) {
  return useApi(["CreditCostNow", projectId], () => api.GET("/api/v1/Projects({key})/CreditCostNow", { params: keyPath(projectId) }));
}

/** The pre-launch check (Projects ReadinessCheck); null projectId skips it (not a Draft). */
export function useReadiness(projectId: number | null) {
  return useApi(projectId === null ? null : ["ReadinessCheck", projectId], () => api.GET("/api/v1/Projects({key})/ReadinessCheck", { params: keyPath(projectId ?? 0) }));
}

/** The project's targets as stored (Targets): each answer's market, quota share and "only these". */
export function useStoredTargets(projectId: number) {
  const query = { $filter: `projectId eq ${projectId}`, $select: "id,regionId,systemQuestionOptionId,questionOptionId,quotaPercent,onlyThese", $orderby: "id", $top: 500 };
  return useApi(["Targets", projectId], () => selected<Page<StoredTarget>>(api.GET("/api/v1/Targets", { params: { query } })));
}

/** The project's crossed quota cells as stored (CrossedQuotaCells): market, pair of answers, share. */
export function useCrossedCells(projectId: number) {
  const query = { $filter: `projectId eq ${projectId}`, $select: "regionId,firstOptionId,secondOptionId,quotaPercent", $orderby: "id", $top: 1000 };
  return useApi(["CrossedQuotaCells", projectId], () => selected<Page<StoredCrossedCell>>(api.GET("/api/v1/CrossedQuotaCells", { params: { query } })));
}

export type TestOption = Row<"TestOptions", "id" | "projectId" | "conceptText" | "conceptDescription" | "file" | "sortOrder">;

export function useTestOptions(projectId: number) {
  const query = { $filter: `projectId eq ${projectId}`, $orderby: "sortOrder,id", $top: 100 };
  return useApi(["TestOptions", projectId], () => selected<Page<TestOption>>(api.GET("/api/v1/TestOptions", { params: { query } })));
}

/** Signed links to the project's uploaded files (test option images, question files). */
export function useFileUrls(projectId: number) {
  return useApi(["ProjectFileUrls", projectId], () => api.GET("/api/v1/Projects({key})/ProjectFileUrls", { params: keyPath(projectId) }));
}

export const ACCEPTED_IMAGES = ["image/png", "image/jpeg", "image/webp", "image/gif"] as const;

/** Projects FileUploadUrl, then the PUT of the bytes: the file reference to store. */
export async function uploadProjectFile(projectId: number, file: File): Promise<{ key: string; fileType: string; fileName: string }> {
  const slot = await unwrap(
    api.GET("/api/v1/Projects({key})/FileUploadUrl", {
      params: { ...keyPath(projectId), query: { fileName: file.name, fileType: file.type, fileSize: String(file.size) } },
    }),
  );
  // A page at another address of the server cannot PUT to the link (its CSP refuses it, silently).
  const unreachable = unreachableFromHere(slot.url);
  if (unreachable) throw new Error(unreachable);
  const put = await fetch(slot.url, { method: "PUT", headers: slot.headers, body: file });
  if (!put.ok) throw new Error(`Upload failed (${put.status})`);
  return { key: slot.key, fileType: slot.fileType, fileName: slot.fileName };
}

export type Region = Row<"Regions", "id" | "regionName" | "currencyCode" | "isUsState" | "parentRegionId">;

/** Users/Me on the client: its resolved feature flags. */
export function hasFlag(me: { featureFlags?: { ff: string; isEnabled: boolean }[] } | undefined, ff: string): boolean {
  return !!me?.featureFlags?.some((f) => f.ff === ff && f.isEnabled);
}

/** The market reach framework (SPEC 3). */
export const MARKET_REACH_FRAMEWORK = 1020;

/**
 * Market reach is offered only where its results can be seen: its results page needs the
 * MarketReach flag (SPEC 2), so without it neither the add-on nor the framework is offered
 * (docs/decisions.md "The researcher's path (issue 22)").
 */
export function offersMarketReach(me: { featureFlags?: { ff: string; isEnabled: boolean }[] } | undefined): boolean {
  return hasFlag(me, "MarketReach");
}
