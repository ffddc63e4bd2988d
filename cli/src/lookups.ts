// The API's reference data a project file names: markets (Regions), target options
// (SystemQuestionOption with its question), categories and frameworks, read once per command with
// the typed client, plus SPEC 1's industries (contracts/labels.ts). Used by the lookup commands
// (`ideally markets`, `targets`, ...) and to resolve and check project files (projects/resolve.ts).
import type { ApiClient } from "@ideally/contracts";
import { INDUSTRIES } from "@ideally/contracts/labels";
import { ok } from "./session.ts";

export interface Market {
  id: number;
  name: string;
  code: string;
  currency: string;
  parentId: number | null;
  isUsState: boolean;
}

export interface TargetOption {
  id: number;
  /** The system question's label, e.g. "Gender". */
  question: string;
  questionCode: string;
  label: string;
  /** The market the option belongs to; null: every market. */
  marketId: number | null;
}

export interface Category {
  id: number;
  name: string;
  parentId: number | null;
  industry: string | null;
}

export interface Framework {
  id: number;
  title: string;
  projectTypeId: number;
  description: string | null;
}

export interface Industry {
  code: string;
  name: string;
}

const TOP = 1000;

export async function readMarkets(client: ApiClient): Promise<Market[]> {
  const rows = ok(
    await client.GET("/api/v1/Regions", { params: { query: { $select: "id,regionName,regionCode,currencyCode,parentRegionId,isUsState,sortOrder", $orderby: "sortOrder,id", $top: TOP } } }),
    "reading the markets",
  ).value;
  return rows.flatMap((r) =>
    r?.id != null ? [{ id: r.id, name: r.regionName ?? "", code: r.regionCode ?? "", currency: r.currencyCode ?? "", parentId: r.parentRegionId ?? null, isUsState: r.isUsState ?? false }] : [],
  );
}

export async function readTargetOptions(client: ApiClient): Promise<TargetOption[]> {
  const out: TargetOption[] = [];
  // More than 1000 options exist (the US states' copies): page through them.
  for (let skip = 0; ; skip += TOP) {
    const page = ok(
      await client.GET("/api/v1/SystemQuestionOption", {
        params: {
          query: {
            $select: "id,systemQuestionId,regionId,answerLabel,sortOrder",
            $expand: "systemQuestion($select=questionLabel,questionCode,sortOrder)",
            $orderby: "systemQuestionId,regionId,sortOrder,id",
            $top: TOP,
            $skip: skip,
          },
        },
      }),
      "reading the target options",
    ).value;
    for (const o of page) {
      if (o?.id == null) continue;
      out.push({ id: o.id, question: o.systemQuestion?.questionLabel ?? "", questionCode: o.systemQuestion?.questionCode ?? "", label: o.answerLabel ?? "", marketId: o.regionId ?? null });
    }
    if (page.length < Number(TOP)) return out;
  }
}

export async function readCategories(client: ApiClient): Promise<Category[]> {
  const rows = ok(
    await client.GET("/api/v1/Categories", { params: { query: { $select: "id,name,parentId,industry,sortOrder", $orderby: "sortOrder,id", $top: TOP } } }),
    "reading the categories",
  ).value;
  return rows.flatMap((c) => (c?.id != null ? [{ id: c.id, name: c.name ?? "", parentId: c.parentId ?? null, industry: c.industry ?? null }] : []));
}

export async function readFrameworks(client: ApiClient): Promise<Framework[]> {
  const rows = ok(
    await client.GET("/api/v1/Frameworks", { params: { query: { $select: "id,title,projectTypeId,description,sortOrder", $orderby: "sortOrder,id", $top: TOP } } }),
    "reading the frameworks",
  ).value;
  return rows.flatMap((f) => (f?.id != null ? [{ id: f.id, title: f.title ?? "", projectTypeId: f.projectTypeId ?? 0, description: f.description ?? null }] : []));
}

export function industries(): Industry[] {
  return Object.entries(INDUSTRIES).map(([code, name]) => ({ code, name }));
}

/** Names compare without case and surrounding spaces. */
export const same = (a: string, b: string) => a.trim().toLowerCase() === b.trim().toLowerCase();

/** A market by id, name or code. */
export function findMarket(markets: Market[], want: number | string): Market | undefined {
  if (typeof want === "number" || /^\s*\d+\s*$/.test(want)) return markets.find((m) => m.id === Number(want));
  return markets.find((m) => same(m.name, want) || same(m.code, want));
}
