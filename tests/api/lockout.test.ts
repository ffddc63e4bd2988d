// Sign-in throttling that never locks the owner out (issue 19, finding 8). Failures are delayed per
// (account, address): 5 free in 15 minutes, then 30 s after the 5th, doubling with each further one
// (capped at 15 minutes). Across all addresses, from 20 failures in 15 minutes, the account takes one
// attempt per 5 s: slower, never shut. The owner is emailed at the 5th failure. Time is moved by
// shifting the recorded failures back, never by waiting.
import { afterAll, beforeAll, beforeEach, describe, expect, setDefaultTimeout, test } from "bun:test";

// Each failure costs a real argon2id check, at the fixtures' test cost (a few ms; production's cost
// takes most of a second, far more on a busy machine).
setDefaultTimeout(120_000);
import { createTestDb, type TestDb } from "../helpers/db.ts";
import { realApp } from "../helpers/app.ts";
import { settled } from "../../api/src/auth/after-response.ts";
import type { App } from "../../api/src/app.ts";
import { DEVICE_COOKIE } from "../../api/src/auth/device-cookie.ts";

let tdb: TestDb;
const apps = new Map<string, App>();
beforeAll(async () => {
  tdb = await createTestDb();
});
afterAll(async () => {
  await tdb.drop();
});
beforeEach(async () => {
  await tdb.db`delete from auth_attempts`;
});

async function from(ip: string): Promise<App> {
  let a = apps.get(ip);
  if (!a) {
    a = (await realApp(tdb.db, { ip })).app;
    apps.set(ip, a);
  }
  return a;
}

const EMAIL = "admin@globex.test";
const RIGHT = "Password123!";

async function signIn(ip: string, password: string, email = EMAIL, cookie?: string): Promise<{ status: number; retryAfter: number | null; device: string | null }> {
  const res = await (await from(ip)).request("/auth/Login/PasswordLogin", {
    method: "POST",
    headers: { "content-type": "application/json", ...(cookie ? { cookie } : {}) },
    body: JSON.stringify({ email, password }),
  });
  await res.text();
  const ra = res.headers.get("retry-after");
  const device =
    res.headers
      .getSetCookie()
      .find((c) => c.startsWith(`${DEVICE_COOKIE}=`))
      ?.split(";")[0] ?? null;
  return { status: res.status, retryAfter: ra === null ? null : Number(ra), device };
}

async function fail(ip: string, times: number, email = EMAIL): Promise<void> {
  for (let i = 0; i < times; i++) expect((await signIn(ip, `wrong-${i}`, email)).status, `failure ${i + 1} from ${ip}`).toBe(401);
}

/** Moves every recorded failure `seconds` into the past. */
const age = (seconds: number) => tdb.db`update auth_attempts set created_at = created_at - make_interval(secs => ${seconds})`;

describe("per account and address: progressive delay", () => {
  test("below the threshold: 4 failures leave the 5th attempt free", async () => {
    await fail("198.51.100.1", 4);
    expect((await signIn("198.51.100.1", "wrong-again")).status).toBe(401);
  });

  test("at the threshold: after the 5th failure the address waits 30 s, then 60 s after the 6th", async () => {
    await fail("198.51.100.2", 5);
    const held = await signIn("198.51.100.2", "wrong-6");
    expect(held.status).toBe(429);
    expect(held.retryAfter).toBeGreaterThan(25);
    expect(held.retryAfter).toBeLessThanOrEqual(30);
    await age(29);
    expect((await signIn("198.51.100.2", "wrong-6")).status, "29 s later: still waiting").toBe(429);
    await age(2);
    expect((await signIn("198.51.100.2", "wrong-6")).status, "31 s later: one more try").toBe(401);
    const longer = await signIn("198.51.100.2", "wrong-7");
    expect(longer.status).toBe(429);
    expect(longer.retryAfter, "the 6th failure doubles the wait").toBeGreaterThan(30);
    expect(longer.retryAfter).toBeLessThanOrEqual(60);
  });

  test("the owner's right password from another address is not held by someone else's failures", async () => {
    await fail("198.51.100.3", 5);
    expect((await signIn("198.51.100.3", RIGHT)).status, "the failing address waits, even with the right password").toBe(429);
    expect((await signIn("203.0.113.9", RIGHT)).status, "the owner elsewhere signs in").toBe(200);
  });

  test("a success clears that address's failures", async () => {
    await fail("198.51.100.4", 4);
    expect((await signIn("198.51.100.4", RIGHT)).status).toBe(200);
    await fail("198.51.100.4", 4);
    expect((await signIn("198.51.100.4", "wrong-again")).status, "counted afresh").toBe(401);
  });
});

describe("per account, across addresses: a ceiling that slows", () => {
  test("below the ceiling (19 failures) the owner signs in at once", async () => {
    for (let i = 0; i < 4; i++) await fail(`192.0.2.${10 + i}`, 4);
    await fail("192.0.2.14", 3);
    expect((await signIn("203.0.113.10", RIGHT)).status).toBe(200);
  });

  test("at the ceiling (20 failures) every address waits at most 5 s, and then gets in", async () => {
    for (let i = 0; i < 5; i++) await fail(`192.0.2.${20 + i}`, 4);
    const slowed = await signIn("203.0.113.11", RIGHT);
    expect(slowed.status).toBe(429);
    expect(slowed.retryAfter).toBeGreaterThan(0);
    expect(slowed.retryAfter).toBeLessThanOrEqual(5);
    await age(6);
    expect((await signIn("203.0.113.11", RIGHT)).status, "5 s after the last failure: in").toBe(200);
  });

  test("above the ceiling (40 failures) the wait is still at most 5 s, never a lockout", async () => {
    for (let i = 0; i < 5; i++) await fail(`192.0.2.${30 + i}`, 4);
    // Twice as many failures, as recorded: every counted row again, at the same moments.
    await tdb.db`insert into auth_attempts (key, created_at) select key, created_at from auth_attempts`;
    const slowed = await signIn("203.0.113.12", RIGHT);
    expect(slowed.status).toBe(429);
    expect(slowed.retryAfter).toBeLessThanOrEqual(5);
    await age(6);
    expect((await signIn("203.0.113.12", RIGHT)).status).toBe(200);
  });
});

describe("a device the owner signed in on before (OWASP's device cookies)", () => {
  // Issue 38: after 20 failures from rotating addresses, the owner's right password from a clean
  // address got 429 three times in five (the account's 5 s spacing). A device that signed in with
  // the right password before carries a signed cookie for that account; its attempts are limited on
  // their own, never by failures elsewhere.
  test("under a distributed attack the owner's device always gets in; a clean address without it is slowed", async () => {
    const first = await signIn("203.0.113.50", RIGHT);
    expect(first.status).toBe(200);
    expect(first.device, "a device cookie is set at a sign-in").toMatch(new RegExp(`^${DEVICE_COOKIE}=.+`));
    for (let i = 0; i < 20; i++) await fail(`192.0.2.${100 + i}`, 1);
    for (let round = 0; round < 5; round++) {
      // The attacker's next guess, once the account's 5 s spacing lets one through.
      await age(6);
      await fail(`192.0.2.${150 + round}`, 1);
      // From a new address (a café): the cookie, not the address, is what is trusted.
      const owner = await signIn(`203.0.113.${60 + round}`, RIGHT, EMAIL, first.device!);
      expect(owner.status, `round ${round + 1}: the owner's device, just after a failure elsewhere`).toBe(200);
    }
    await age(6);
    await fail("192.0.2.160", 1);
    expect((await signIn("203.0.113.70", RIGHT)).status, "the same right password without the device cookie waits its 5 s").toBe(429);
  });

  test("a cookie altered, or issued for another account, is not trusted", async () => {
    const mine = (await signIn("203.0.113.80", RIGHT)).device!;
    const other = (await signIn("203.0.113.81", "Password123!", "user@acme.test")).device!;
    for (let i = 0; i < 20; i++) await fail(`192.0.2.${170 + i}`, 1);
    const [name, value] = mine.split("=") as [string, string];
    const altered = `${name}=${value.slice(0, -2)}${value.endsWith("AA") ? "BB" : "AA"}`;
    expect((await signIn("203.0.113.82", RIGHT, EMAIL, altered)).status, "an altered signature").toBe(429);
    expect((await signIn("203.0.113.83", RIGHT, EMAIL, other)).status, "another account's device cookie").toBe(429);
  });

  test("a trusted device that fails 5 times itself is limited like any address", async () => {
    const mine = (await signIn("203.0.113.90", RIGHT)).device!;
    for (let i = 0; i < 5; i++) expect((await signIn(`203.0.113.${91 + i}`, `wrong-${i}`, EMAIL, mine)).status).toBe(401);
    const held = await signIn("203.0.113.96", RIGHT, EMAIL, mine);
    expect(held.status, "its own failures count against it").toBe(429);
  });
});

describe("the owner hears of it", () => {
  const warnings = async (to: string) => (await tdb.db`select subject from email_outbox where lower("to") = ${to} and template = 'signInFailures'`).length;

  test("4 failures send nothing; the 5th (from any addresses) emails the owner once; unknown emails send nothing", async () => {
    const to = "viewer@acme.test";
    await fail("198.51.100.50", 2, to);
    await fail("198.51.100.51", 2, to);
    await settled();
    expect(await warnings(to)).toBe(0);
    await fail("198.51.100.52", 1, to);
    await settled();
    expect(await warnings(to)).toBe(1);
    await fail("198.51.100.53", 1, to);
    await settled();
    expect(await warnings(to), "not again at the 6th").toBe(1);
    await fail("198.51.100.54", 5, "ghost-person@acme.test");
    await settled();
    expect(await warnings("ghost-person@acme.test")).toBe(0);
  });
});
