// Staff's client actions: AdminUpdate (changes audited, tree rules), ValidateDomainRecord against an
// injected DNS resolver, SetupTrialAccount (trial team, credits, invite email), the translations
// list and demographic translations; members get 403.
import { afterAll, beforeAll, expect, test } from "bun:test";
import { createTestDb, type TestDb } from "../helpers/db.ts";
import { call, testApp } from "../helpers/app.ts";
import type { App } from "../../api/src/app.ts";

let tdb: TestDb;
let app: App;
const txt = new Map<string, string[][]>();

beforeAll(async () => {
  tdb = await createTestDb();
  app = testApp(tdb.db, {
    resolveTxt: async (host) => {
      const r = txt.get(host);
      if (!r) throw Object.assign(new Error("not found"), { code: "ENOTFOUND" });
      return r;
    },
  });
});
afterAll(async () => {
  await tdb.drop();
});

test("AdminUpdate writes only what changed and audits it; members cannot", async () => {
  const r = await call(app, "ops", null, "POST", "/api/v1/Clients(1003)/AdminUpdate", { hsCompanyId: "HS-42", isTrial: false });
  expect(r.status, JSON.stringify(r.body)).toBe(200);
  expect(r.body.client.hsCompanyId).toBe("HS-42");
  expect(Object.keys(r.body.changes)).toEqual(["hsCompanyId"]);
  const [a] = await tdb.db<{ userId: number; data: { changes: Record<string, unknown> } }[]>`
    select user_id as "userId", data from data_events_log where entity_type = 'Client' and event = 'AdminUpdated' and entity_id = 1003`;
  expect(a!.userId).toBe(9002);
  expect(a!.data.changes).toHaveProperty("hsCompanyId");
  expect((await call(app, "acmeAdmin", 1003, "POST", "/api/v1/Clients(1003)/AdminUpdate", { name: "Mine" })).status).toBe(403);
  expect((await call(app, "staff", null, "POST", "/api/v1/Clients(999999)/AdminUpdate", { name: "x" })).status).toBe(404);
});

test("ValidateDomainRecord: the record to publish, then verified once it is there", async () => {
  const first = await call(app, "staff", null, "POST", "/api/v1/Clients(1003)/ValidateDomainRecord", { domain: "Acme.example." });
  expect(first.status, JSON.stringify(first.body)).toBe(200);
  expect(first.body.verified).toBe(false);
  expect(first.body.domain).toBe("acme.example");
  expect(first.body.record.value).toMatch(/^ideally-verification=[0-9a-f-]{36}$/);
  txt.set("acme.example", [["v=spf1 -all"], [first.body.record.value]]);
  const second = await call(app, "staff", null, "POST", "/api/v1/Clients(1003)/ValidateDomainRecord", { domain: "acme.example" });
  expect(second.body.verified).toBe(true);
  const [c] = await tdb.db<{ domain: string }[]>`select domain from clients where id = 1003`;
  expect(c!.domain).toBe("acme.example");
  // Another client's value does not verify this one.
  txt.set("other.example", [[first.body.record.value]]);
  expect((await call(app, "staff", null, "POST", "/api/v1/Clients(2001)/ValidateDomainRecord", { domain: "other.example" })).body.verified).toBe(false);
  expect((await call(app, "staff", null, "POST", "/api/v1/Clients(1003)/ValidateDomainRecord", { domain: "not a domain" })).status).toBe(400);
});

test("SetupTrialAccount: a trial team with credits and its Admin invited", async () => {
  const r = await call(app, "staff", null, "POST", "/api/v1/Clients/SetupTrialAccount", { name: "Trial Co", adminEmail: "owner@trial.example", credits: 250, trialDays: 14 });
  expect(r.status, JSON.stringify(r.body)).toBe(200);
  const [c] = await tdb.db<{ tier: string; isTrial: boolean; days: number; balance: number }[]>`
    select tier, is_trial as "isTrial", round(extract(epoch from trial_ends_at - now()) / 86400)::int as days,
           (select sum(credit_amount)::float8 from credit_logs where client_id = c.id) as balance
    from clients c where id = ${r.body.clientId}`;
  expect(c).toEqual({ tier: "Team", isTrial: true, days: 14, balance: 250 });
  const [member] = await tdb.db<
    { roleId: number }[]
  >`select m.role_id as "roleId" from user_and_clients m join users u on u.id = m.user_id where u.email = 'owner@trial.example' and m.client_id = ${r.body.clientId}`;
  expect(member?.roleId, "the invited person is the trial team's Admin").toBe(1);
  expect((await call(app, "acmeAdmin", 1003, "POST", "/api/v1/Clients/SetupTrialAccount", { name: "x", adminEmail: "a@b.example" })).status).toBe(403);
});

test("demographic translations are written verified, listed, and not rewritten when unchanged", async () => {
  const body = { regionId: 17, languageCode: "zh", translations: [{ sourceType: "SystemQuestionOption", sourceId: 4500002, translatedText: "女性" }] };
  const r = await call(app, "staff", null, "POST", "/api/v1/TranslatedTextRegions/AddDemographicTranslations", body);
  expect(r.status, JSON.stringify(r.body)).toBe(200);
  expect(r.body.written).toBe(1);
  expect((await call(app, "staff", null, "POST", "/api/v1/TranslatedTextRegions/AddDemographicTranslations", body)).body.written).toBe(0);
  const list = await call(app, "staff", null, "GET", "/api/v1/TranslatedTextRegions/AdminFiltered?regionId=17&languageCode=zh");
  expect(list.body.count).toBeGreaterThanOrEqual(1);
  expect(list.body.value.some((t: { translatedText: string; sourceText: string }) => t.translatedText === "女性" && t.sourceText === "Female")).toBe(true);
  const bad = await call(app, "staff", null, "POST", "/api/v1/TranslatedTextRegions/AddDemographicTranslations", {
    ...body,
    translations: [{ sourceType: "SystemQuestion", sourceId: 123456, translatedText: "x" }],
  });
  expect(bad.status).toBe(400);
  expect(bad.body.errors[0].path).toBe("translations.0.sourceId");
  expect((await call(app, "acmeAdmin", 1003, "GET", "/api/v1/TranslatedTextRegions/AdminFiltered")).status).toBe(403);
});
