// admin/users: every user across clients; search; login status (password and SSO logins, last
// sign-in); enable/disable; create and update as super admin (SuperAdminUserCreate/Update).
import { useState } from "react";
import { Modal } from "../../components/Dialog";
import { Badge, Button, Field, Input, PageHeader, Select } from "../../components/ui";
import { odataString } from "../../features/projects";
import { ROLES } from "../../lib/constants";
import { useSearchState } from "../../lib/search";
import { useMe } from "../../state/app";
import { api, type Row } from "../../api/client";
import { AuditLog, DataTable, Pager, SearchBox, Td, act, fmtDate, keyPath, oneOf, useSet } from "./shared";

const PAGE = 25;
const USER_ROLES: Record<number, string> = { 1: "User", 2: "Staff", 3: "Super admin" };

type Membership = Row<"UserAndClients", "clientId" | "roleId", { client: Row<"Clients", "name"> | null }>;
type Login = Row<"CognitoUsers", "id" | "username" | "status" | "lastLoginAt", { cognitoIdp: Row<"CognitoIdps", "providerName"> | null }>;
type UserRow = Row<
  "Users",
  "id" | "email" | "firstName" | "lastName" | "isStaff" | "roleId" | "defaultClientId" | "lastLoginAt" | "disabledAt" | "invitedAt" | "onboardedAt",
  {
    userAndClients: Membership[];
    cognitoUsers: Login[];
  }
>;

function loginStatus(u: UserRow): { label: string; tone: "green" | "amber" | "red" | "neutral" } {
  if (u.disabledAt) return { label: "Disabled", tone: "red" };
  if (!u.cognitoUsers.length) return { label: "No login", tone: "neutral" };
  if (u.cognitoUsers.some((c) => c.status === "FORCE_CHANGE_PASSWORD")) return { label: "Must change password", tone: "amber" };
  if (!u.lastLoginAt) return { label: "Never signed in", tone: "amber" };
  return { label: "Active", tone: "green" };
}

export default function Users() {
  const [search, setSearch] = useSearchState();
  const q = String(search.q ?? "");
  const page = Math.max(0, Number(search.page ?? 0) || 0);
  const [editing, setEditing] = useState<UserRow | "new" | null>(null);
  const [audit, setAudit] = useState(0);
  const { data: me } = useMe(null);
  const s = odataString(q.toLowerCase());
  const query = {
    $select: "id,email,firstName,lastName,isStaff,roleId,defaultClientId,lastLoginAt,disabledAt,invitedAt,onboardedAt",
    $expand: "userAndClients($select=clientId,roleId;$expand=client($select=name)),cognitoUsers($select=id,username,status,lastLoginAt;$expand=cognitoIdp($select=providerName))",
    $orderby: "email",
    $count: true,
    $top: PAGE,
    $skip: page * PAGE,
    ...(q ? { $filter: `contains(tolower(email),${s}) or contains(tolower(firstName),${s}) or contains(tolower(lastName),${s})` } : {}),
  };
  const { data, isLoading, mutate } = useSet<UserRow>("Users", query);
  const done = () => {
    void mutate();
    setAudit((n) => n + 1);
  };

  async function toggle(u: UserRow) {
    const r = await act(api.POST(`/api/v1/Users({key})/${u.disabledAt ? "Enable" : "Disable"}`, { params: keyPath(u.id) }), u.disabledAt ? "User enabled" : "User disabled", u.email);
    if (r) done();
  }

  return (
    <div>
      <PageHeader title="Users" subtitle="Everyone with a login, across all clients" actions={me?.isSuperAdmin ? <Button onClick={() => setEditing("new")}>New user</Button> : undefined} />
      <div className="mb-4 flex gap-3">
        <SearchBox id="user-search" label="Search by name or email" value={q} onChange={(v) => setSearch({ q: v, page: null })} />
      </div>
      <DataTable
        caption="Users"
        head={["User", "Role", "Clients", "Login status", ""]}
        rows={data?.value}
        isLoading={isLoading}
        empty={q ? "No users match" : "No users yet"}
        render={(u) => {
          const st = loginStatus(u);
          return (
            <tr key={u.id}>
              <Td className="min-w-48">
                <p className="font-medium text-ink-900">{[u.firstName, u.lastName].filter(Boolean).join(" ") || "—"}</p>
                <p className="text-xs text-ink-500">{u.email}</p>
              </Td>
              <Td>{u.isStaff ? <Badge tone="brand">{USER_ROLES[u.roleId]}</Badge> : USER_ROLES[u.roleId]}</Td>
              <Td className="min-w-48">{u.userAndClients.map((m) => `${m.client?.name ?? m.clientId} (${ROLES[m.roleId]})`).join(", ") || "—"}</Td>
              <Td>
                <Badge tone={st.tone}>{st.label}</Badge>
                <p className="mt-1 text-xs text-ink-500">{u.cognitoUsers.map((c) => c.cognitoIdp?.providerName ?? "Password").join(", ")}</p>
                {u.lastLoginAt ? <p className="text-xs whitespace-nowrap text-ink-500">Last sign-in {fmtDate(u.lastLoginAt)}</p> : null}
              </Td>
              <Td className="text-right whitespace-nowrap">
                <div className="flex justify-end gap-2">
                  <Button size="sm" variant="secondary" onClick={() => void toggle(u)} aria-label={`${u.disabledAt ? "Enable" : "Disable"} ${u.email}`}>
                    {u.disabledAt ? "Enable" : "Disable"}
                  </Button>
                  {me?.isSuperAdmin ? (
                    <Button size="sm" variant="ghost" onClick={() => setEditing(u)} aria-label={`Edit ${u.email}`}>
                      Edit
                    </Button>
                  ) : null}
                </div>
              </Td>
            </tr>
          );
        }}
      />
      <Pager page={page} pageSize={PAGE} total={data?.["@odata.count"] ?? 0} onPage={(p) => setSearch({ page: p || null })} />
      {editing ? <UserDialog user={editing === "new" ? null : editing} onClose={() => setEditing(null)} onSaved={done} /> : null}
      <AuditLog filter="entityType eq 'User'" title="User changes" refreshKey={audit} />
    </div>
  );
}

type Draft = { email: string; firstName: string; lastName: string; roleId: number; defaultClientId: string; memberships: string };

/** Memberships as `clientId:role` pairs, e.g. `3:Admin, 5:User`. */
const ROLE_IDS = [1, 2, 3] as const;
type RoleId = (typeof ROLE_IDS)[number];

function parseMemberships(s: string): { clientId: number; roleId: RoleId }[] | string {
  const byName = Object.fromEntries(Object.entries(ROLES).map(([id, n]) => [n.toLowerCase(), Number(id)]));
  const out: { clientId: number; roleId: RoleId }[] = [];
  for (const part of s
    .split(",")
    .map((p) => p.trim())
    .filter(Boolean)) {
    const [c, r] = part.split(":").map((x) => x.trim());
    const roleId = oneOf(ROLE_IDS, byName[(r ?? "").toLowerCase()] ?? r);
    if (!/^\d+$/.test(c ?? "") || !roleId) return `"${part}" is not client:role (role Admin, User or Viewer)`;
    out.push({ clientId: Number(c), roleId });
  }
  return out;
}

function UserDialog({ user, onClose, onSaved }: { user: UserRow | null; onClose: () => void; onSaved: () => void }) {
  const [d, setD] = useState<Draft>({
    email: user?.email ?? "",
    firstName: user?.firstName ?? "",
    lastName: user?.lastName ?? "",
    roleId: user?.roleId ?? 1,
    defaultClientId: user?.defaultClientId ? String(user.defaultClientId) : "",
    memberships: user?.userAndClients.map((m) => `${m.clientId}:${ROLES[m.roleId]}`).join(", ") ?? "",
  });
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string>();
  const [password, setPassword] = useState<string>();
  const set = (k: keyof Draft) => (e: { target: { value: string } }) => setD({ ...d, [k]: k === "roleId" ? Number(e.target.value) : e.target.value });

  async function save() {
    const memberships = parseMemberships(d.memberships);
    if (typeof memberships === "string") return setError(memberships);
    setBusy(true);
    const body = {
      email: d.email.trim(),
      firstName: d.firstName.trim() || null,
      lastName: d.lastName.trim() || null,
      isStaff: d.roleId > 1,
      roleId: oneOf(ROLE_IDS, d.roleId),
      defaultClientId: d.defaultClientId ? Number(d.defaultClientId) : null,
      memberships,
    };
    const r = await (user
      ? act(api.POST("/api/v1/Users({key})/SuperAdminUserUpdate", { params: keyPath(user.id), body }), "User updated", body.email)
      : act(api.POST("/api/v1/Users/SuperAdminUserCreate", { body }), "User created", body.email));
    setBusy(false);
    if (!r) return;
    onSaved();
    if (r.temporaryPassword) setPassword(r.temporaryPassword);
    else onClose();
  }

  if (password) {
    return (
      <Modal open onClose={onClose} title="Temporary password" footer={<Button onClick={onClose}>Done</Button>}>
        <p>Give this temporary password to the user; they choose their own at first sign-in. It is shown once.</p>
        <p className="mt-3 rounded-lg bg-ink-50 p-3 font-mono text-sm break-all">
          <span className="sr-only">Temporary password: </span>
          <code>{password}</code>
        </p>
      </Modal>
    );
  }
  return (
    <Modal
      open
      onClose={onClose}
      title={user ? `Edit ${user.email}` : "New user"}
      footer={
        <>
          <Button variant="secondary" onClick={onClose}>
            Cancel
          </Button>
          <Button busy={busy} onClick={() => void save()} disabled={!d.email.trim()}>
            {user ? "Save" : "Create user"}
          </Button>
        </>
      }
    >
      <div className="space-y-4">
        <Field id="u-email" label="Email">
          <Input id="u-email" type="email" value={d.email} onChange={set("email")} />
        </Field>
        <div className="grid gap-4 sm:grid-cols-2">
          <Field id="u-first" label="First name">
            <Input id="u-first" value={d.firstName} onChange={set("firstName")} />
          </Field>
          <Field id="u-last" label="Last name">
            <Input id="u-last" value={d.lastName} onChange={set("lastName")} />
          </Field>
        </div>
        <div className="grid gap-4 sm:grid-cols-2">
          <Field id="u-role" label="User role">
            <Select id="u-role" value={d.roleId} onChange={set("roleId")}>
              {Object.entries(USER_ROLES).map(([id, n]) => (
                <option key={id} value={id}>
                  {n}
                </option>
              ))}
            </Select>
          </Field>
          <Field id="u-default" label="Default client id">
            <Input id="u-default" inputMode="numeric" value={d.defaultClientId} onChange={set("defaultClientId")} />
          </Field>
        </div>
        <Field id="u-members" label="Memberships" hint="client id:role pairs, e.g. 3:Admin, 5:Viewer (replaces all)" error={error}>
          <Input id="u-members" value={d.memberships} onChange={set("memberships")} />
        </Field>
      </div>
    </Modal>
  );
}
