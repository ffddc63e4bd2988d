// account: the user's profile (names, email, sign-in identities, memberships) and the invitations
// to teams waiting for them (accept or decline).
import { useEffect, useState, type FormEvent } from "react";
import { Link } from "wouter";
import { ApiError, api, unwrap } from "../../api/client";
import { toast } from "../../components/toast";
import { Badge, Button, Card, Field, Input, PageHeader, PageSkeleton } from "../../components/ui";
import { Invitations } from "../../features/invitations";
import { APP_VERSION } from "../../lib/constants";
import { useMe, usePolicies } from "../../state/app";

export default function Account() {
  const { data: me, mutate } = useMe();
  const { data: policies } = usePolicies();
  const [firstName, setFirst] = useState("");
  const [lastName, setLast] = useState("");
  const [busy, setBusy] = useState(false);
  useEffect(() => {
    setFirst(me?.firstName ?? "");
    setLast(me?.lastName ?? "");
  }, [me]);
  if (!me) return <PageSkeleton />;
  async function save(e: FormEvent) {
    e.preventDefault();
    setBusy(true);
    try {
      await unwrap(api.POST("/api/v1/Users/SetNames", { body: { firstName: firstName.trim(), lastName: lastName.trim() } }));
      await mutate();
      toast.success("Profile updated", "Your name has been saved.");
    } catch (err) {
      toast.error("Could not save", err instanceof ApiError ? err.message : String(err));
    } finally {
      setBusy(false);
    }
  }
  return (
    <div className="space-y-6">
      <PageHeader title="Account" subtitle={`${me.email} · Ideally ${APP_VERSION}`} />
      <Invitations />
      <div className="grid gap-6 lg:grid-cols-2">
        <Card title="Profile">
          <form onSubmit={save} className="space-y-4">
            <Field id="first" label="First name">
              <Input id="first" value={firstName} onChange={(e) => setFirst(e.target.value)} required />
            </Field>
            <Field id="last" label="Last name">
              <Input id="last" value={lastName} onChange={(e) => setLast(e.target.value)} required />
            </Field>
            <Field id="email" label="Email">
              <Input id="email" value={me.email} disabled />
            </Field>
            <div className="flex items-center justify-between">
              <Link href="~/auth/change-password" className="text-sm font-medium text-brand-700 hover:underline">
                Change password
              </Link>
              <Button type="submit" busy={busy} disabled={!firstName.trim() || !lastName.trim()}>
                Save
              </Button>
            </div>
          </form>
        </Card>
        <div className="space-y-6">
          <Card title="Sign-in methods">
            <ul className="space-y-2 text-sm">
              {me.cognitoUsers.map((c) => (
                <li key={c.id} className="flex items-center justify-between">
                  <span>{c.cognitoIdp ? `${c.cognitoIdp.providerName} (${c.cognitoIdp.providerType})` : "Password"}</span>
                  <span className="text-ink-500">{c.username}</span>
                </li>
              ))}
            </ul>
          </Card>
          <Card title="Teams and organisations">
            <ul className="divide-y divide-ink-100 text-sm">
              {(policies?.value ?? []).map((c) => (
                <li key={c.clientId} className="flex items-center justify-between py-2">
                  <Link href={`~/${c.clientId}`} className="font-medium text-ink-900 hover:underline">
                    {c.clientName}
                  </Link>
                  <span className="flex gap-1.5">
                    <Badge>{c.tier}</Badge>
                    {c.role ? <Badge tone="brand">{c.role.roleName}</Badge> : null}
                  </span>
                </li>
              ))}
            </ul>
          </Card>
        </div>
      </div>
    </div>
  );
}
