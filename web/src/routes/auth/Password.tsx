// Forgot, reset and change password.
import { useState, type FormEvent } from "react";
import { Link, useLocation, useSearch } from "wouter";
import { ApiError, api, unwrap } from "../../api/client";
import { Button, Field, Input } from "../../components/ui";
import { toast } from "../../components/toast";
import { getToken } from "../../state/session";
import { AuthLayout, FormError, FormNote } from "./AuthLayout";
import { completeSignIn } from "./signin";

function useSubmit() {
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  async function run(fn: () => Promise<void>) {
    setError(null);
    setBusy(true);
    try {
      await fn();
    } catch (e) {
      setError(e instanceof ApiError ? (e.errors?.[0]?.message ?? e.message) : "Something went wrong. Please try again.");
    } finally {
      setBusy(false);
    }
  }
  return { error, busy, run };
}

export function ForgotPassword() {
  const [email, setEmail] = useState("");
  const [sent, setSent] = useState(false);
  const { error, busy, run } = useSubmit();
  const submit = (e: FormEvent) => {
    e.preventDefault();
    void run(async () => {
      await unwrap(api.POST("/auth/Login/ForgotPassword", { body: { email: email.trim() } }));
      setSent(true);
    });
  };
  return (
    <AuthLayout
      title="Reset your password"
      subtitle="We'll email you a link to choose a new one."
      footer={
        <Link href="/login" className="font-medium text-brand-700 hover:underline">
          Back to sign in
        </Link>
      }
    >
      {sent ? (
        <FormNote>If an account exists for {email}, a reset link is on its way. It is valid for one hour.</FormNote>
      ) : (
        <form onSubmit={submit} className="space-y-4">
          <FormError message={error} />
          <Field id="email" label="Work email">
            <Input id="email" type="email" autoComplete="username" required value={email} onChange={(e) => setEmail(e.target.value)} autoFocus />
          </Field>
          <Button type="submit" className="w-full" busy={busy} disabled={!email}>
            Send reset link
          </Button>
        </form>
      )}
    </AuthLayout>
  );
}

export function ResetPassword() {
  const token = new URLSearchParams(useSearch()).get("token") ?? "";
  const [, navigate] = useLocation();
  const [password, setPassword] = useState("");
  const { error, busy, run } = useSubmit();
  const submit = (e: FormEvent) => {
    e.preventDefault();
    void run(async () => {
      await unwrap(api.POST("/auth/Login/ResetPassword", { body: { token, password } }));
      toast.success("Password updated", "Sign in with your new password.");
      navigate("/login", { replace: true });
    });
  };
  return (
    <AuthLayout
      title="Choose a new password"
      footer={
        <Link href="/login" className="font-medium text-brand-700 hover:underline">
          Back to sign in
        </Link>
      }
    >
      <form onSubmit={submit} className="space-y-4">
        <FormError message={token ? error : "This reset link is incomplete. Ask for a new one."} />
        <Field id="password" label="New password" hint="10 to 128 characters">
          <Input id="password" type="password" autoComplete="new-password" required minLength={10} value={password} onChange={(e) => setPassword(e.target.value)} autoFocus />
        </Field>
        <Button type="submit" className="w-full" busy={busy} disabled={!token || password.length < 10}>
          Save password
        </Button>
      </form>
    </AuthLayout>
  );
}

export function ChangePassword() {
  const [, navigate] = useLocation();
  const [current, setCurrent] = useState("");
  const [next, setNext] = useState("");
  const { error, busy, run } = useSubmit();
  if (!getToken()) {
    navigate("/login", { replace: true });
    return null;
  }
  const submit = (e: FormEvent) => {
    e.preventDefault();
    void run(async () => {
      await unwrap(api.POST("/api/v1/Users/SetPassword", { body: { currentPassword: current, newPassword: next } }));
      toast.success("Password changed", "Your other sessions have been signed out.");
      navigate("~/", { replace: true });
    });
  };
  return (
    <AuthLayout
      title="Change password"
      footer={
        <Link href="~/" className="font-medium text-brand-700 hover:underline">
          Back to Ideally
        </Link>
      }
    >
      <form onSubmit={submit} className="space-y-4">
        <FormError message={error} />
        <Field id="current" label="Current password">
          <Input id="current" type="password" autoComplete="current-password" required value={current} onChange={(e) => setCurrent(e.target.value)} autoFocus />
        </Field>
        <Field id="new" label="New password" hint="10 to 128 characters">
          <Input id="new" type="password" autoComplete="new-password" required minLength={10} value={next} onChange={(e) => setNext(e.target.value)} />
        </Field>
        <Button type="submit" className="w-full" busy={busy} disabled={!current || next.length < 10}>
          Change password
        </Button>
      </form>
    </AuthLayout>
  );
}

/** The invite link of an email (team invite or share registration): set a password, then in. */
export function AcceptInvite() {
  const token = new URLSearchParams(useSearch()).get("token") ?? "";
  const [, navigate] = useLocation();
  const [firstName, setFirst] = useState("");
  const [lastName, setLast] = useState("");
  const [password, setPassword] = useState("");
  const { error, busy, run } = useSubmit();
  const submit = (e: FormEvent) => {
    e.preventDefault();
    void run(async () => {
      const r = await unwrap(api.POST("/auth/Login/AcceptInvitation", { body: { token, password, ...(firstName ? { firstName } : {}), ...(lastName ? { lastName } : {}) } }));
      await completeSignIn(r.accessToken, navigate);
    });
  };
  return (
    <AuthLayout title="Join your team on Ideally" subtitle="Set up your account to accept the invitation.">
      <form onSubmit={submit} className="space-y-4">
        <FormError message={token ? error : "This invitation link is incomplete. Ask for a new invite."} />
        <div className="grid grid-cols-2 gap-3">
          <Field id="first" label="First name">
            <Input id="first" autoComplete="given-name" value={firstName} onChange={(e) => setFirst(e.target.value)} />
          </Field>
          <Field id="last" label="Last name">
            <Input id="last" autoComplete="family-name" value={lastName} onChange={(e) => setLast(e.target.value)} />
          </Field>
        </div>
        <Field id="password" label="Password" hint="10 to 128 characters">
          <Input id="password" type="password" autoComplete="new-password" required minLength={10} value={password} onChange={(e) => setPassword(e.target.value)} />
        </Field>
        <Button type="submit" className="w-full" busy={busy} disabled={!token || password.length < 10}>
          Accept invitation
        </Button>
      </form>
    </AuthLayout>
  );
}
