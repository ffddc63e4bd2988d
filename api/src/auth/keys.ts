// The access-token signing key: AUTH_SECRET when configured, otherwise a random secret made once
// per database (auth_secrets), so every API process of one deployment signs and verifies alike.
import type { Db } from "../db/client.ts";
import { hmacKey } from "./jwt.ts";

export async function loadSigningKey(db: Db, configured: string | undefined): Promise<CryptoKey> {
  if (configured) return hmacKey(configured);
  const bytes = crypto.getRandomValues(new Uint8Array(48));
  const fresh = btoa(String.fromCharCode(...bytes));
  await db`insert into auth_secrets (name, value) values ('jwt', ${fresh}) on conflict (name) do nothing`;
  const [row] = await db<{ value: string }[]>`select value from auth_secrets where name = 'jwt'`;
  return hmacKey(row!.value);
}
