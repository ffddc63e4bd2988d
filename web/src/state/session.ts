// The session, as SPEC 4 says: a token from the URL hash after login or from local storage; an
// expired token is refreshed before a call, one within 10 minutes of expiry in the background; a
// refresh failure (422 / AuthFailureDto) goes to login; logout keeps client_id, is tracked, and
// goes to /auth after 0.5 s; other tabs follow through storage events.
import { tokenExpiry } from "../lib/jwt";
import { LOGOUT_REDIRECT_DELAY_MS, STORAGE, TOKEN_NEAR_EXPIRY_MS } from "../lib/constants";

type Listener = (token: string | null) => void;
const listeners = new Set<Listener>();

export function getToken(): string | null {
  return localStorage.getItem(STORAGE.token);
}

export function onTokenChange(fn: Listener): () => void {
  listeners.add(fn);
  return () => listeners.delete(fn);
}

function emit() {
  const t = getToken();
  for (const fn of listeners) fn(t);
}

export function setToken(token: string) {
  localStorage.setItem(STORAGE.token, token);
  emit();
}

/** Takes `#accessToken=...` (or `#token=...`) from the URL after a sign-in redirect. */
export function takeTokenFromHash(): boolean {
  const hash = new URLSearchParams(location.hash.replace(/^#/, ""));
  const t = hash.get("accessToken") ?? hash.get("token");
  if (!t) return false;
  setToken(t);
  history.replaceState(history.state, "", location.pathname + location.search);
  return true;
}

let refreshing: Promise<string | null> | null = null;

/** POST /auth/Login/Refresh with the httpOnly cookie; the one refresh in flight is shared. */
export function refreshToken(): Promise<string | null> {
  refreshing ??= (async () => {
    try {
      const res = await fetch("/auth/Login/Refresh", { method: "POST", credentials: "include" });
      if (res.ok) {
        const body = (await res.json()) as { accessToken: string };
        setToken(body.accessToken);
        return body.accessToken;
      }
      const body = (await res.json().catch(() => ({}))) as { typename?: string };
      if (res.status === 422 || body.typename === "AuthFailureDto" || res.status === 401) {
        endSession("expired");
      }
      return null;
    } catch {
      return null; // offline: keep the token, the next call tries again
    } finally {
      refreshing = null;
    }
  })();
  return refreshing;
}

/** The token to send: refreshed first when expired, in the background when near expiry. */
export async function validToken(): Promise<string | null> {
  const t = getToken();
  if (!t) return null;
  const exp = tokenExpiry(t);
  if (exp === null) return t;
  const left = exp - Date.now();
  if (left <= 5_000) return refreshToken();
  if (left < TOKEN_NEAR_EXPIRY_MS) void refreshToken();
  return t;
}

/** Set once this tab has logged out (here or in another tab): nothing more is remembered. */
let loggedOut = false;

/** Remember where the user was, for after the next sign-in. */
export function rememberLocation() {
  if (loggedOut) return;
  const here = location.pathname + location.search;
  if (!here.startsWith("/auth") && !here.startsWith("/invites")) localStorage.setItem(STORAGE.lastVisitedUrl, here);
}

/** Where to go after signing in: the last visited URL (once), else /. */
export function takeLastVisited(): string {
  const url = localStorage.getItem(STORAGE.lastVisitedUrl);
  localStorage.removeItem(STORAGE.lastVisitedUrl);
  return url?.startsWith("/") && !url.startsWith("//") ? url : "/";
}

/** Clear local storage but client_id. */
function clearStorage() {
  const clientId = localStorage.getItem(STORAGE.clientId);
  localStorage.clear();
  if (clientId !== null) localStorage.setItem(STORAGE.clientId, clientId);
}

/** A session that ended by itself (401, failed refresh): keep the place, go to login now. */
export function endSession(_why: "expired" | "unauthorized") {
  if (!getToken()) return;
  clearStorage();
  rememberLocation();
  emit();
  if (!location.pathname.startsWith("/auth")) location.assign("/auth/login");
}

/** The user's logout: tracked, the server session ended, then /auth after 0.5 s. */
export async function logout(): Promise<void> {
  const token = getToken();
  const headers: Record<string, string> = token ? { authorization: `Bearer ${token}` } : {};
  const q = new URLSearchParams({ eventId: "Logout", url: location.pathname, message: "User logged out" });
  loggedOut = true;
  await Promise.allSettled([fetch(`/Logger?${q}`, { headers, credentials: "include" }), fetch("/auth/Login/Logout", { method: "POST", headers, credentials: "include" })]);
  clearStorage();
  emit();
  await new Promise((r) => setTimeout(r, LOGOUT_REDIRECT_DELAY_MS));
  location.assign("/auth");
}

/** Other tabs: a token removed there logs this tab out; a token set there signs this one in. */
export function syncAcrossTabs() {
  window.addEventListener("storage", (e) => {
    if (e.key !== STORAGE.token && e.key !== null) return;
    if (!getToken()) loggedOut = true;
    emit();
    const signedIn = !!getToken();
    const onAuth = location.pathname.startsWith("/auth");
    if (!signedIn && !onAuth) {
      loggedOut = true;
      location.assign("/auth/login");
    } else if (signedIn && onAuth) location.assign(takeLastVisited());
  });
}
