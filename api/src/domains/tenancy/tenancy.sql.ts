// SQL of the client tree: creating nodes (through app_create_client, migration 0012: a new client
// is outside the request's row-level-security scope until the next request), renaming them, and who
// reaches a team. Runs in the caller's tenant transaction.
import type { Tx } from "../../db/client.ts";

export type Tier = "Enterprise" | "Org" | "Team";

/** The tier row's fields app_create_client answers in its settings, by tier (migration 0012). */
export type TierSettings =
  | { tier: "Enterprise" | "Org"; settings: { ssoRequired: boolean; allowedEmailDomains: string[] } }
  | { tier: "Team"; settings: { autoProjectWatch: boolean; defaultRegionId: number } };

/** What app_create_client is given for the tier row (absent: the database's default). */
export type TierSettingsInput = { ssoRequired?: boolean; allowedEmailDomains?: string[] } | { autoProjectWatch?: boolean; defaultRegionId?: number };

export interface ClientNode {
  id: number;
  name: string;
  parentId: number | null;
  industry: string | null;
  hsCompanyId: string | null;
  createdAt: Date;
}

export type CreatedClientRow = ClientNode & TierSettings;

export async function createClient(
  tx: Tx,
  c: { tier: Tier; name: string; parentId: number | null; industry: string | null; hsCompanyId: string | null; settings: TierSettingsInput },
): Promise<CreatedClientRow> {
  const [r] = await tx<CreatedClientRow[]>`
    select id, name, tier, parent_id as "parentId", industry, hs_company_id as "hsCompanyId", settings, created_at as "createdAt"
    from app_create_client(${c.tier}, ${c.name}, ${c.parentId}::int, ${c.industry}::text, ${c.hsCompanyId}::text, ${tx.json(c.settings)}::jsonb)`;
  return r!;
}

export interface ClientRow {
  id: number;
  name: string;
  tier: Tier;
  parentId: number | null;
  updatedAt: Date | null;
}

/** A client the request may see (row-level security), locked for a change. */
export async function clientForUpdate(tx: Tx, id: number): Promise<ClientRow | undefined> {
  const [r] = await tx<ClientRow[]>`
    select id, name, tier, parent_id as "parentId", updated_at as "updatedAt" from clients where id = ${id} for update`;
  return r;
}

export async function visibleClient(tx: Tx, id: number): Promise<ClientRow | undefined> {
  const [r] = await tx<ClientRow[]>`
    select id, name, tier, parent_id as "parentId", updated_at as "updatedAt" from clients where id = ${id}`;
  return r;
}

export async function rename(tx: Tx, id: number, name: string): Promise<ClientRow> {
  const [r] = await tx<ClientRow[]>`
    update clients set name = ${name} where id = ${id}
    returning id, name, tier, parent_id as "parentId", updated_at as "updatedAt"`;
  return r!;
}

export interface ExtrapolatedUserRow {
  userId: number;
  email: string;
  firstName: string | null;
  lastName: string | null;
  roleId: number;
  roleName: string;
  isInherited: boolean;
  hasDirectMembership: boolean;
  sourceClientId: number;
  sourceClientName: string;
  sourceTier: Tier;
  sourceUserAndClientId: number;
  disabledAt: Date | null;
}

/** Everyone reaching the client, directly or through a membership above it, with the role that wins. */
export async function members(tx: Tx, clientId: number): Promise<ExtrapolatedUserRow[]> {
  return tx<ExtrapolatedUserRow[]>`
    select m.user_id as "userId", u.email, u.first_name as "firstName", u.last_name as "lastName",
           m.role_id as "roleId", r.role_name as "roleName", m.is_inherited as "isInherited",
           m.has_direct as "hasDirectMembership", m.source_client_id as "sourceClientId",
           m.source_client_name as "sourceClientName", m.source_tier as "sourceTier",
           m.source_user_and_client_id as "sourceUserAndClientId", u.disabled_at as "disabledAt"
    from app_client_members(${clientId}) m
    join users u on u.id = m.user_id
    join user_client_roles r on r.id = m.role_id
    order by m.role_id, lower(u.email)`;
}
