// Password hashing behind an interface: the Bun adapter (passwords-bun.ts) uses Bun.password
// (argon2id); the Hono app itself stays Web-standard.
export interface PasswordHasher {
  hash(plain: string): Promise<string>;
  verify(plain: string, hash: string): Promise<boolean>;
}

/** Minimum password policy (ASVS 2.1: at least 12 characters would be stricter; we ask 10). */
export const MIN_PASSWORD_LENGTH = 10;
export const MAX_PASSWORD_LENGTH = 128;

const dummies = new WeakMap<PasswordHasher, Promise<string>>();
/**
 * A hash of a random string made by this hasher, once per hasher: an unknown email is verified
 * against it, so it costs what checking a real account's password costs (the hasher's own cost).
 */
export function dummyHash(passwords: PasswordHasher): Promise<string> {
  let h = dummies.get(passwords);
  if (!h) {
    h = passwords.hash(crypto.randomUUID());
    dummies.set(passwords, h);
  }
  return h;
}
