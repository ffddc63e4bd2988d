// After any sign-in: store the token, then onboarding if names are missing, else the last visited
// URL (SPEC 4).
import { api, unwrap } from "../../api/client";
import { setToken, takeLastVisited } from "../../state/session";

export async function completeSignIn(accessToken: string, navigate: (to: string, o?: { replace?: boolean }) => void) {
  setToken(accessToken);
  const me = await unwrap(api.GET("/api/v1/Users/Me"));
  const next = takeLastVisited();
  if (!me.onboarded) {
    localStorage.setItem("lastVisitedUrl", next);
    navigate("~/onboarding/user-details", { replace: true });
  } else navigate(`~${next}`, { replace: true });
}
