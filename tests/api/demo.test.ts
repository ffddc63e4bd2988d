// The demo world of a fresh start: seeded once into an empty database, every demo login signs in,
// and the foundation's acceptance query answers exactly for a signed-in demo user.
import { afterAll, beforeAll, expect, test } from "bun:test";
import { createTestDb, type TestDb } from "../helpers/db.ts";
import { inflateSync } from "node:zlib";
import { login, realApp, TEST_PUBLIC_URL, testPasswords, testStorage } from "../helpers/app.ts";
import { DEMO_CREDITS, DEMO_LOGINS, DEMO_PASSWORD, seedDemo } from "../../api/src/db/demo.ts";
import type { App } from "../../api/src/app.ts";

let tdb: TestDb;
let app: App;
// The state every test here reads, built in the hook (never by another test): the three seedDemo
// calls' answers, then the demo projects fielded by the simulated panel.
let seeds: boolean[] = [];
let balances: { name: string; balance: number }[] = [];
let demoIds: number[] = [];
beforeAll(async () => {
  tdb = await createTestDb({ fixtures: false });
  ({ app } = await realApp(tdb.db, { extra: { storage: testStorage } }));
  seeds = [
    await seedDemo(tdb.db, testPasswords.hash, { whenEmpty: true }),
    await seedDemo(tdb.db, testPasswords.hash, { whenEmpty: true }),
    await seedDemo(tdb.db, testPasswords.hash, { whenEmpty: false }),
  ];
  // The teams' credits as seeding leaves them, before the demo projects spend some.
  balances = [
    ...(await tdb.db<{ name: string; balance: number }[]>`
    select c.name, sum(l.credit_amount)::float8 as balance from credit_logs l join clients c on c.id = l.client_id group by c.name order by c.name`),
  ];
  const { seedDemoProjects } = await import("../../api/src/domains/fielding/demo.ts");
  const { registry } = await import("../../api/src/entities/index.ts");
  demoIds = await seedDemoProjects(tdb.db, registry, "http://ideally.test");
  // A guard against a hang, not a time the fielding must meet: alone it takes seconds, with a second
  // copy of the suite and other work on two cores it took minutes (docs/testing.md).
}, 600_000);
afterAll(async () => {
  await tdb?.drop();
});

test("seeds once into an empty database, and not again", async () => {
  expect(seeds[0], "the first seeding of an empty database").toBe(true);
  expect(seeds[1], "a second one finds it seeded").toBe(false);
  expect(seeds[2], "db:seed finds the logins there").toBe(false);
  const [{ n }] = (await tdb.db`select count(*)::int as n from users where email like '%.test'`) as unknown as [{ n: number }];
  expect(n).toBe(DEMO_LOGINS.length);
});

test("the demo teams have credits to run projects with", async () => {
  expect(balances).toEqual([
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

test("the demo projects of every type are fielded by the simulated panel and complete", async () => {
  const { DEMO_PROJECTS } = await import("../../api/src/domains/fielding/demo.ts");
  const ids = demoIds;
  expect(ids.length).toBe(DEMO_PROJECTS.length);
  const rows = await tdb.db<{ name: string; type: number; status: number; sessions: number; waves: number; weeks: number; clientName: string }[]>`
    select p.project_name as name, p.project_type_id as type, p.status_code as status, c.name as "clientName",
           (select count(*)::int from project_survey_sessions s where s.project_id = p.id) as sessions,
           (select count(distinct survey_run_id)::int from project_survey_sessions s where s.project_id = p.id) as waves,
           (select count(distinct week)::int from project_survey_sessions s where s.project_id = p.id) as weeks
    from projects p join clients c on c.id = p.client_id where p.id = any(${ids}::int[]) order by p.id`;
  for (const r of rows) {
    const d = DEMO_PROJECTS.find((x) => x.projectName === r.name)!;
    expect(r.status, `${r.name} is complete`).toBe(900);
    expect(r.sessions, `${r.name} has every wave's completes`).toBe(d.sampleSize * d.regionIds.length * (d.waves?.count ?? 1));
  }
  expect(new Set(rows.map((r) => r.type))).toEqual(new Set([1, 2, 3, 4]));
  expect(rows.find((r) => r.type === 4)!.weeks, "the NPD tracker spans launch weeks").toBe(4);
  expect(rows.some((r) => r.clientName === "Globex")).toBe(true);
  // Concepts differ: the best and worst concept of the idea screen are apart on Likability (5).
  const t2b = await tdb.db<{ t: number }[]>`
    select avg((standard_answer_value <= 2)::int)::float8 as t from responses
    where project_id = ${ids[0]!} and standard_question_id = 5 group by test_option_id order by 1`;
  expect(t2b[t2b.length - 1]!.t - t2b[0]!.t).toBeGreaterThan(0.05);
});

test("every demo project has results through the results functions", async () => {
  const svc = await import("../../api/src/domains/results/results.service.ts");
  const projects = await tdb.db<{ id: number; clientId: number; type: number }[]>`
    select id, client_id as "clientId", project_type_id as type from projects where deleted_at is null order by id`;
  const [{ uma }] = await tdb.db<{ uma: number }[]>`select id as uma from users where email = 'user@acme.test'`;
  const [{ gil }] = await tdb.db<{ gil: number }[]>`select id as gil from users where email = 'admin@globex.test'`;
  for (const p of projects) {
    const [{ acme }] = await tdb.db<{ acme: boolean }[]>`select exists (select 1 from user_and_clients where user_id = ${uma} and client_id = ${p.clientId}) as acme`;
    const ctx = { principal: { userId: acme ? uma : gil, isStaff: false, isSuperAdmin: false }, clientId: p.clientId, descendants: false, sessionId: null };
    const counts = await svc.responsesCount(tdb.db, ctx, p.id, {});
    expect(counts.value.length, `project ${p.id} has respondents`).toBeGreaterThan(0);
    const demo = await svc.demographicsResults(tdb.db, ctx, p.id, { filterIds: [4500002] });
    expect(demo.questions.length, `project ${p.id} has demographics for women`).toBeGreaterThan(0);
    if (p.type !== 3) {
      const qual = await svc.qualResults(tdb.db, ctx, { projectId: p.id, filters: {}, benchmarkTypeId: 1 });
      expect(qual.measures.length, `project ${p.id} has measures`).toBeGreaterThan(0);
    }
  }
});

// The other results tests copy the demo world from a template built once (tests/helpers/demo.ts):
// it must hold what seeding writes now, not an older seed.
test("the tests' demo template holds what this seeding wrote", async () => {
  expect(demoIds.length, "the demo projects were seeded").toBeGreaterThan(0);
  const { createDemoWorldDb } = await import("../helpers/demo.ts");
  const copy = await createDemoWorldDb();
  try {
    expect(copy.projectIds).toEqual(demoIds);
    const summary = (db: TestDb["db"]) => db`
      select p.id, p.project_name as name, p.status_code as status, p.client_id as "clientId",
             (select count(*)::int from project_survey_sessions s where s.project_id = p.id) as sessions,
             (select count(*)::int from responses r where r.project_id = p.id) as responses,
             (select coalesce(sum(r.standard_answer_value), 0)::float8 from responses r where r.project_id = p.id) as "answerSum"
      from projects p order by p.id`;
    expect([...(await summary(copy.tdb.db))]).toEqual([...(await summary(tdb.db))]);
  } finally {
    await copy.tdb.drop();
  }
}, 300_000);

/** A PNG's chunks, each CRC checked with Bun's own CRC-32 (not the encoder's). */
function pngChunks(b: Uint8Array): { type: string; data: Uint8Array }[] {
  expect([...b.subarray(0, 8)]).toEqual([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);
  const v = new DataView(b.buffer, b.byteOffset, b.byteLength);
  const out: { type: string; data: Uint8Array }[] = [];
  for (let o = 8; o < b.length; ) {
    const len = v.getUint32(o);
    const type = String.fromCharCode(...b.subarray(o + 4, o + 8));
    expect(v.getUint32(o + 8 + len), `${type} CRC`).toBe(Bun.hash.crc32(b.subarray(o + 4, o + 8 + len)));
    out.push({ type, data: b.subarray(o + 8, o + 8 + len) });
    o += 12 + len;
  }
  return out;
}

test("the demo's product concepts have pictures, stored as uploads are and served by the project's file URLs", async () => {
  const { seedDemoImages } = await import("../../api/src/domains/fielding/demo-images.ts");
  expect(demoIds.length, "the demo projects were seeded").toBeGreaterThan(0);
  const stored = await seedDemoImages(tdb.db, testStorage, TEST_PUBLIC_URL, demoIds);
  // Every concept of a product has one; the brand message tracker's two messages have none.
  const concepts = await tdb.db<{ projectName: string; conceptText: string; file: { key: string; fileType: string; fileName: string } | null; clientId: number; projectId: number }[]>`
    select p.project_name as "projectName", t.concept_text as "conceptText", t.file, t.client_id as "clientId", t.project_id as "projectId"
    from test_options t join projects p on p.id = t.project_id where t.project_id = any(${demoIds}::int[]) order by t.id`;
  const withFile = concepts.filter((c) => c.file);
  expect(stored).toBe(withFile.length);
  expect(concepts.filter((c) => !c.file).map((c) => c.projectName)).toEqual(["Brand message tracker", "Brand message tracker"]);
  expect(withFile.length).toBe(concepts.length - 2);
  for (const c of withFile) {
    expect(c.file!.fileType).toBe("image/png");
    expect(c.file!.key.startsWith(`clients/${c.clientId}/projects/${c.projectId}/`), "a key of the project's client, as FileUploadUrl makes them").toBe(true);
  }
  // A second call stores nothing more (the concepts have their files).
  expect(await seedDemoImages(tdb.db, testStorage, TEST_PUBLIC_URL, demoIds)).toBe(0);

  // Read back through the API as the web app does: ProjectFileUrls, then the signed download.
  const { token } = await login(app, "user@acme.test", DEMO_PASSWORD);
  const [idea] = await tdb.db<{ id: number; clientId: number }[]>`select id, client_id as "clientId" from projects where project_name = 'Plant-based snacks idea screen'`;
  const res = await app.request(`/api/v1/Projects(${idea!.id})/ProjectFileUrls`, { headers: { authorization: `Bearer ${token}`, clientId: String(idea!.clientId) } });
  expect(res.status).toBe(200);
  const files = ((await res.json()) as { value: { source: string; testOptionId: number; signedUrl: string; fileType: string }[] }).value;
  expect(files.filter((f) => f.source === "testOption").length, "the idea screen's three concepts").toBe(3);
  const seen = new Set<string>();
  for (const f of files) {
    const u = new URL(f.signedUrl);
    const got = await app.request(u.pathname + u.search);
    expect(got.status).toBe(200);
    expect(got.headers.get("content-type")).toBe("image/png");
    const bytes = new Uint8Array(await got.arrayBuffer());
    const chunks = pngChunks(bytes);
    const ihdr = new DataView(chunks[0]!.data.buffer, chunks[0]!.data.byteOffset);
    expect([chunks[0]!.type, ihdr.getUint32(0), ihdr.getUint32(4), chunks[0]!.data[8], chunks[0]!.data[9]]).toEqual(["IHDR", 480, 360, 8, 6]);
    // Rows of filter 0 and RGBA pixels, inflated by node's zlib: a picture, not one flat colour.
    const raw = inflateSync(Buffer.concat(chunks.filter((c) => c.type === "IDAT").map((c) => c.data)));
    expect(raw.length).toBe(360 * (1 + 480 * 4));
    const colours = new Set<number>();
    for (let y = 0; y < 360; y += 4) {
      expect(raw[y * (1 + 480 * 4)]).toBe(0);
      for (let x = 0; x < 480; x += 4) colours.add(raw.readUInt32BE(y * (1 + 480 * 4) + 1 + x * 4));
    }
    expect(colours.size, "several colours").toBeGreaterThan(5);
    seen.add(Buffer.from(bytes).toString("base64"));
  }
  expect(seen.size, "each concept its own picture").toBe(3);
}, 60_000);
