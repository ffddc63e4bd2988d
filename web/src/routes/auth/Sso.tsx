// The single sign-on landings: saml/login exchanges the one-time code (SAML or LinkedIn) for a
// token after checking this tab's state; saml/error explains a refused sign-in.
import { useEffect, useState } from "react";
import { Link, useLocation, useSearch } from "wouter";
import { ApiError, api, unwrap } from "../../api/client";
import { PageSkeleton } from "../../components/ui";
import { AuthLayout, FormError } from "./AuthLayout";
import { completeSignIn } from "./signin";

export function SamlLogin() {
  const q = new URLSearchParams(useSearch());
  const [, navigate] = useLocation();
  const [error, setError] = useState<string | null>(null);
  const code = q.get("code") ?? "";
  const state = q.get("state") ?? "";
  useEffect(() => {
    const expected = sessionStorage.getItem("sso_state");
    if (!code || !state || (expected && expected !== state)) {
      setError("This sign-in link is not valid for this browser tab. Please sign in again.");
      return;
    }
    sessionStorage.removeItem("sso_state");
    unwrap(api.GET("/auth/Saml/Code", { params: { query: { code, state } } }))
      .then((r) => completeSignIn(r.accessToken, navigate))
      .catch((e) => setError(e instanceof ApiError ? e.message : "Single sign-on failed. Please try again."));
  }, [code, state, navigate]);
  if (!error) return <PageSkeleton rows={1} />;
  return (
    <AuthLayout
      title="Single sign-on"
      footer={
        <Link href="/login" className="font-medium text-brand-700 hover:underline">
          Back to sign in
        </Link>
      }
    >
      <FormError message={error} />
    </AuthLayout>
  );
}

const REASONS: Record<string, string> = {
  bad_request: "The sign-in request was incomplete.",
  unknown_domain: "Your email's domain has no single sign-on set up.",
  idp_disabled: "Your organisation's single sign-on is switched off.",
  idp_not_configured: "Your organisation's single sign-on is not fully set up yet.",
  unsolicited: "Sign-in must start from Ideally's login page.",
  unknown_request: "This sign-in expired or was already used. Please try again.",
  state_mismatch: "This sign-in belongs to another browser tab. Please try again.",
  invalid_signature: "The identity provider's answer could not be verified.",
  invalid_response: "The identity provider's answer could not be read.",
  expired: "The sign-in took too long. Please try again.",
  wrong_audience: "The identity provider addressed another service.",
  wrong_issuer: "The answer came from another identity provider.",
  nonce_mismatch: "This sign-in belongs to another attempt. Please try again.",
  replayed: "This sign-in was already used. Please try again.",
  idp_refused: "Your identity provider refused the sign-in.",
  denied: "The sign-in was cancelled.",
  provider_error: "The identity provider could not be reached.",
  no_email: "Your identity has no verified email address.",
  unknown_user: "There is no Ideally account for this email. Ask your team's admin for an invite.",
  user_disabled: "Your account is disabled. Contact your team's admin.",
  domain_mismatch: "Your email is outside the domains of this identity provider.",
  not_member: "Your account is not a member of the organisation this identity provider signs in for.",
  outside_client: "Your account also belongs to teams this identity provider does not govern: sign in with your password.",
  staff_account: "Staff accounts sign in with their password.",
  linkedin_disabled: "LinkedIn sign-in is not available.",
};

export function SamlError() {
  const reason = new URLSearchParams(useSearch()).get("reason") ?? "";
  return (
    <AuthLayout
      title="Single sign-on failed"
      footer={
        <Link href="/login" className="font-medium text-brand-700 hover:underline">
          Back to sign in
        </Link>
      }
    >
      <FormError message={REASONS[reason] ?? "We could not sign you in with single sign-on. Please try again or use another method."} />
      {reason ? <p className="mt-3 text-xs text-ink-500">Reason code: {reason}</p> : null}
    </AuthLayout>
  );
}
