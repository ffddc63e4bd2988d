// SQL of feature flags: the switches staff turn, and the rows a flag set is resolved from.
import type { Tx } from "../../db/client.ts";

export interface FeatureFlagRow {
  id: number;
  ff: string;
  description: string | null;
  isEnabled: boolean;
  isEnabledForStaff: boolean;
  createdAt: Date;
  updatedAt: Date | null;
}

export type FlagSwitch = "global" | "staff";

/** Sets one switch of a flag; undefined when there is no such flag. */
export async function setSwitch(tx: Tx, id: number, which: FlagSwitch, on: boolean): Promise<FeatureFlagRow | undefined> {
  const [r] =
    which === "global"
      ? await tx<FeatureFlagRow[]>`
          update feature_flags set is_enabled = ${on} where id = ${id}
          returning id, ff, description, is_enabled as "isEnabled", is_enabled_for_staff as "isEnabledForStaff",
                    created_at as "createdAt", updated_at as "updatedAt"`
      : await tx<FeatureFlagRow[]>`
          update feature_flags set is_enabled_for_staff = ${on} where id = ${id}
          returning id, ff, description, is_enabled as "isEnabled", is_enabled_for_staff as "isEnabledForStaff",
                    created_at as "createdAt", updated_at as "updatedAt"`;
  return r;
}

export async function flagById(tx: Tx, id: number): Promise<FeatureFlagRow | undefined> {
  const [r] = await tx<FeatureFlagRow[]>`
    select id, ff, description, is_enabled as "isEnabled", is_enabled_for_staff as "isEnabledForStaff",
           created_at as "createdAt", updated_at as "updatedAt"
    from feature_flags where id = ${id}`;
  return r;
}

export interface FlagLayers {
  id: number;
  ff: string;
  /** feature_flags.is_enabled: on for everyone. */
  global: boolean;
  /** feature_flags.is_enabled_for_staff: on for provider staff (EnableIdeally). */
  staff: boolean;
  /** The client's ClientFeatures row, if it has one. */
  client: boolean | null;
}

/**
 * Every flag with its layers for one client (null: no client). client_features is tenant data:
 * the caller's transaction shows the client's rows only when the request may see that client.
 */
export async function flagLayers(tx: Tx, clientId: number | null): Promise<FlagLayers[]> {
  return tx<FlagLayers[]>`
    select f.id, f.ff, f.is_enabled as global, f.is_enabled_for_staff as staff, cf.is_enabled as client
    from feature_flags f
    left join client_features cf on cf.feature_flag_id = f.id and cf.client_id = ${clientId}::int
    order by f.id`;
}
