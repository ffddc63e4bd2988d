// Bun adapter: argon2id through Bun.password.
import type { PasswordHasher } from "./passwords.ts";

export const bunPasswords: PasswordHasher = {
  hash: (plain) => Bun.password.hash(plain, { algorithm: "argon2id" }),
  verify: async (plain, hash) => {
    try {
      return await Bun.password.verify(plain, hash);
    } catch {
      return false; // a malformed stored hash never signs anyone in
    }
  },
};
