// The navigation history of the last 10 modules (SPEC 2, 9): the referrer path of a page is the
// last visited path of another module. Scroll positions are restored per history entry.
import { NAV_HISTORY_SIZE } from "./constants";

/** The module of a path: its first segment after the client id ("home", "projects", "admin"...). */
export function moduleOf(path: string): string {
  const parts = path.split("/").filter(Boolean);
  return (/^\d+$/.test(parts[0] ?? "") ? parts[1] : parts[0]) ?? "";
}

const visits: { module: string; path: string }[] = [];

export function recordVisit(path: string) {
  const module = moduleOf(path);
  const last = visits[visits.length - 1];
  if (last?.module === module) last.path = path;
  else {
    visits.push({ module, path });
    if (visits.length > NAV_HISTORY_SIZE) visits.shift();
  }
}

/** The last path visited in another module than the current one, if any. */
export function referrerPath(current = location.pathname): string | null {
  const module = moduleOf(current);
  for (let i = visits.length - 1; i >= 0; i--) if (visits[i].module !== module) return visits[i].path;
  return null;
}

const scroll = new Map<string, number>();
export function saveScroll(key: string) {
  scroll.set(key, window.scrollY);
}
export function restoreScroll(key: string) {
  window.scrollTo(0, scroll.get(key) ?? 0);
}
