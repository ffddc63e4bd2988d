// Login (SPEC 2, 7): the email first, then the ways it can sign in (GetLoginMethods): password,
// the domain's SAML single sign-on, LinkedIn. A temporary password asks for a new one.
import { useState, type FormEvent } from "react";
import { Link, useLocation } from "wouter";
import { ApiError, api, unwrap } from "../../api/client";
import { Button, Field, Input } from "../../components/ui";
import { AuthLayout, FormError, newSsoState } from "./AuthLayout";
import { completeSignIn } from "./signin";

type Methods = { password: boolean; saml: { providerName: string } | null; linkedIn: boolean };

export default function Login() {
  const [, navigate] = useLocation();
  const [email, setEmail] = useState("");
  const [password, setPassword] = useState("");
  const [newPassword, setNewPassword] = useState("");
  const [methods, setMethods] = useState<Methods | null>(null);
  const [mustChange, setMustChange] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);

  async function next(e: FormEvent) {
    e.preventDefault();
    setError(null);
    setBusy(true);
    try {
      if (!methods) {
        const m = await unwrap(api.GET("/auth/Login/GetLoginMethods/{email}", { params: { path: { email: email.trim() } } }));
        setMethods(m);
        if (!m.password && !m.saml && !m.linkedIn) setError("This email cannot sign in. Ask your team's admin for an invite.");
      } else if (mustChange) {
        const r = await unwrap(api.POST("/auth/Login/NewPasswordRequired", { body: { email: email.trim(), password, newPassword } }));
        await completeSignIn(r.accessToken, navigate);
      } else {
        const r = await unwrap(api.POST("/auth/Login/PasswordLogin", { body: { email: email.trim(), password } }));
        await completeSignIn(r.accessToken, navigate);
      }
    } catch (err) {
      if (err instanceof ApiError && err.typename === "NewPasswordRequired") {
        setMustChange(true);
        setError(null);
      } else setError(err instanceof ApiError ? err.message : "Something went wrong. Please try again.");
    } finally {
      setBusy(false);
    }
  }

  const sso = (kind: "saml" | "linkedin") => {
    const state = newSsoState();
    const q = new URLSearchParams(kind === "saml" ? { email: email.trim(), state } : { state });
    location.assign(kind === "saml" ? `/auth/Saml/Login?${q}` : `/auth/LinkedIn/Login?${q}`);
  };

  return (
    <AuthLayout
      title={mustChange ? "Choose a new password" : "Sign in to Ideally"}
      subtitle={mustChange ? "Your password is temporary. Choose your own to continue." : "Test ideas with real people, read results you can trust."}
      footer={<>New to Ideally? Your team's admin can invite you.</>}
    >
      <form onSubmit={next} className="space-y-4" noValidate>
        <FormError message={error} />
        <Field id="email" label="Work email">
          <Input id="email" type="email" autoComplete="username" required value={email} readOnly={!!methods} onChange={(e) => setEmail(e.target.value)} placeholder="you@company.com" autoFocus />
        </Field>
        {methods?.password ? (
          <Field id="password" label={mustChange ? "Temporary password" : "Password"}>
            <Input id="password" type="password" autoComplete="current-password" required value={password} onChange={(e) => setPassword(e.target.value)} autoFocus={!mustChange} />
          </Field>
        ) : null}
        {mustChange ? (
          <Field id="new-password" label="New password" hint="10 to 128 characters">
            <Input id="new-password" type="password" autoComplete="new-password" required minLength={10} value={newPassword} onChange={(e) => setNewPassword(e.target.value)} autoFocus />
          </Field>
        ) : null}
        {!methods || methods.password ? (
          <Button type="submit" className="w-full" busy={busy} disabled={!email}>
            {!methods ? "Continue" : mustChange ? "Set password and sign in" : "Sign in"}
          </Button>
        ) : null}
        {methods?.saml ? (
          <Button variant="secondary" className="w-full" onClick={() => sso("saml")}>
            Sign in with {methods.saml.providerName}
          </Button>
        ) : null}
        {methods?.linkedIn ? (
          <Button variant="secondary" className="w-full" onClick={() => sso("linkedin")}>
            Sign in with LinkedIn
          </Button>
        ) : null}
        <div className="flex items-center justify-between text-sm">
          {methods ? (
            <button
              type="button"
              className="text-ink-600 hover:underline"
              onClick={() => {
                setMethods(null);
                setMustChange(false);
                setPassword("");
                setError(null);
              }}
            >
              Use another email
            </button>
          ) : (
            <span />
          )}
          <Link href="/forgot-password" className="font-medium text-brand-700 hover:underline">
            Forgot password?
          </Link>
        </div>
      </form>
    </AuthLayout>
  );
}
