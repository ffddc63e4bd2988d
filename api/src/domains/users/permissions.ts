// The permission vocabulary (SPEC 6 leaves permissions per role open; docs/decisions.md) and the
// client policies of MyPolicies. Pure: derived from the caller's role on a client, the client's
// tier and whether the caller is provider staff. The access rules of the routes
// (access/policy.ts) are what the server enforces; this vocabulary tells the web app and the CLI
// what to offer, and says the same thing in finer words.

/** 1 Admin, 2 User, 3 Viewer; 0 staff without a membership; null no role on the client. */
export type ClientRole = 0 | 1 | 2 | 3 | null;

interface PermissionDef {
  /** The least privileged client role that has it (3 Viewer .. 1 Admin); "staff" / "superAdmin" for admin.*. */
  grantedTo: 1 | 2 | 3 | "staff" | "superAdmin";
  description: string;
}

export const PERMISSIONS = {
  "client.view": { grantedTo: 3, description: "See the client, its teams and their settings" },
  "projects.view": { grantedTo: 3, description: "See the client's projects and their setup" },
  "results.view": { grantedTo: 3, description: "Read results, benchmarks, AI summaries and verbatims" },
  "results.export": { grantedTo: 3, description: "Export results (CSV, Excel, PowerPoint)" },
  "segments.view": { grantedTo: 3, description: "Use the team's saved filter sets" },
  "projects.create": { grantedTo: 2, description: "Create, clone and edit projects (drafts)" },
  "projects.submit": { grantedTo: 2, description: "Submit a project for fielding (spends credits)" },
  "projects.share": { grantedTo: 2, description: "Share projects and manage their watchers" },
  "projects.delete": { grantedTo: 2, description: "Move projects to the trash and restore them" },
  "segments.manage": { grantedTo: 2, description: "Save, change and delete the team's filter sets" },
  "chat.use": { grantedTo: 2, description: "Ask the AI chat about results" },
  "credits.view": { grantedTo: 2, description: "See the credit balance and what a project costs" },
  "members.view": { grantedTo: 1, description: "See the members, their roles and login status" },
  "members.invite": { grantedTo: 1, description: "Invite people to the client" },
  "members.manage": { grantedTo: 1, description: "Change, disable, enable and remove members" },
  "credits.manage": { grantedTo: 1, description: "See transactions and transfer credits between clients" },
  "client.manage": { grantedTo: 1, description: "Rename the client, create teams and orgs beneath it, security settings" },
  "admin.access": { grantedTo: "staff", description: "The /admin area (IdeallyAdmin)" },
  "admin.users": { grantedTo: "staff", description: "Users of every client: enable, disable, login identities" },
  "admin.clients": { grantedTo: "staff", description: "Clients: create enterprises, credits, trials, the client tree" },
  "admin.features": { grantedTo: "staff", description: "Feature flags: global, Ideally-only and per client" },
  "admin.projects": { grantedTo: "staff", description: "Approve and decline projects, project groups, prompts, surveys" },
  "admin.superAdmin": { grantedTo: "superAdmin", description: "Super-admin actions: SuperApprove, SuperAdminUpdate, SuperAdminUserCreate/Update" },
} as const satisfies Record<string, PermissionDef>;

export type Permission = keyof typeof PERMISSIONS;
export const PERMISSION_NAMES = Object.keys(PERMISSIONS) as [Permission, ...Permission[]];

/**
 * The caller's permissions on a client. Staff hold every client permission on any client (they
 * pass every member rule) and the admin.* ones; a super admin also admin.superAdmin. Without a
 * client (role null) a non-staff caller holds none.
 */
export function permissionsFor(role: ClientRole, staff: { isStaff: boolean; isSuperAdmin: boolean }): Permission[] {
  return PERMISSION_NAMES.filter((name) => {
    const g: PermissionDef["grantedTo"] = PERMISSIONS[name].grantedTo;
    if (g === "superAdmin") return staff.isStaff && staff.isSuperAdmin;
    if (g === "staff") return staff.isStaff;
    if (staff.isStaff && role !== null) return true;
    return role !== null && role !== 0 && role <= g;
  });
}

export const POLICY_NAMES = ["IdeallyAdmin", "TeamUser", "TeamAdmin", "OrgAdmin", "EnterpriseAdmin"] as const;
export type Policy = (typeof POLICY_NAMES)[number];
export type Tier = "Enterprise" | "Org" | "Team";

/**
 * SPEC 6 policies on one client, from the caller's effective role there (roles inherit down the
 * tree, so an enterprise Admin is OrgAdmin of its orgs and TeamAdmin of its teams):
 * IdeallyAdmin: provider staff. TeamUser: User or Admin on a Team. TeamAdmin: Admin on a Team.
 * OrgAdmin: Admin on an Org. EnterpriseAdmin: Admin on an Enterprise.
 */
export function policiesFor(tier: Tier, role: ClientRole, isStaff: boolean): Policy[] {
  const out: Policy[] = [];
  if (isStaff) out.push("IdeallyAdmin");
  if (tier === "Team" && (role === 1 || role === 2)) out.push("TeamUser");
  if (tier === "Team" && role === 1) out.push("TeamAdmin");
  if (tier === "Org" && role === 1) out.push("OrgAdmin");
  if (tier === "Enterprise" && role === 1) out.push("EnterpriseAdmin");
  return out;
}

export const CLIENT_ROLE_NAMES: Record<number, string> = { 1: "Admin", 2: "User", 3: "Viewer" };
