// Sign-in through the real routes: password login, bearer tokens, refresh rotation with reuse
// detection, logout, tampered and expired tokens, rate limits, login methods.
import { settled } from "../../api/src/auth/after-response.ts";
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { createTestDb, type TestDb } from "../helpers/db.ts";
import { login, realApp, refreshCookie } from "../helpers/app.ts";
import type { App } from "../../api/src/app.ts";
import { AUDIENCE, hmacKey, signAccessToken } from "../../api/src/auth/jwt.ts";

let tdb: TestDb;
let app: App;
let key: CryptoKey;
beforeAll(async () => {
  tdb = await createTestDb();
  ({ app, key } = await realApp(tdb.db));
});
afterAll(async () => {
  await tdb.drop();
});

const api = (token: string, path = "/api/v1/Projects?$select=id", clientId = "1003") => app.request(path, { headers: { authorization: `Bearer ${token}`, clientId } });
const refresh = (cookie: string) => app.request("/auth/Login/Refresh", { method: "POST", headers: { cookie } });

function b64url(o: unknown): string {
  return btoa(JSON.stringify(o)).replace(/\+/g, "-").replace(/\//g, "_").replace(/=+$/, "");
}

describe("password login", () => {
  test("signs in, and the token opens the API for the user's client only", async () => {
    const res = await app.request("/auth/Login/PasswordLogin", {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ email: "USER@acme.test", password: "Password123!" }),
    });
    expect(res.status).toBe(200);
    const { accessToken } = (await res.json()) as { accessToken: string };
    const cookie = res.headers.getSetCookie().find((c) => c.startsWith("ideally_refresh="))!;
    expect(cookie, "the refresh token is an httpOnly cookie").toContain("HttpOnly");
    expect(cookie).toContain("SameSite=Strict");
    expect(cookie).toContain("Path=/auth");
    const claims = JSON.parse(atob(accessToken.split(".")[1]!.replace(/-/g, "+").replace(/_/g, "/")));
    expect(claims.exp - claims.iat, "15-minute access tokens").toBe(900);
    expect((await api(accessToken)).status).toBe(200);
    expect((await api(accessToken, "/api/v1/Projects?$select=id", "2001")).status, "not a member of Globex").toBe(403);
  });

  test("a wrong password and an unknown email answer alike", async () => {
    const wrong = await app.request("/auth/Login/PasswordLogin", {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ email: "viewer@acme.test", password: "nope-nope-nope" }),
    });
    const unknown = await app.request("/auth/Login/PasswordLogin", {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ email: "nobody@acme.test", password: "nope-nope-nope" }),
    });
    expect(wrong.status).toBe(401);
    expect(unknown.status).toBe(401);
    expect(await wrong.json()).toEqual(await unknown.json());
  });

  test("a malformed body names the field", async () => {
    const res = await app.request("/auth/Login/PasswordLogin", {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ email: "not-an-email" }),
    });
    expect(res.status).toBe(400);
    const body = (await res.json()) as { errors: { path: string }[] };
    expect(body.errors.map((e) => e.path).sort()).toEqual(["email", "password"]);
  });

  test("repeated failures on one account are throttled with Retry-After", async () => {
    const attempt = () =>
      app.request("/auth/Login/PasswordLogin", {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ email: "admin@globex.test", password: "wrong-password" }),
      });
    for (let i = 0; i < 5; i++) expect((await attempt()).status).toBe(401);
    const blocked = await attempt();
    expect(blocked.status).toBe(429);
    expect(Number(blocked.headers.get("retry-after"))).toBeGreaterThan(0);
    expect(((await blocked.json()) as { typename: string }).typename).toBe("TooManyRequests");
    // Even the right password waits, from that address (another address is not held: lockout.test.ts).
    const right = await app.request("/auth/Login/PasswordLogin", {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ email: "admin@globex.test", password: "Password123!" }),
    });
    expect(right.status).toBe(429);
    await tdb.db`delete from auth_attempts`;
  });
});

describe("the sign-in window: failures count for 15 minutes (docs/decisions.md, LIMITS in auth.service.ts)", () => {
  // The per-account ceiling (20 failures in 15 minutes: one attempt per 5 s) at the window's edge;
  // tests/api/lockout.test.ts pins the thresholds themselves. The test app has no peer address, so
  // only the account's counter applies.
  const attempt = (password = "wrong-password") =>
    app.request("/auth/Login/PasswordLogin", {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ email: "viewer@acme.test", password }),
    });
  const failures = (n: number, ageSeconds: number) =>
    tdb.db`insert into auth_attempts (key, created_at) select 'login:account:viewer@acme.test', now() - make_interval(secs => ${ageSeconds}) from generate_series(1, ${n})`;

  test("19 failures just inside the window and one now reach the ceiling: the right password waits (429, at most 5 s)", async () => {
    await tdb.db`delete from auth_attempts`;
    await failures(19, 15 * 60 - 5);
    await failures(1, 0);
    const held = await attempt("Password123!");
    expect(held.status).toBe(429);
    const after = Number(held.headers.get("retry-after"));
    expect(after).toBeGreaterThanOrEqual(1);
    expect(after).toBeLessThanOrEqual(5);
    await tdb.db`delete from auth_attempts`;
  });
  test("the same 19 just outside the window do not count: the right password signs in", async () => {
    await tdb.db`delete from auth_attempts`;
    await failures(19, 15 * 60 + 5);
    await failures(1, 0);
    expect((await attempt("Password123!")).status).toBe(200);
    await tdb.db`delete from auth_attempts`;
  });
});

describe("failed refreshes: 60 per IP address a minute (LIMITS.refreshPerIp, docs/security.md)", () => {
  // Only failed refreshes count (an unknown, used or missing token); a good one is refused only
  // once the address has failed 60 times within the last minute.
  const IP = "198.51.100.60";
  const failures = (n: number, ageSeconds: number) =>
    tdb.db`insert into auth_attempts (key, created_at) select ${`refresh:ip:${IP}`}, now() - make_interval(secs => ${ageSeconds}) from generate_series(1, ${n})`;
  async function goodRefresh(): Promise<Response> {
    const { app: fromIp } = await realApp(tdb.db, { ip: IP });
    const { cookie } = await login(fromIp, "admin@acme.test");
    return fromIp.request("/auth/Login/Refresh", { method: "POST", headers: { cookie } });
  }

  test("60 failures just inside the minute: a good refresh waits (429, Retry-After at most 5 s)", async () => {
    await tdb.db`delete from auth_attempts`;
    await failures(60, 55);
    const held = await goodRefresh();
    expect(held.status).toBe(429);
    const after = Number(held.headers.get("retry-after"));
    expect(after).toBeGreaterThanOrEqual(1);
    expect(after).toBeLessThanOrEqual(5);
    await tdb.db`delete from auth_attempts`;
  });
  test("59 failures inside the minute: the good refresh passes", async () => {
    await tdb.db`delete from auth_attempts`;
    await failures(59, 55);
    expect((await goodRefresh()).status).toBe(200);
    await tdb.db`delete from auth_attempts`;
  });
  test("60 failures just outside the minute do not count", async () => {
    await tdb.db`delete from auth_attempts`;
    await failures(60, 65);
    expect((await goodRefresh()).status).toBe(200);
    await tdb.db`delete from auth_attempts`;
  });
  test("each failed refresh counts: the 61st attempt from the address is refused before its token is looked at", async () => {
    await tdb.db`delete from auth_attempts`;
    const { app: fromIp } = await realApp(tdb.db, { ip: IP });
    for (let i = 0; i < 60; i++) {
      const bad = await fromIp.request("/auth/Login/Refresh", { method: "POST", headers: { cookie: `ideally_refresh=made-up-${i}` } });
      expect(bad.status, `failure ${i + 1}`).toBe(422);
    }
    const held = await fromIp.request("/auth/Login/Refresh", { method: "POST", headers: { cookie: "ideally_refresh=made-up-61" } });
    expect(held.status).toBe(429);
    await tdb.db`delete from auth_attempts`;
  });
});

describe("tokens", () => {
  test("refresh rotates the cookie; reusing a used one (its successor used too) revokes the whole session", async () => {
    const { token, cookie } = await login(app, "admin@acme.test");
    const r1 = await refresh(cookie);
    expect(r1.status).toBe(200);
    const cookie2 = refreshCookie(r1);
    expect(cookie2).not.toBe(cookie);
    const token2 = ((await r1.json()) as { accessToken: string }).accessToken;
    expect((await api(token2)).status).toBe(200);
    const r2 = await refresh(cookie2);
    expect(r2.status).toBe(200);
    const cookie3 = refreshCookie(r2);

    const reuse = await refresh(cookie);
    expect(reuse.status, "a used refresh token is refused").toBe(422);
    expect(((await reuse.json()) as { typename: string }).typename).toBe("AuthFailureDto");
    expect((await refresh(cookie3)).status, "the family is revoked: the newest token dies too").toBe(422);
    expect((await api(token)).status, "and so do its access tokens").toBe(401);
    expect((await api(token2)).status).toBe(401);
  });

  test("a refresh answer the client never received (a page that navigated away mid-refresh): the same token within 30 s while its successor is unused gets a new one, once (record 0126)", async () => {
    // A CI run saw it: the page refreshed, navigated before the rotated cookie arrived, refreshed
    // again with the old cookie, and the reuse rule signed the user out.
    const { cookie } = await login(app, "viewer@acme.test");
    const lost = await refresh(cookie);
    expect(lost.status).toBe(200);
    const lostCookie = refreshCookie(lost);
    const again = await refresh(cookie);
    expect(again.status, "the old token again, its successor unused: a new token").toBe(200);
    const cookie3 = refreshCookie(again);
    expect(cookie3).not.toBe(lostCookie);
    expect((await api(((await again.json()) as { accessToken: string }).accessToken)).status).toBe(200);
    // Only once per token: a third time is a reuse, and ends the session.
    const third = await refresh(cookie);
    expect(third.status).toBe(422);
    expect((await refresh(cookie3)).status, "the session is revoked").toBe(422);
  });

  test("the lost-answer grace: at 29 s after the rotation it holds, at 31 s it is a reuse; a retired successor presented later is a reuse", async () => {
    const hashOf = async (c: string) => {
      const value = decodeURIComponent(c.split("=").slice(1).join("=").split(";")[0]!);
      const bytes = new Uint8Array(await crypto.subtle.digest("SHA-256", new TextEncoder().encode(value)));
      return [...bytes].map((b) => b.toString(16).padStart(2, "0")).join("");
    };
    const age = async (c: string, seconds: number) => {
      const n = await tdb.db`update auth_refresh_tokens set used_at = now() - make_interval(secs => ${seconds}) where token_hash = ${await hashOf(c)}`;
      expect(n.count, "the token's row found by its hash").toBe(1);
    };
    {
      const { cookie } = await login(app, "user@acme.test");
      expect((await refresh(cookie)).status).toBe(200);
      await age(cookie, 29);
      expect((await refresh(cookie)).status, "29 s: within the leeway").toBe(200);
    }
    {
      const { cookie } = await login(app, "user@acme.test");
      expect((await refresh(cookie)).status).toBe(200);
      await age(cookie, 31);
      expect((await refresh(cookie)).status, "31 s: past the leeway, a reuse").toBe(422);
    }
    {
      const { cookie } = await login(app, "user@acme.test");
      const first = await refresh(cookie);
      const successor = refreshCookie(first);
      expect((await refresh(cookie)).status, "the grace: the successor is retired").toBe(200);
      expect((await refresh(successor)).status, "the retired successor is a reuse").toBe(422);
    }
  });

  test("refresh without a cookie is 422 AuthFailureDto", async () => {
    const res = await app.request("/auth/Login/Refresh", { method: "POST" });
    expect(res.status).toBe(422);
    expect(((await res.json()) as { typename: string }).typename).toBe("AuthFailureDto");
  });

  test("logout ends the refresh token and the access token", async () => {
    const { token, cookie } = await login(app, "viewer@acme.test");
    expect((await api(token)).status).toBe(200);
    const out = await app.request("/auth/Login/Logout", { method: "POST", headers: { cookie, authorization: `Bearer ${token}` } });
    expect(out.status).toBe(204);
    expect((await api(token)).status).toBe(401);
    expect((await refresh(cookie)).status).toBe(422);
  });

  test("tampered, foreign and expired tokens are refused", async () => {
    const { token } = await login(app, "user@acme.test");
    const [h, p, s] = token.split(".") as [string, string, string];
    const claims = JSON.parse(atob(p.replace(/-/g, "+").replace(/_/g, "/")));

    const none = `${b64url({ alg: "none", typ: "JWT" })}.${p}.`;
    const elevated = `${h}.${b64url({ ...claims, staff: true, sa: true })}.${s}`;
    const otherKey = await signAccessToken(await hmacKey("another-secret-of-at-least-32-chars!"), { sub: claims.sub, sid: claims.sid });
    const wrongAudience = await (async () => {
      const body = `${h}.${b64url({ ...claims, aud: "someone-else" })}`;
      const sig = new Uint8Array(await crypto.subtle.sign("HMAC", key, new TextEncoder().encode(body)));
      return `${body}.${btoa(String.fromCharCode(...sig))
        .replace(/\+/g, "-")
        .replace(/\//g, "_")
        .replace(/=+$/, "")}`;
    })();
    const expired = await signAccessToken(key, { sub: claims.sub, sid: claims.sid }, Date.now() - 16 * 60 * 1000);

    expect(claims.aud).toBe(AUDIENCE);
    for (const [name, t] of Object.entries({ none, elevated, otherKey, wrongAudience, expired, garbage: "abc.def" })) {
      const res = await api(t);
      expect(res.status, `${name} token`).toBe(401);
      const body = await res.text();
      expect(body, "no stack trace leaks").not.toContain(" at ");
    }
    expect((await api(token)).status, "the genuine token still works").toBe(200);
  });

  test("a disabled user's token stops working at once", async () => {
    const { token } = await login(app, "user@acme.test");
    await tdb.db`update users set disabled_at = now() where id = 9004`;
    expect((await api(token)).status).toBe(401);
    await tdb.db`update users set disabled_at = null where id = 9004`;
  });
});

describe("login methods", () => {
  test("SAML for a domain with an identity provider, password for others", async () => {
    const acme = await app.request("/auth/Login/GetLoginMethods/someone@acme.test");
    expect(await acme.json()).toEqual({ password: true, saml: { providerName: "AcmeSSO" }, linkedIn: false });
    const other = await app.request("/auth/Login/GetLoginMethods/someone@example.org");
    expect(await other.json()).toEqual({ password: true, saml: null, linkedIn: false });
  });
});

describe("single sign-on required", () => {
  test("an org that requires SSO: no password sign-in, no reset email, and the login page offers no password", async () => {
    await tdb.db`update orgs set sso_required = true where id = 1002`;
    try {
      const res = await app.request("/auth/Login/PasswordLogin", {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ email: "user@acme.test", password: "Password123!" }),
      });
      expect(res.status).toBe(403);
      expect(((await res.json()) as { detail: string }).detail).toBe("sso_required");
      const methods = await app.request("/auth/Login/GetLoginMethods/anyone@acme.test");
      expect(((await methods.json()) as { password: boolean }).password, "decided by the domain").toBe(false);
      const before = await tdb.db`select count(*)::int as n from email_outbox`;
      const forgot = await app.request("/auth/Login/ForgotPassword", {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ email: "user@acme.test" }),
      });
      expect(forgot.status, "the same answer as always").toBe(204);
      await settled(); // the account's part runs after the answer
      const after = await tdb.db`select count(*)::int as n from email_outbox`;
      expect(after[0]!.n, "but no reset email").toBe(before[0]!.n);
      // Globex requires nothing: its people still sign in with a password.
      expect((await login(app, "admin@globex.test")).token).toBeString();
    } finally {
      await tdb.db`update orgs set sso_required = false where id = 1002`;
      await tdb.db`delete from auth_attempts`;
    }
  });
});
