// The HubSpot syncs against a loopback server that speaks the parts of the HubSpot CRM v3 API used
// (companies, company properties, contact search and create, deal batch upsert), with paging and a
// rate limit answered once; without HUBSPOT_TOKEN the commands answer 503.
import { afterAll, beforeAll, expect, test } from "bun:test";
import { createTestDb, type TestDb } from "../helpers/db.ts";
import { call, testApp } from "../helpers/app.ts";
import type { App } from "../../api/src/app.ts";
import { startQueue, type Queue } from "../../api/src/jobs/queue.ts";
import { registerWorkers } from "../../api/src/jobs/workers.ts";
import { commandJob } from "../../api/src/domains/commands/commands.jobs.ts";

let tdb: TestDb;
let app: App;
let queue: Queue;
let fake: ReturnType<typeof Bun.serve>;
const contacts = new Map<string, string>([["user@acme.test", "c-1"]]);
const deals = new Map<string, Record<string, string>>();
let limited = false;
const seen: string[] = [];

beforeAll(async () => {
  fake = Bun.serve({
    port: 0,
    hostname: "127.0.0.1",
    async fetch(req) {
      const u = new URL(req.url);
      seen.push(`${req.method} ${u.pathname}`);
      if (req.headers.get("authorization") !== "Bearer test-token") return new Response("no", { status: 401 });
      if (!limited) {
        limited = true;
        return new Response("slow down", { status: 429, headers: { "retry-after": "0" } });
      }
      const company = /^\/crm\/v3\/objects\/companies\/(.+)$/.exec(u.pathname);
      if (company) {
        if (company[1] === "HS-1") return Response.json({ id: "HS-1", properties: { name: "Acme HubSpot", industry: "FMCG", domain: "acme.example", tier_note: "gold" } });
        return new Response("missing", { status: 404 });
      }
      if (u.pathname === "/crm/v3/properties/companies") {
        // Two pages: the client follows paging.next.after.
        if (!u.searchParams.get("after")) return Response.json({ results: [{ name: "name", label: "Name", hubspotDefined: true }], paging: { next: { after: "p2" } } });
        return Response.json({ results: [{ name: "tier_note", label: "Tier note", hubspotDefined: false }] });
      }
      if (u.pathname === "/crm/v3/objects/contacts/search") {
        const body = (await req.json()) as { filterGroups: { filters: { value: string }[] }[] };
        const id = contacts.get(body.filterGroups[0]!.filters[0]!.value);
        return Response.json({ results: id ? [{ id }] : [] });
      }
      if (u.pathname === "/crm/v3/objects/contacts" && req.method === "POST") {
        const body = (await req.json()) as { properties: { email: string } };
        const id = `c-${contacts.size + 1}`;
        contacts.set(body.properties.email, id);
        return Response.json({ id }, { status: 201 });
      }
      if (u.pathname === "/crm/v3/objects/deals/batch/upsert") {
        const body = (await req.json()) as { inputs: { id: string; properties: Record<string, string> }[] };
        for (const i of body.inputs) deals.set(i.id, i.properties);
        return Response.json({ results: body.inputs });
      }
      return new Response("unknown", { status: 404 });
    },
  });
  tdb = await createTestDb();
  queue = await startQueue(tdb.url, () => {});
  await registerWorkers(queue, tdb.db, [commandJob], { log: () => {} });
  app = testApp(tdb.db, { queue });
  await tdb.db`update clients set hs_company_id = 'HS-1' where id = 1003`;
  await tdb.db`update clients set hs_company_id = 'HS-404' where id = 2001`;
});
afterAll(async () => {
  delete process.env.HUBSPOT_TOKEN;
  delete process.env.HUBSPOT_BASE_URL;
  await queue.stop({ graceful: true, timeout: 5000 });
  fake.stop(true);
  await tdb.drop();
});

async function run(command: string): Promise<{ event: string; data: { result?: Record<string, unknown>; message?: string } }> {
  const r = await call(app, "staff", null, "POST", `/api/CommandRunner/${command}`, {});
  expect(r.status, JSON.stringify(r.body)).toBe(202);
  for (let i = 0; i < 100; i++) {
    const [row] = await tdb.db<{ event: string; data: { result?: Record<string, unknown> } }[]>`
      select event, data from data_events_log where entity_type = 'Command' and data->>'jobId' = ${r.body.jobId} and event in ('CommandCompleted', 'CommandFailed')`;
    if (row) return row;
    await Bun.sleep(100);
  }
  throw new Error(`${command} did not finish`);
}

test("without HUBSPOT_TOKEN the syncs answer 503 saying so", async () => {
  const r = await call(app, "staff", null, "POST", "/api/CommandRunner/RunHubspotClientSync", {});
  expect(r.status).toBe(503);
  expect(r.body.message).toStartWith("HubSpot is not configured");
});

test("the client sync links companies (industry mapped), after one rate-limited answer; a missing company is reported", async () => {
  process.env.HUBSPOT_TOKEN = "test-token";
  process.env.HUBSPOT_BASE_URL = `http://127.0.0.1:${fake.port}`;
  const done = await run("RunHubspotClientSync");
  expect(done.event, JSON.stringify(done.data)).toBe("CommandCompleted");
  expect(done.data.result).toMatchObject({ synced: 1 });
  expect((done.data.result as { missing: string[] }).missing).toContain("HS-404");
  const [l] = await tdb.db<{ name: string; industry: string; domain: string }[]>`select name, industry, domain from linked_clients where client_id = 1003 and hs_company_id = 'HS-1'`;
  expect(l).toEqual({ name: "Acme HubSpot", industry: "fmcg", domain: "acme.example" });
  const lc = await call(app, "acmeViewer", 1003, "GET", "/api/v1/Clients(1003)?$expand=hubspotCompanies($select=name,industry)");
  expect(lc.body.hubspotCompanies).toContainEqual({ name: "Acme HubSpot", industry: "fmcg" });
});

test("custom properties follow the paged property list", async () => {
  const done = await run("RunHubspotClientCustomPropsSync");
  expect(done.data.result).toMatchObject({ properties: ["tier_note"], synced: 1 });
  const [l] = await tdb.db<{ p: Record<string, string> }[]>`select properties as p from linked_clients where hs_company_id = 'HS-1'`;
  expect(l!.p.tier_note).toBe("gold");
});

test("users become contacts once; projects become deals by their id", async () => {
  const first = await run("RunHubspotUserSync");
  const r = first.data.result as { users: number; found: number; created: number };
  expect(r.found).toBe(1);
  expect(r.created).toBe(r.users - 1);
  const again = await run("RunHubspotUserSync");
  expect((again.data.result as { created: number }).created).toBe(0);
  await tdb.db`update projects set status_code = 100 where id = 1001`;
  const deals1 = await run("RunHubspotProjectSync");
  expect((deals1.data.result as { upserted: number }).upserted).toBeGreaterThanOrEqual(1);
  expect(deals.get("1001")).toMatchObject({ ideally_status: "Submitted", ideally_company_id: "HS-1" });
  expect(seen.some((s) => s === "POST /crm/v3/objects/deals/batch/upsert")).toBe(true);
});
