// Search-query state in the URL (SPEC 2): objects and arrays as JSON, empty values removed.
import { useCallback, useMemo } from "react";
import { useLocation, useSearch } from "wouter";

export type SearchValue = string | number | boolean | null | undefined | unknown[] | Record<string, unknown>;

function isEmpty(v: SearchValue): boolean {
  if (v === null || v === undefined || v === "") return true;
  if (Array.isArray(v)) return v.length === 0;
  if (typeof v === "object") return Object.keys(v).length === 0;
  return false;
}

export function encodeSearch(state: Record<string, SearchValue>): string {
  const q = new URLSearchParams();
  for (const [k, v] of Object.entries(state)) {
    if (isEmpty(v)) continue;
    q.set(k, typeof v === "object" ? JSON.stringify(v) : String(v));
  }
  const s = q.toString();
  return s ? `?${s}` : "";
}

export function decodeSearch(search: string): Record<string, SearchValue> {
  const out: Record<string, SearchValue> = {};
  for (const [k, v] of new URLSearchParams(search)) {
    if (/^[[{]/.test(v)) {
      try {
        out[k] = JSON.parse(v) as SearchValue;
        continue;
      } catch {
        /* a plain string that starts with a bracket */
      }
    }
    out[k] = v;
  }
  return out;
}

/** The URL's query as state, and a setter that merges and drops empty values. */
export function useSearchState(): [Record<string, SearchValue>, (patch: Record<string, SearchValue>) => void] {
  const search = useSearch();
  const [path, navigate] = useLocation();
  const state = useMemo(() => decodeSearch(search), [search]);
  const set = useCallback((patch: Record<string, SearchValue>) => navigate(path + encodeSearch({ ...decodeSearch(location.search), ...patch }), { replace: true }), [navigate, path]);
  return [state, set];
}
