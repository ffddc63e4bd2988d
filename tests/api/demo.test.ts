// The demo world of a fresh start: seeded once into an empty database, every demo login signs in,
// and the foundation's acceptance query answers exactly for a signed-in demo user.
import { afterAll, beforeAll, expect, test } from "bun:test";
import { createTestDb, type TestDb } from "../helpers/db.ts";
import { login, realApp } from "../helpers/app.ts";
import { DEMO_CREDITS, DEMO_LOGINS, DEMO_PASSWORD, seedDemo } from "../../api/src/db/demo.ts";
import { bunPasswords } from "../../api/src/auth/passwords-bun.ts";
import type { App } from "../../api/src/app.ts";

let tdb: TestDb;
let app: App;
beforeAll(async () => {
  tdb = await createTestDb({ fixtures: false });
  ({ app } = await realApp(tdb.db));
});
afterAll(async () => {
  await tdb.drop();
});

test("seeds once into an empty database, and not again", async () => {
  expect(await seedDemo(tdb.db, bunPasswords.hash, { whenEmpty: true })).toBe(true);
  expect(await seedDemo(tdb.db, bunPasswords.hash, { whenEmpty: true })).toBe(false);
  expect(await seedDemo(tdb.db, bunPasswords.hash, { whenEmpty: false }), "db:seed finds the logins there").toBe(false);
  const [{ n }] = (await tdb.db`select count(*)::int as n from users where email like '%.test'`) as unknown as [{ n: number }];
  expect(n).toBe(DEMO_LOGINS.length);
});

test("the demo teams have credits to run projects with", async () => {
  const rows = await tdb.db<{ name: string; balance: number }[]>`
    select c.name, sum(l.credit_amount)::float8 as balance from credit_logs l join clients c on c.id = l.client_id group by c.name order by c.name`;
  expect([...rows]).toEqual([
    { name: "Acme Team A", balance: DEMO_CREDITS.teamA },
    { name: "Acme Team B", balance: DEMO_CREDITS.teamB },
    { name: "Globex", balance: DEMO_CREDITS.globex },
  ]);
});

test("every demo login signs in with the demo password", async () => {
  for (const l of DEMO_LOGINS) {
    const { token } = await login(app, l.email, DEMO_PASSWORD);
    expect(token.split(".").length, l.email).toBe(3);
  }
});

test("the acceptance query answers exactly for a signed-in user", async () => {
  const { token } = await login(app, "user@acme.test", DEMO_PASSWORD);
  const [team] = await tdb.db<{ id: number }[]>`select id from clients where name = 'Acme Team A'`;
  const res = await app.request("/api/v1/StandardQuestions?$filter=id le 6&$orderby=id desc&$select=id", {
    headers: { authorization: `Bearer ${token}`, clientId: String(team!.id) },
  });
  expect(res.status).toBe(200);
  expect(await res.text()).toBe('{"value":[{"id":6},{"id":5},{"id":4},{"id":3},{"id":2},{"id":1}]}');
});
