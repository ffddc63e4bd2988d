// Invitations waiting for the signed-in person (issue 19: an existing account is invited to a team,
// not added): Users/MyInvitations lists them, Users/AcceptMembership makes the membership with the
// invited role, Users/DeclineMembership withdraws it. The Account page shows them; the account
// menu counts them and a client's home mentions them.
import { useState } from "react";
import { Link } from "wouter";
import { api, unwrap } from "../api/client";
import { handleError } from "../api/errors";
import { useApi } from "../api/hooks";
import { toast } from "../components/toast";
import { Badge, Button, Card } from "../components/ui";
import { ROLES } from "../lib/constants";
import { usePolicies } from "../state/app";

export function useMyInvitations() {
  return useApi(["Users/MyInvitations"], () => api.GET("/api/v1/Users/MyInvitations"));
}

/** A line on a home page while invitations wait, with the way to the Account page. */
export function InvitationsNotice() {
  const { data } = useMyInvitations();
  const list = data?.value ?? [];
  if (!list.length) return null;
  return (
    <div
      role="status"
      aria-label="Invitations waiting"
      className="mb-4 flex flex-wrap items-center justify-between gap-2 rounded-xl bg-brand-50 px-4 py-3 text-sm text-brand-900 ring-1 ring-brand-200"
    >
      <span>You are invited to join {list.map((i) => i.clientName).join(", ")}.</span>
      <Link href="~/account" className="font-medium text-brand-700 hover:underline">
        Review invitations
      </Link>
    </div>
  );
}

export function Invitations() {
  const { data, mutate } = useMyInvitations();
  const { mutate: refreshPolicies } = usePolicies();
  const [busy, setBusy] = useState<string | null>(null);
  const list = data?.value ?? [];
  async function answer(clientId: number, clientName: string, accept: boolean) {
    setBusy(`${accept ? "accept" : "decline"}-${clientId}`);
    try {
      if (accept) {
        const m = await unwrap(api.POST("/api/v1/Users/AcceptMembership", { body: { clientId } }));
        toast.success("Invitation accepted", `You are now ${ROLES[m.roleId] === "Admin" ? "an" : "a"} ${ROLES[m.roleId] ?? "member"} of ${clientName}.`);
        await refreshPolicies();
      } else {
        await unwrap(api.POST("/api/v1/Users/DeclineMembership", { body: { clientId } }));
        toast.success("Invitation declined", `You did not join ${clientName}.`);
      }
    } catch (e) {
      handleError(e);
    } finally {
      setBusy(null);
      void mutate();
    }
  }
  if (!list.length) return null;
  return (
    <Card title="Invitations" actions={<Badge tone="brand">{list.length} waiting</Badge>}>
      <ul className="divide-y divide-ink-100 text-sm" aria-label="Invitations">
        {list.map((i) => (
          <li key={i.clientId} className="flex flex-wrap items-center justify-between gap-3 py-3">
            <div className="min-w-0">
              <p className="font-medium text-ink-900">{i.clientName}</p>
              <p className="text-xs text-ink-600">
                As {ROLES[i.roleId] ?? `role ${i.roleId}`}
                {i.invitedBy ? `, invited by ${i.invitedBy}` : ""} · open until {new Date(i.expiresAt).toLocaleDateString(undefined, { dateStyle: "medium" })}
              </p>
            </div>
            <div className="flex shrink-0 gap-2">
              <Button size="sm" busy={busy === `accept-${i.clientId}`} onClick={() => void answer(i.clientId, i.clientName, true)} aria-label={`Accept the invitation to ${i.clientName}`}>
                Accept
              </Button>
              <Button
                size="sm"
                variant="secondary"
                busy={busy === `decline-${i.clientId}`}
                onClick={() => void answer(i.clientId, i.clientName, false)}
                aria-label={`Decline the invitation to ${i.clientName}`}
              >
                Decline
              </Button>
            </div>
          </li>
        ))}
      </ul>
    </Card>
  );
}
