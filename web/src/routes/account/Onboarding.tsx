// onboarding/user-details: the names a new user gives before the app (Users SetNames).
import { useState, type FormEvent } from "react";
import { useLocation } from "wouter";
import { ApiError, api, unwrap } from "../../api/client";
import { Button, Field, Input } from "../../components/ui";
import { takeLastVisited } from "../../state/session";
import { useMe } from "../../state/app";
import { AuthLayout, FormError } from "../auth/AuthLayout";

export default function Onboarding() {
  const { data: me, mutate } = useMe();
  const [, navigate] = useLocation();
  const [firstName, setFirst] = useState("");
  const [lastName, setLast] = useState("");
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  async function submit(e: FormEvent) {
    e.preventDefault();
    setBusy(true);
    try {
      await unwrap(api.POST("/api/v1/Users/SetNames", { body: { firstName: firstName.trim(), lastName: lastName.trim() } }));
      await mutate();
      navigate(`~${takeLastVisited()}`, { replace: true });
    } catch (err) {
      setError(err instanceof ApiError ? err.message : "Could not save your details.");
    } finally {
      setBusy(false);
    }
  }
  return (
    <AuthLayout title="Welcome to Ideally" subtitle={me ? `Signed in as ${me.email}. Tell us your name to finish setting up.` : "Tell us your name to finish setting up."}>
      <form onSubmit={submit} className="space-y-4">
        <FormError message={error} />
        <Field id="first" label="First name">
          <Input id="first" autoComplete="given-name" required value={firstName} onChange={(e) => setFirst(e.target.value)} autoFocus />
        </Field>
        <Field id="last" label="Last name">
          <Input id="last" autoComplete="family-name" required value={lastName} onChange={(e) => setLast(e.target.value)} />
        </Field>
        <Button type="submit" className="w-full" busy={busy} disabled={!firstName.trim() || !lastName.trim()}>
          Continue
        </Button>
      </form>
    </AuthLayout>
  );
}
