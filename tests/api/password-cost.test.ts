// Password hashes' cost (docs/security.md "argon2id at 64 MiB and 2 passes"; docs/testing.md "Cheap
// password hashes in tests"): production makes new hashes at m=65536, t=2, p=1; a test run's
// PASSWORD_HASH_COST=test makes them at m=1024, t=1, and is refused with NODE_ENV=production.
// Verifying reads the cost from the stored hash, whatever the configuration. The expected costs
// are the docs' numbers, read back from the hashes' own encoded parameters.
import { describe, expect, test } from "bun:test";
import { resolve } from "node:path";
import { readConfig } from "../../api/src/config.ts";
import { argon2idPasswords } from "../../api/src/auth/passwords-bun.ts";
import { dummyHash } from "../../api/src/auth/passwords.ts";

const ROOT = resolve(import.meta.dir, "../..");

/** m, t and p of an encoded argon2id hash ($argon2id$v=19$m=...,t=...,p=...$salt$hash). */
function params(hash: string): { m: number; t: number; p: number } {
  const m = /^\$argon2id\$v=19\$m=(\d+),t=(\d+),p=(\d+)\$/.exec(hash);
  if (!m) throw new Error(`not an argon2id hash: ${hash}`);
  return { m: Number(m[1]), t: Number(m[2]), p: Number(m[3]) };
}

// "Password123!" at each cost: the fixtures' hash (tests/helpers/fixtures.sql) and the strong one
// they carried before, made once by Bun.password.hash.
const CHEAP = "$argon2id$v=19$m=1024,t=1,p=1$sR3gLtxMjBaFjFg6wMc5pmtWhHwZF5gJ+LQUZPrG1OY$3S2EV8ufT+2MuAvkO1YifUYxqB/I8cfBVhX9vJSED20";
const STRONG = "$argon2id$v=19$m=65536,t=2,p=1$xfeEOQyXujo4M6Od3ictUo5EmeGWnD0DvG0VQht7qA8$ag3oaMOJNiSvl77jefWJco8nJ/oftDYTP3Z3uza02pE";

describe("the cost of new hashes", () => {
  test("production: m=65536, t=2, p=1", async () => {
    const cfg = readConfig({ NODE_ENV: "production" });
    expect(params(await argon2idPasswords(cfg.passwordCost).hash("correct horse battery"))).toEqual({ m: 65536, t: 2, p: 1 });
  });

  test("development without the variable (or with it empty): production's cost too", async () => {
    for (const env of [{}, { PASSWORD_HASH_COST: "" }]) {
      expect(params(await argon2idPasswords(readConfig(env).passwordCost).hash("correct horse battery"))).toEqual({ m: 65536, t: 2, p: 1 });
    }
  });

  test("PASSWORD_HASH_COST=test outside production: m=1024, t=1, p=1", async () => {
    for (const env of [{ PASSWORD_HASH_COST: "test" }, { PASSWORD_HASH_COST: "test", NODE_ENV: "development" }, { PASSWORD_HASH_COST: "test", NODE_ENV: "test" }]) {
      expect(params(await argon2idPasswords(readConfig(env).passwordCost).hash("correct horse battery"))).toEqual({ m: 1024, t: 1, p: 1 });
    }
  });

  test("PASSWORD_HASH_COST=test with NODE_ENV=production is refused, and any other value everywhere", () => {
    expect(() => readConfig({ NODE_ENV: "production", PASSWORD_HASH_COST: "test" })).toThrow("PASSWORD_HASH_COST=test is for test runs only: it is refused with NODE_ENV=production");
    expect(() => readConfig({ PASSWORD_HASH_COST: "cheap" })).toThrow("PASSWORD_HASH_COST must be unset or 'test' (cheap hashes for test runs), got 'cheap'");
    expect(() => readConfig({ NODE_ENV: "production", PASSWORD_HASH_COST: "TEST" })).toThrow("PASSWORD_HASH_COST must be unset or 'test'");
  });

  test("the server does not start in production with PASSWORD_HASH_COST=test", async () => {
    const proc = Bun.spawn(["bun", "run", "api/src/server.ts"], {
      cwd: ROOT,
      env: { ...process.env, NODE_ENV: "production", PASSWORD_HASH_COST: "test", DATABASE_URL: "postgres://nobody@127.0.0.1:1/none", PORT: "1" },
      stdout: "pipe",
      stderr: "pipe",
    });
    expect(await proc.exited).toBe(1);
    expect(await new Response(proc.stderr).text()).toContain("PASSWORD_HASH_COST=test is for test runs only: it is refused with NODE_ENV=production");
  });
});

describe("verifying reads the cost from the hash", () => {
  test("a cheap hash verifies under production's configuration, a strong one under the test's", async () => {
    const production = argon2idPasswords(readConfig({ NODE_ENV: "production" }).passwordCost);
    const cheap = argon2idPasswords(readConfig({ PASSWORD_HASH_COST: "test" }).passwordCost);
    expect(await production.verify("Password123!", CHEAP)).toBe(true);
    expect(await cheap.verify("Password123!", STRONG)).toBe(true);
    expect(await production.verify("Password123?", CHEAP)).toBe(false);
    expect(await cheap.verify("Password123?", STRONG)).toBe(false);
    expect(await cheap.verify("Password123!", "$argon2id$v=19$m=1024,t=1,p=1$not-a-hash"), "a malformed hash signs no one in").toBe(false);
  });

  test("an unknown email is checked against a dummy hash of the hasher's own cost", async () => {
    const production = argon2idPasswords(readConfig({ NODE_ENV: "production" }).passwordCost);
    const cheap = argon2idPasswords(readConfig({ PASSWORD_HASH_COST: "test" }).passwordCost);
    expect(params(await dummyHash(production))).toEqual({ m: 65536, t: 2, p: 1 });
    expect(params(await dummyHash(cheap))).toEqual({ m: 1024, t: 1, p: 1 });
    expect(await dummyHash(cheap), "made once per hasher").toBe(await dummyHash(cheap));
  });
});
