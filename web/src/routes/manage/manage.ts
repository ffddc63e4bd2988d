// What the management pages share: the pages of each area, the request scope (org and enterprise
// pages read their whole subtree), the clients an admin reaches beneath the current one, and
// number and date formats.
import type { ApiError } from "../../api/client";
import type { CurrentClient } from "../../state/client";
import type { Policies } from "../../state/app";

export type ManageKind = "team" | "org" | "enterprise";
export interface ManageProps {
  client: CurrentClient;
  area: ManageKind;
}

/** SPEC 2's pages per area, in navigation order. */
export const AREA_PAGES: Record<ManageKind, { id: string; label: string }[]> = {
  team: [
    { id: "members", label: "Members" },
    { id: "transactions", label: "Transactions" },
    { id: "templates", label: "Templates" },
  ],
  org: [
    { id: "admin-dashboard", label: "Dashboard" },
    { id: "overview", label: "Overview" },
    { id: "members", label: "Members" },
    { id: "transactions", label: "Transactions" },
    { id: "security", label: "Security" },
  ],
  enterprise: [
    { id: "overview", label: "Overview" },
    { id: "members", label: "Members" },
    { id: "transactions", label: "Transactions" },
    { id: "security", label: "Security" },
  ],
};

/** Team pages read the team's own rows; org and enterprise pages the clients beneath too. */
export function scopeOf(area: ManageKind): "client" | "descendants" {
  return area === "team" ? "client" : "descendants";
}

/** The headers of a call made for a client (and its subtree) other than the URL's. */
export function headersFor(clientId: number, scope: "client" | "descendants" = "client"): Record<string, string> {
  return { clientId: String(clientId), requestscope: scope };
}

export type ReachedClient = { clientId: number; clientName: string; tier: string; parentId: number | null };

/** The client and every client beneath it that the user reaches (MyPolicies lists them all), parents first. */
export function subtreeOf(policies: Policies | undefined, root: CurrentClient): ReachedClient[] {
  const all: ReachedClient[] = (policies?.value ?? []).map((c) => ({ clientId: c.clientId, clientName: c.clientName, tier: c.tier, parentId: c.parentId }));
  if (!all.some((c) => c.clientId === root.id)) all.push({ clientId: root.id, clientName: root.name, tier: root.tier, parentId: root.parentId });
  const out: ReachedClient[] = [];
  const walk = (id: number) => {
    const c = all.find((x) => x.clientId === id);
    if (!c) return;
    out.push(c);
    for (const child of all.filter((x) => x.parentId === id).sort((a, b) => a.clientName.localeCompare(b.clientName))) walk(child.clientId);
  };
  walk(root.id);
  return out;
}

const credits = new Intl.NumberFormat("en", { maximumFractionDigits: 2 });
export function formatCredits(n: number | null | undefined): string {
  return n === null || n === undefined ? "—" : credits.format(n);
}
export function formatSigned(n: number): string {
  return `${n > 0 ? "+" : n < 0 ? "−" : ""}${credits.format(Math.abs(n))}`;
}
export function formatDate(iso: string | null | undefined): string {
  return iso ? new Date(iso).toLocaleDateString("en", { day: "numeric", month: "short", year: "numeric" }) : "—";
}
export function formatTime(iso: string): string {
  return new Date(iso).toLocaleTimeString("en", { hour: "2-digit", minute: "2-digit" });
}
export function formatDateTime(iso: string | null | undefined): string {
  return iso ? new Date(iso).toLocaleString("en", { day: "numeric", month: "short", year: "numeric", hour: "2-digit", minute: "2-digit" }) : "—";
}

export function personName(p: { firstName: string | null; lastName: string | null; email: string }): string {
  return [p.firstName, p.lastName].filter(Boolean).join(" ") || p.email;
}

/** A 400's failing fields by their top-level name (emailDomains.0 -> emailDomains); else the message under `fallback`. */
export function fieldErrors(e: ApiError, fallback: string): Record<string, string> {
  const list = e.errors?.length ? e.errors : [{ path: fallback, message: e.message }];
  return Object.fromEntries(list.map((f) => [f.path.split(".")[0]!, f.message]));
}

/** Last `n` calendar months (UTC) as YYYY-MM keys, oldest first. */
export function lastMonths(n: number, now = new Date()): string[] {
  const out: string[] = [];
  for (let i = n - 1; i >= 0; i--) {
    const d = new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth() - i, 1));
    out.push(d.toISOString().slice(0, 7));
  }
  return out;
}

/** "Nov" for a YYYY-MM key; with the year ("Nov 2026") when `long`. */
export function monthLabel(key: string, long = false): string {
  const [y, m] = key.split("-").map(Number);
  return new Date(Date.UTC(y!, m! - 1, 1)).toLocaleDateString("en", { month: "short", ...(long ? { year: "numeric" } : {}), timeZone: "UTC" });
}

/** Sums `value(row)` per UTC month of `date(row)` over the given month keys. */
export function perMonth<T>(rows: T[], months: string[], date: (r: T) => string, value: (r: T) => number): { month: string; value: number }[] {
  const sums = new Map(months.map((m) => [m, 0]));
  for (const r of rows) {
    const k = date(r).slice(0, 7);
    if (sums.has(k)) sums.set(k, sums.get(k)! + value(r));
  }
  return months.map((m) => ({ month: m, value: Math.round(sums.get(m)! * 100) / 100 }));
}

/** Credit log types that spend (runs and project adjustments, SPEC 3) and that add credits. */
export const SPEND_TYPES = [30, 40, 80, 81, 82, 83, 84, 85, 90];
export const TOP_UP_TYPES = [1, 2, 86];
export const TRANSFER_TYPES = [130, 140];

/** CreditLogTypes names (SPEC 3) as people read them. */
export const CREDIT_TYPE_LABELS: Record<number, string> = {
  1: "Purchase",
  2: "Subscription",
  30: "Survey run (pending)",
  40: "Survey run",
  80: "Added run adjustment",
  81: "Standard question adjustment",
  82: "Profiler adjustment",
  83: "Make-good",
  84: "Boosted sample adjustment",
  85: "Monadic adjustment",
  86: "Free credits",
  90: "Other adjustment",
  130: "Transfer (pending)",
  140: "Transfer",
};
