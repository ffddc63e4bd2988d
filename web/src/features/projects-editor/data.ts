// The project editor's data: the project with what the tabs show, the calls they share, and one
// way to run an action (typed call, success toast, SPEC 8's error chain, refetch).
import { useCallback } from "react";
import { useSWRConfig } from "swr";
import { api, unwrap } from "../../api/client";
import { handleError } from "../../api/errors";
import { useApi } from "../../api/hooks";
import { toast } from "../../components/toast";
import { useProject, type ProjectDetail } from "../useProject";

export type EditorProject = ProjectDetail & {
  categoryId: number | null;
  isBranded: boolean;
  brandName: string | null;
  ownerUserId: number | null;
  schedulePause: boolean;
  /** Monadic: each respondent sees one test option (the least filled); else sequential monadic. */
  splitCellQuota: boolean;
  projectsRegions: (ProjectDetail["projectsRegions"][number] & { sampleSize: number; isCustomerPanel: boolean })[];
};

export const EDITOR_EXPAND =
  "framework($select=id,title),projectsRegions($select=regionId,sampleSize,isCustomerPanel;$expand=region($select=regionName,currencySymbol,currencyCode))";

export function useEditorProject(projectId: number) {
  const res = useProject(projectId, EDITOR_EXPAND);
  return { ...res, data: res.data as EditorProject | undefined };
}

/** Only a Draft is edited; from Submitted on the questionnaire is fixed (docs/project-lifecycle.md). */
export const isEditable = (p: { statusCode: number }) => p.statusCode === 0;

/** Refetch every cached call about a project: the project pages' keys are [name, projectId, ...]. */
export function useRefreshProject(projectId: number) {
  const { mutate } = useSWRConfig();
  return useCallback(
    () => mutate((key) => Array.isArray(key) && key[1] === projectId, undefined, { revalidate: true }),
    [mutate, projectId],
  );
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

export type CreditCost = { total: number; balance: number; overdraftLimit: number; available: number; affordable: boolean; lastRunCost: number | null; cells: number; regions: { regionId: number; regionName: string; sampleSize: number; cost: number; isCustomerPanel: boolean }[]; addOns: { priceSensitivity: boolean; marketReach: boolean; extraCustomQuestions: number; rate: number } };

export function useCreditCost(projectId: number) {
  return useApi<CreditCost>(["CreditCostNow", projectId], () => api.GET("/api/v1/Projects({key})/CreditCostNow", { params: keyPath(projectId) }) as never);
}

/** The pre-launch check (Projects ReadinessCheck); null projectId skips it (not a Draft). */
export function useReadiness(projectId: number | null) {
  return useApi(projectId === null ? null : ["ReadinessCheck", projectId], () =>
    api.GET("/api/v1/Projects({key})/ReadinessCheck", { params: keyPath(projectId ?? 0) }),
  );
}

export type TestOption = { id: number; projectId: number; conceptText: string; conceptDescription: string | null; file: { key: string; fileType: string; fileName?: string } | null; sortOrder: number | null };

export function useTestOptions(projectId: number) {
  const query = { $filter: `projectId eq ${projectId}`, $orderby: "sortOrder,id", $top: 100 };
  return useApi<{ value: TestOption[] }>(["TestOptions", projectId], () => api.GET("/api/v1/TestOptions", { params: { query } } as never) as never);
}

/** Signed links to the project's uploaded files (test option images, question files). */
export function useFileUrls(projectId: number) {
  return useApi<{ value: { source: string; testOptionId: number | null; questionId: number | null; signedUrl: string; fileType: string | null }[] }>(
    ["ProjectFileUrls", projectId],
    () => api.GET("/api/v1/Projects({key})/ProjectFileUrls", { params: keyPath(projectId) }) as never,
  );
}

export const ACCEPTED_IMAGES = ["image/png", "image/jpeg", "image/webp", "image/gif"] as const;

/** Projects FileUploadUrl, then the PUT of the bytes: the file reference to store. */
export async function uploadProjectFile(projectId: number, file: File): Promise<{ key: string; fileType: string; fileName: string }> {
  const slot = await unwrap(
    api.GET("/api/v1/Projects({key})/FileUploadUrl", {
      params: { ...keyPath(projectId), query: { fileName: file.name, fileType: file.type, fileSize: file.size } },
    } as never),
  ) as { url: string; headers: Record<string, string>; key: string; fileType: string; fileName: string };
  const put = await fetch(slot.url, { method: "PUT", headers: slot.headers, body: file });
  if (!put.ok) throw new Error(`Upload failed (${put.status})`);
  return { key: slot.key, fileType: slot.fileType, fileName: slot.fileName };
}

export type Region = { id: number; regionName: string; currencyCode: string; isUsState: boolean; parentRegionId: number | null };

/** Users/Me on the client: its resolved feature flags. */
export function hasFlag(me: { featureFlags?: { ff: string; isEnabled: boolean }[] } | undefined, ff: string): boolean {
  return !!me?.featureFlags?.some((f) => f.ff === ff && f.isEnabled);
}

/** The market reach framework (SPEC 3). */
export const MARKET_REACH_FRAMEWORK = 1020;

/**
 * Market reach is offered only where its results can be seen: its results page needs the
 * MarketReach flag (SPEC 2), so without it neither the add-on nor the framework is offered
 * (docs/decisions.md "Market reach is offered where its results are seen").
 */
export function offersMarketReach(me: { featureFlags?: { ff: string; isEnabled: boolean }[] } | undefined): boolean {
  return hasFlag(me, "MarketReach");
}
