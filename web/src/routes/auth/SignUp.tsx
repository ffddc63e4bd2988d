// sign-up: registration through a share or demo link (?identifier=...): the email first; an
// existing account signs in and accepts the share, a new one gets a verification email whose link
// opens accept-invite.
import { useState, type FormEvent } from "react";
import { Link, useSearch } from "wouter";
import { ApiError, api, unwrap } from "../../api/client";
import { Button, Field, Input } from "../../components/ui";
import { AuthLayout, FormError, FormNote } from "./AuthLayout";

export default function SignUp() {
  const identifier = new URLSearchParams(useSearch()).get("identifier") ?? "";
  const [email, setEmail] = useState("");
  const [state, setState] = useState<"form" | "sent" | "exists">("form");
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  async function submit(e: FormEvent) {
    e.preventDefault();
    setBusy(true);
    setError(null);
    try {
      const m = await unwrap(api.GET("/auth/Login/GetRegistrationLoginMethods", { params: { query: { inviteIdentifier: identifier, email: email.trim() } } }));
      if (m.accountExists) setState("exists");
      else {
        await unwrap(api.POST("/auth/Login/VerifyRegistrationEmail", { body: { inviteIdentifier: identifier, email: email.trim() } }));
        setState("sent");
      }
    } catch (err) {
      setError(err instanceof ApiError ? err.message : "Something went wrong. Please try again.");
    } finally {
      setBusy(false);
    }
  }
  return (
    <AuthLayout
      title="Create your Ideally account"
      subtitle="You were invited to view research on Ideally."
      footer={
        <>
          Have an account?{" "}
          <Link href="/login" className="font-medium text-brand-700 hover:underline">
            Sign in
          </Link>
        </>
      }
    >
      {!identifier ? (
        <FormError message="Sign-up needs an invitation link. Ask the person who shared the research with you for one." />
      ) : state === "sent" ? (
        <FormNote>Check your inbox: we sent a link to {email} to finish creating your account.</FormNote>
      ) : state === "exists" ? (
        <FormNote>
          You already have an account.{" "}
          <Link href={`~/invites/demo?identifier=${encodeURIComponent(identifier)}`} className="font-medium underline">
            Sign in to open the shared project
          </Link>
          .
        </FormNote>
      ) : (
        <form onSubmit={submit} className="space-y-4">
          <FormError message={error} />
          <Field id="email" label="Work email">
            <Input id="email" type="email" autoComplete="username" required value={email} onChange={(e) => setEmail(e.target.value)} autoFocus />
          </Field>
          <Button type="submit" className="w-full" busy={busy} disabled={!email}>
            Continue
          </Button>
        </form>
      )}
    </AuthLayout>
  );
}
