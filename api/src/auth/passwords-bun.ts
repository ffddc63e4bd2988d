// Bun adapter: argon2id through Bun.password. New hashes are made at the configured cost
// (config.ts: PRODUCTION_PASSWORD_COST unless a test run's PASSWORD_HASH_COST=test); verifying
// reads m, t and p from the stored hash itself, so an old or cheap hash checks at its own cost.
import type { PasswordHasher } from "./passwords.ts";
import { PRODUCTION_PASSWORD_COST, type PasswordCost } from "../config.ts";

export function argon2idPasswords(cost: PasswordCost): PasswordHasher {
  return {
    hash: (plain) => Bun.password.hash(plain, { algorithm: "argon2id", memoryCost: cost.memoryCost, timeCost: cost.timeCost }),
    verify: async (plain, hash) => {
      try {
        return await Bun.password.verify(plain, hash);
      } catch {
        return false; // a malformed stored hash never signs anyone in
      }
    },
  };
}

/** At production's cost, for what does not read the configuration (the contract generator). */
export const bunPasswords: PasswordHasher = argon2idPasswords(PRODUCTION_PASSWORD_COST);
