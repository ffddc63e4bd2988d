// members: the people of the client (and, on org and enterprise pages, of every client beneath it)
// with role, login status and last login; invite, change role, disable or enable, remove from the
// client, resend an invite. A team's inherited tab lists who reaches it from above.
import { Menu, MenuButton, MenuItem, MenuItems } from "@headlessui/react";
import { useMemo, useState, type FormEvent } from "react";
import { api, selected, unwrap, type Page, type Row, type Schemas } from "../../api/client";
import { handleError } from "../../api/errors";
import { useApi } from "../../api/hooks";
import { ConfirmDialog } from "../../components/Dialog";
import { toast } from "../../components/toast";
import { Badge, Button, EmptyState, Field, Input, PageHeader, Select, Skeletons, TabLinks, Table } from "../../components/ui";
import { ROLES } from "../../lib/constants";
import { useSearchState } from "../../lib/search";
import { useMe, usePolicies } from "../../state/app";
import { fieldErrors, formatDateTime, headersFor, personName, scopeOf, subtreeOf, type ManageProps, type ReachedClient } from "./manage";
import { HiddenHead } from "./parts";
import { FormModal } from "../../components/FormModal";

type Membership = Row<
  "UserAndClients",
  "id" | "userId" | "clientId" | "roleId",
  { client: Row<"Clients", "id" | "name" | "tier"> | null; user: Row<"Users", "id" | "email" | "firstName" | "lastName"> | null }
>;
type LoginStatus = Schemas["UserLoginStatus"]["value"][number];
type Status = LoginStatus["status"];

const STATUS_LABEL: Record<Status, string> = {
  invited: "Invite pending",
  confirmed: "Active",
  "force-change": "Temporary password",
  external: "Single sign-on",
  disabled: "Disabled",
};
const STATUS_TONE: Record<Status, "neutral" | "green" | "amber" | "red" | "blue"> = {
  invited: "amber",
  confirmed: "green",
  "force-change": "amber",
  external: "blue",
  disabled: "red",
};

type Pending = { kind: "disable" | "enable" | "remove" | "resend"; row: Membership };

export default function Members({ client, area, tab }: ManageProps & { tab?: string }) {
  const scope = scopeOf(area);
  const inherited = area === "team" && tab === "inherited";
  const [search, setSearch] = useSearchState();
  const qRaw = String(search.q ?? "");
  const q = qRaw.toLowerCase();
  const statusFilter = String(search.status ?? "");
  const { data: policies } = usePolicies();
  const { data: me } = useMe();
  const clients = useMemo(() => subtreeOf(policies, client), [policies, client]);
  const [inviting, setInviting] = useState(false);
  const [pending, setPending] = useState<Pending | null>(null);
  const [busy, setBusy] = useState(false);

  const query = {
    $select: "id,userId,clientId,roleId",
    $expand: "client($select=id,name,tier),user($select=id,email,firstName,lastName)",
  };
  const memberships = useApi(["UserAndClients", client.id, scope], () => selected<Page<Membership>>(api.GET("/api/v1/UserAndClients", { params: { query }, headers: headersFor(client.id, scope) })));
  const statuses = useApi(["Users/CognitoStatus", client.id, scope], () => api.GET("/api/v1/Users/CognitoStatus", { headers: headersFor(client.id, scope) }));
  const counts = useApi(["Users/InheritedUserCount", client.id], () => api.GET("/api/v1/Users/InheritedUserCount", { headers: headersFor(client.id) }));
  const byUser = useMemo(() => new Map((statuses.data?.value ?? []).map((s) => [s.userId, s])), [statuses.data]);

  const rows = useMemo(() => {
    const order = new Map(clients.map((c, i) => [c.clientId, i]));
    return (memberships.data?.value ?? [])
      .filter((m) => m.user)
      .filter((m) => !q || `${personName(m.user!)} ${m.user!.email}`.toLowerCase().includes(q))
      .filter((m) => !statusFilter || byUser.get(m.userId)?.status === statusFilter)
      .sort((a, b) => (order.get(a.clientId) ?? 99) - (order.get(b.clientId) ?? 99) || personName(a.user!).localeCompare(personName(b.user!)));
  }, [memberships.data, clients, q, statusFilter, byUser]);

  function refresh() {
    void memberships.mutate();
    void statuses.mutate();
    void counts.mutate();
  }

  async function changeRole(row: Membership, roleId: number) {
    try {
      await unwrap(api.POST("/api/v1/Users({key})/ChangeRole", { params: { path: { key: String(row.userId) } }, body: { roleId: roleId as 1 | 2 | 3 }, headers: headersFor(row.clientId) }));
      toast.success("Role changed", `${personName(row.user!)} is now ${ROLES[roleId]} of ${row.client?.name ?? client.name}.`);
    } catch (e) {
      handleError(e);
    }
    refresh();
  }

  async function confirm() {
    if (!pending) return;
    const { kind, row } = pending;
    const key = { path: { key: String(row.userId) } };
    const headers = headersFor(row.clientId);
    const who = personName(row.user!);
    setBusy(true);
    try {
      if (kind === "remove") {
        await unwrap(api.POST("/api/v1/Users({key})/RemoveFromAccount", { params: key, headers }));
        toast.success("Member removed", `${who} no longer has access to ${row.client?.name ?? client.name}.`);
      } else if (kind === "disable") {
        await unwrap(api.POST("/api/v1/Users({key})/Disable", { params: key, headers }));
        toast.success("Account disabled", `${who} has been signed out and cannot sign in.`);
      } else if (kind === "enable") {
        await unwrap(api.POST("/api/v1/Users({key})/Enable", { params: key, headers }));
        toast.success("Account enabled", `${who} can sign in again.`);
      } else {
        await unwrap(api.POST("/api/v1/Users({key})/ResendInvite", { params: key, headers }));
        toast.success("Invite sent again", `A new invite link is on its way to ${row.user!.email}.`);
      }
      setPending(null);
    } catch (e) {
      handleError(e);
    } finally {
      setBusy(false);
      refresh();
    }
  }

  const loading = memberships.isLoading || statuses.isLoading;
  const subtitle = counts.data
    ? `${client.name} · ${counts.data.directUserCount} direct member${counts.data.directUserCount === 1 ? "" : "s"}, ${counts.data.value} inherited from above`
    : client.name;

  return (
    <div>
      <PageHeader title="Members" subtitle={subtitle} actions={<Button onClick={() => setInviting(true)}>Invite member</Button>} />
      {area === "team" ? (
        <TabLinks
          label="Member lists"
          active={inherited ? "inherited" : "direct"}
          tabs={[
            { id: "direct", label: "Team members", href: "/members" },
            { id: "inherited", label: "Access from above", href: "/members/inherited" },
          ]}
        />
      ) : null}
      {inherited ? (
        <InheritedMembers teamId={client.id} byUser={byUser} />
      ) : (
        <>
          <div className="mb-4 grid gap-3 sm:grid-cols-[1fr_14rem]">
            <label className="sr-only" htmlFor="member-search">
              Search members
            </label>
            <Input id="member-search" type="search" placeholder="Search by name or email" defaultValue={qRaw} onChange={(e) => setSearch({ q: e.target.value })} />
            <label className="sr-only" htmlFor="member-status">
              Status
            </label>
            <Select id="member-status" value={statusFilter} onChange={(e) => setSearch({ status: e.target.value })}>
              <option value="">All statuses</option>
              {Object.entries(STATUS_LABEL).map(([k, l]) => (
                <option key={k} value={k}>
                  {l}
                </option>
              ))}
            </Select>
          </div>
          {loading ? (
            <div className="space-y-2" role="status" aria-label="Loading members">
              <Skeletons count={5} className="h-14" />
            </div>
          ) : !rows.length ? (
            <EmptyState title={q || statusFilter ? "No members match" : "No members yet"} action={!q && !statusFilter ? <Button onClick={() => setInviting(true)}>Invite member</Button> : undefined}>
              {q || statusFilter ? "Try another search or status." : "Invite the people who run tests with you."}
            </EmptyState>
          ) : (
            <Table head={["Member", ...(area === "team" ? [] : ["Client"]), "Role", "Status", "Last login", <HiddenHead key="actions">Actions</HiddenHead>]} caption="Members">
              {rows.map((m) => {
                const s = byUser.get(m.userId);
                const self = m.userId === me?.id;
                const status: Status = s?.status ?? "confirmed";
                return (
                  <tr key={m.id} className="hover:bg-ink-50">
                    <td className="px-4 py-3">
                      <div className="font-medium text-ink-900">
                        {personName(m.user!)}
                        {self ? <span className="ml-1.5 text-xs font-normal text-ink-500">(you)</span> : null}
                      </div>
                      <div className="text-xs text-ink-600">{m.user!.email}</div>
                    </td>
                    {area === "team" ? null : (
                      <td className="px-4 py-3 whitespace-nowrap text-ink-700">
                        {m.client?.name}
                        <span className="ml-1 text-xs text-ink-500">{m.client?.tier}</span>
                      </td>
                    )}
                    <td className="relative px-4 py-3">
                      {self ? (
                        <span className="text-ink-700">{ROLES[m.roleId]}</span>
                      ) : (
                        <>
                          <label className="sr-only" htmlFor={`role-${m.id}`}>
                            Role of {m.user!.email}
                            {area === "team" ? "" : ` in ${m.client?.name}`}
                          </label>
                          <Select id={`role-${m.id}`} className="h-8 !w-28 py-1" value={m.roleId} onChange={(e) => void changeRole(m, Number(e.target.value))}>
                            {Object.entries(ROLES).map(([id, name]) => (
                              <option key={id} value={id}>
                                {name}
                              </option>
                            ))}
                          </Select>
                        </>
                      )}
                    </td>
                    <td className="px-4 py-3">
                      <Badge tone={STATUS_TONE[status]}>{STATUS_LABEL[status]}</Badge>
                    </td>
                    <td className="px-4 py-3 whitespace-nowrap text-ink-600">
                      {s?.lastLoginAt ? formatDateTime(s.lastLoginAt) : status === "invited" ? `Invited ${formatDateTime(s?.invitedAt)}` : "Never"}
                    </td>
                    <td className="px-4 py-3 text-right">{self ? null : <RowActions row={m} status={status} onPick={(kind) => setPending({ kind, row: m })} />}</td>
                  </tr>
                );
              })}
            </Table>
          )}
        </>
      )}
      {inviting ? <InviteDialog clients={area === "team" ? clients.slice(0, 1) : clients} onClose={() => setInviting(false)} onInvited={refresh} /> : null}
      {pending ? <ConfirmAction pending={pending} busy={busy} clientName={pending.row.client?.name ?? client.name} onConfirm={() => void confirm()} onClose={() => setPending(null)} /> : null}
    </div>
  );
}

function RowActions({ row, status, onPick }: { row: Membership; status: Status; onPick: (k: Pending["kind"]) => void }) {
  const items: { kind: Pending["kind"]; label: string; danger?: boolean }[] = [
    ...(status === "invited" ? [{ kind: "resend" as const, label: "Resend invite" }] : []),
    status === "disabled" ? { kind: "enable" as const, label: "Enable account" } : { kind: "disable" as const, label: "Disable account", danger: true },
    { kind: "remove", label: `Remove from ${row.client?.name ?? "client"}`, danger: true },
  ];
  return (
    <Menu as="div" className="relative inline-block text-left">
      <MenuButton className="rounded-lg p-1.5 text-ink-600 hover:bg-ink-100" aria-label={`Actions for ${row.user!.email}`}>
        <svg viewBox="0 0 20 20" className="size-5" fill="currentColor" aria-hidden="true">
          <path d="M10 6a1.5 1.5 0 1 1 0-3 1.5 1.5 0 0 1 0 3Zm0 5.5a1.5 1.5 0 1 1 0-3 1.5 1.5 0 0 1 0 3Zm0 5.5a1.5 1.5 0 1 1 0-3 1.5 1.5 0 0 1 0 3Z" />
        </svg>
      </MenuButton>
      <MenuItems anchor="bottom end" className="z-40 mt-1 w-56 rounded-xl bg-white p-1 shadow-lg ring-1 ring-ink-200 focus:outline-none">
        {items.map((i) => (
          <MenuItem key={i.kind}>
            <button
              type="button"
              onClick={() => onPick(i.kind)}
              className={`block w-full rounded-lg px-3 py-2 text-left text-sm data-[focus]:bg-ink-100 ${i.danger ? "text-rose-700" : "text-ink-800"}`}
            >
              {i.label}
            </button>
          </MenuItem>
        ))}
      </MenuItems>
    </Menu>
  );
}

function ConfirmAction({ pending, busy, clientName, onConfirm, onClose }: { pending: Pending; busy: boolean; clientName: string; onConfirm: () => void; onClose: () => void }) {
  const who = personName(pending.row.user!);
  const texts: Record<Pending["kind"], { title: string; message: string; button: string }> = {
    remove: { title: "Remove member", message: `Remove ${who} from ${clientName}? Their account stays, and their access to other clients is not affected.`, button: "Remove" },
    disable: { title: "Disable account", message: `Disable ${who}'s account? They are signed out everywhere and cannot sign in until an Admin enables the account again.`, button: "Disable" },
    enable: { title: "Enable account", message: `Enable ${who}'s account? They can sign in again with their existing login.`, button: "Enable" },
    resend: { title: "Resend invite", message: `Send ${pending.row.user!.email} a new invite link? The previous link stops working.`, button: "Send invite" },
  };
  const t = texts[pending.kind];
  return <ConfirmDialog open title={t.title} message={t.message} confirmLabel={t.button} busy={busy} onConfirm={onConfirm} onClose={onClose} />;
}

function InviteDialog({ clients, onClose, onInvited }: { clients: ReachedClient[]; onClose: () => void; onInvited: () => void }) {
  const [email, setEmail] = useState("");
  const [firstName, setFirstName] = useState("");
  const [lastName, setLastName] = useState("");
  const [roleId, setRoleId] = useState(2);
  const [clientId, setClientId] = useState(clients[0]?.clientId ?? 0);
  const [busy, setBusy] = useState(false);
  const [errors, setErrors] = useState<Record<string, string>>({});
  const target = clients.find((c) => c.clientId === clientId);

  async function submit(e: FormEvent) {
    e.preventDefault();
    setBusy(true);
    setErrors({});
    try {
      const body = { email: email.trim(), roleId: roleId as 1 | 2 | 3, ...(firstName.trim() ? { firstName: firstName.trim() } : {}), ...(lastName.trim() ? { lastName: lastName.trim() } : {}) };
      await unwrap(api.POST("/api/v1/Users", { body, headers: headersFor(clientId) }));
      toast.success("Invitation sent", `${body.email} was invited to ${target?.clientName} as ${ROLES[roleId]}.`);
      onInvited();
      onClose();
    } catch (err) {
      handleError(err, {
        status: {
          400: (x) => setErrors(fieldErrors(x, "email")),
          409: (x) => setErrors({ email: x.message }),
        },
      });
    } finally {
      setBusy(false);
    }
  }

  return (
    <FormModal id="invite-form" title="Invite member" submitLabel="Send invite" busy={busy} onSubmit={(e) => void submit(e)} onClose={onClose}>
      <div className="space-y-4">
        <p className="text-ink-600">New people get an email with a link to set their password (valid 7 days); people who already have an account get access at once.</p>
        <Field id="invite-email" label="Email" error={errors.email}>
          <Input id="invite-email" type="email" required autoComplete="off" value={email} onChange={(e) => setEmail(e.target.value)} />
        </Field>
        <div className="grid gap-4 sm:grid-cols-2">
          <Field id="invite-first" label="First name (optional)" error={errors.firstName}>
            <Input id="invite-first" value={firstName} onChange={(e) => setFirstName(e.target.value)} />
          </Field>
          <Field id="invite-last" label="Last name (optional)" error={errors.lastName}>
            <Input id="invite-last" value={lastName} onChange={(e) => setLastName(e.target.value)} />
          </Field>
        </div>
        <div className="grid gap-4 sm:grid-cols-2">
          <Field id="invite-role" label="Role" error={errors.roleId} hint="Admins manage members and credits; Users create and run tests; Viewers read results.">
            <Select id="invite-role" value={roleId} onChange={(e) => setRoleId(Number(e.target.value))}>
              {Object.entries(ROLES).map(([id, name]) => (
                <option key={id} value={id}>
                  {name}
                </option>
              ))}
            </Select>
          </Field>
          {clients.length > 1 ? (
            <Field id="invite-client" label="Client">
              <Select id="invite-client" value={clientId} onChange={(e) => setClientId(Number(e.target.value))}>
                {clients.map((c) => (
                  <option key={c.clientId} value={c.clientId}>
                    {c.clientName} ({c.tier})
                  </option>
                ))}
              </Select>
            </Field>
          ) : null}
        </div>
      </div>
    </FormModal>
  );
}

function InheritedMembers({ teamId, byUser }: { teamId: number; byUser: Map<number, LoginStatus> }) {
  const { data, isLoading } = useApi(["Teams/ExtrapolatedUsers", teamId], () => api.GET("/api/v1/Teams({key})/ExtrapolatedUsers", { params: { path: { key: String(teamId) } } }));
  const rows = (data?.value ?? []).filter((u) => u.isInherited);
  if (isLoading)
    return (
      <div className="space-y-2" role="status" aria-label="Loading members">
        <Skeletons count={3} className="h-14" />
      </div>
    );
  if (!rows.length) return <EmptyState title="Nobody reaches this team from above">Admins of the org or enterprise who are not team members would be listed here.</EmptyState>;
  return (
    <Table head={["Member", "Role", "Granted by", "Status", "Last login"]} caption="Members with access from above">
      {rows.map((u) => {
        const s = byUser.get(u.userId);
        const status: Status = u.disabledAt ? "disabled" : (s?.status ?? "confirmed");
        return (
          <tr key={u.userId}>
            <td className="px-4 py-3">
              <div className="font-medium text-ink-900">{personName(u)}</div>
              <div className="text-xs text-ink-600">{u.email}</div>
            </td>
            <td className="px-4 py-3 text-ink-700">{u.roleName}</td>
            <td className="px-4 py-3 text-ink-700">
              {u.sourceClientName} <span className="text-xs text-ink-500">{u.sourceTier}</span>
            </td>
            <td className="px-4 py-3">
              <Badge tone={STATUS_TONE[status]}>{STATUS_LABEL[status]}</Badge>
            </td>
            <td className="px-4 py-3 whitespace-nowrap text-ink-600">{s?.lastLoginAt ? formatDateTime(s.lastLoginAt) : "Never"}</td>
          </tr>
        );
      })}
    </Table>
  );
}
