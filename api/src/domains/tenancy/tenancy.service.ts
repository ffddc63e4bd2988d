// The client tree: creating Enterprises, Orgs and Teams (the client node and its tier row in one
// transaction), renaming Orgs and Teams, and who reaches a team (ExtrapolatedUsers).
import type { Db } from "../../db/client.ts";
import { enterTenant } from "../../access/policy.ts";
import type { RequestCtx } from "../../access/principal.ts";
import { ApiError } from "../../errors.ts";
import * as q from "./tenancy.sql.ts";

export interface CreateClientInput {
  name: string;
  /** Orgs and Teams: the client it sits under; defaults to the request's client. */
  parentId?: number | null;
  industry?: string | null;
  hsCompanyId?: string | null;
  ssoRequired?: boolean;
  allowedEmailDomains?: string[];
  autoProjectWatch?: boolean;
  defaultRegionId?: number;
}

/** A new client: its node, its clientId (= id) and its tier row's fields (schemas EnterpriseCreated, OrgCreated, TeamCreated). */
export type CreatedClient = q.ClientNode & { clientId: number } & TierFields<q.TierSettings>;
/** A tier and its settings side by side, each tier apart. */
type TierFields<T> = T extends { tier: infer K; settings: infer S } ? { tier: K } & S : never;

/** PostgreSQL's refusals of a new client, in the API's words. */
function mapCreateError(tier: q.Tier, parentId: number | null, e: unknown): never {
  const code = (e as { code?: string }).code;
  const detail = (e as { detail?: string }).detail;
  const message = (e as { message?: string }).message;
  if (code === "42501") {
    throw new ApiError("Forbidden", tier === "Enterprise" ? "Only Ideally staff create enterprises" : `Only staff or an Admin of client ${parentId} may create a ${tier} under it`);
  }
  if (code === "23503") throw new ApiError("ValidationError", "The parent client, industry or region does not exist", detail);
  // The tree's shape (clients_check_tree): a Team under an Org or Enterprise, an Org under an Enterprise.
  if (code === "23514") throw new ApiError("ValidationError", message ?? "The client breaks a rule of the client tree", detail);
  throw e;
}

/**
 * POST Enterprises / Orgs / Teams. The route's rule is staff for Enterprises and member:Admin (of
 * the request's client) for Orgs and Teams; the parent, which defaults to the request's client, is
 * then checked in the database: the caller must be staff or an Admin of it (a membership of the
 * parent or of a client above it). Staff may create parentless Orgs and Teams (like Globex).
 */
export async function createClient(db: Db, ctx: RequestCtx, input: CreateClientInput & { tier: q.Tier }): Promise<CreatedClient> {
  const parentId = input.tier === "Enterprise" ? null : (input.parentId ?? ctx.clientId);
  const settings: q.TierSettingsInput =
    input.tier === "Team" ? { autoProjectWatch: input.autoProjectWatch, defaultRegionId: input.defaultRegionId } : { ssoRequired: input.ssoRequired, allowedEmailDomains: input.allowedEmailDomains };
  const row = await enterTenant(db, ctx, (tx) =>
    q
      .createClient(tx, {
        tier: input.tier,
        name: input.name,
        parentId,
        industry: input.industry ?? null,
        hsCompanyId: input.hsCompanyId ?? null,
        settings: JSON.parse(JSON.stringify(settings)) as q.TierSettingsInput,
      })
      .catch((e) => mapCreateError(input.tier, parentId, e)),
  );
  // Apart by tier, so that each answer keeps its tier's fields (the destructuring would lose the link).
  if (row.tier === "Team") {
    const { settings: tierFields, ...client } = row;
    return { ...client, clientId: row.id, ...tierFields };
  }
  const { settings: tierFields, ...client } = row;
  return { ...client, clientId: row.id, ...tierFields };
}

export interface Renamed extends q.ClientRow {
  tier: "Org" | "Team";
  /** false: the name was already this one, nothing was written. */
  renamed: boolean;
}

/**
 * Orgs / Teams Rename. The client must be the request's client, or beneath it with requestscope
 * descendants (the route's member:Admin rule holds there: roles inherit down). Skipped when the
 * name is unchanged.
 */
export async function rename(db: Db, ctx: RequestCtx, input: { tier: "Org" | "Team"; id: number; name: string }): Promise<Renamed> {
  return enterTenant(db, ctx, async (tx) => {
    const cur = await q.clientForUpdate(tx, input.id);
    if (!cur || cur.tier !== input.tier) throw new ApiError("NotFound", `${input.tier}s(${input.id}) not found`);
    // tier: input.tier, the row's own (checked above), now typed as one of the two.
    if (cur.name === input.name) return { ...cur, tier: input.tier, renamed: false };
    return { ...(await q.rename(tx, input.id, input.name)), tier: input.tier, renamed: true };
  });
}

/** Teams ExtrapolatedUsers: every user with access to the team, direct or inherited. */
export async function extrapolatedUsers(db: Db, ctx: RequestCtx, input: { teamId: number }): Promise<{ teamId: number; value: q.ExtrapolatedUserRow[] }> {
  return enterTenant(db, ctx, async (tx) => {
    const team = await q.visibleClient(tx, input.teamId);
    if (team?.tier !== "Team") throw new ApiError("NotFound", `Teams(${input.teamId}) not found`);
    return { teamId: team.id, value: await q.members(tx, team.id) };
  });
}
