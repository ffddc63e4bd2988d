// Who is signed in and what they may do: Users/Me, MyPolicies (SPEC 6), the current client.
import { atom, useAtomValue } from "jotai";
import { useEffect, useState } from "react";
import { api, unwrap, useApi } from "../api/hooks";
import type { Schemas } from "../api/client";
import { STORAGE } from "../lib/constants";
import { getToken, onTokenChange } from "./session";

export type Policy = "IdeallyAdmin" | "TeamUser" | "TeamAdmin" | "OrgAdmin" | "EnterpriseAdmin";
export type Policies = Schemas["UserPolicies"];
export type Me = Schemas["UserMe"];

export function useSignedIn(): boolean {
  const [signedIn, set] = useState(() => !!getToken());
  useEffect(() => onTokenChange((t) => set(!!t)), []);
  return signedIn;
}

export function useMe(clientId?: number | null) {
  return useApi<Me>(["Users/Me", clientId ?? null], () => api.GET("/api/v1/Users/Me", { headers: clientId ? { clientId: String(clientId) } : {} }));
}

export function usePolicies() {
  return useApi<Policies>(["Users/MyPolicies"], () => api.GET("/api/v1/Users/MyPolicies"));
}

/** Does the user hold the policy on the client (IdeallyAdmin is held everywhere by staff)? */
export function hasPolicy(p: Policies | undefined, clientId: number | null, policy: Policy): boolean {
  if (!p) return false;
  // Provider staff pass every gate; the API still decides each call.
  if (p.isIdeallyAdmin) return true;
  const row = p.value.find((c) => c.clientId === clientId);
  return !!row && (row.policies as string[]).includes(policy);
}

export function storedClientId(): number | null {
  const v = localStorage.getItem(STORAGE.clientId);
  return v && /^\d+$/.test(v) ? Number(v) : null;
}

export function storeClientId(id: number) {
  localStorage.setItem(STORAGE.clientId, String(id));
}

/** SPEC 7: the default client is the first client by name. */
export async function defaultClientId(): Promise<number | null> {
  // No client header (an empty one): every client the user reaches, not the URL's.
  const r = (await unwrap(api.GET("/api/v1/Clients", { params: { query: { $select: "id", $orderby: "name", $top: 1 } }, headers: { clientId: "" } }))) as { value: { id: number }[] };
  return r.value[0]?.id ?? null;
}

/** The tier landing of SPEC 2: Team tier goes home, others to their management area. */
export function tierHome(client: { id: number; tier: string }): string {
  return client.tier === "Team" ? `/${client.id}/home` : `/${client.id}/manage-${client.tier.toLowerCase()}`;
}

/** The local beta-enabled flag, toggled through local storage (SPEC 6). */
export const betaEnabledAtom = atom(typeof localStorage !== "undefined" && localStorage.getItem(STORAGE.betaEnabled) === "true");
export function useBetaEnabled() {
  return useAtomValue(betaEnabledAtom);
}
