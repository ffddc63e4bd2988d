// One declaration per field (issue 34): a Project field's limits are the same through every route
// that writes it: POST /Projects (create), PATCH /Projects(id) (the generic write) and
// POST /Projects(id)/AdminEdit (staff). Each limit is tried at its edge on each route: the longest
// value passes and is stored, one character more is refused with a 400 in the error shape naming
// the field. The limits are the create's as they stood before the field was declared once
// (researchNote 10,000 characters, productType 50, brandName 200 after trimming).
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { createTestDb, type TestDb } from "../helpers/db.ts";
import { call, testApp } from "../helpers/app.ts";
import type { App } from "../../api/src/app.ts";

let tdb: TestDb;
let app: App;
/** An industry code exactly 50 characters long, and one of 51 (productType refers to industries). */
const CODE_50 = "i".repeat(50);
const CODE_51 = "j".repeat(51);
beforeAll(async () => {
  tdb = await createTestDb();
  app = testApp(tdb.db);
  await tdb.db`insert into industries (id, code, name) values (9950, ${CODE_50}, 'Fifty'), (9951, ${CODE_51}, 'Fifty-one')`;
});
afterAll(async () => {
  await tdb.drop();
});

type Route = "create" | "patch" | "adminEdit";
const ROUTES: Route[] = ["create", "patch", "adminEdit"];

let seq = 0;
/** A Draft project of Acme Team A made through the API (so PATCH and AdminEdit have one to change). */
async function draft(): Promise<number> {
  const res = await call(app, "acmeUser", 1003, "POST", "/api/v1/Projects", { projectName: `Fields ${++seq}`, projectTypeId: 1, frameworkId: 1000 });
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  return res.body.id as number;
}

/** Writes `fields` through `route`; answers the status, the body and the project's id. */
async function write(route: Route, fields: Record<string, unknown>): Promise<{ status: number; body: any; id: number | null }> {
  if (route === "create") {
    const res = await call(app, "acmeUser", 1003, "POST", "/api/v1/Projects", { projectName: `Fields ${++seq}`, projectTypeId: 1, frameworkId: 1000, ...fields });
    return { ...res, id: res.status === 201 ? (res.body.id as number) : null };
  }
  const id = await draft();
  const res =
    route === "patch"
      ? await call(app, "acmeUser", 1003, "PATCH", `/api/v1/Projects(${id})`, fields)
      : await call(app, "ops", 1003, "POST", `/api/v1/Projects(${id})/AdminEdit`, { ...fields, note: "field limits" });
  return { ...res, id };
}

async function stored(id: number): Promise<{ researchNote: string | null; productType: string | null; brandName: string | null }> {
  const [r] = await tdb.db<{ researchNote: string | null; productType: string | null; brandName: string | null }[]>`
    select research_note as "researchNote", product_type as "productType", brand_name as "brandName" from projects where id = ${id}`;
  return r!;
}

/** The refusal: a 400 in the API's error shape, naming the field. */
function expectRefused(res: { status: number; body: any }, field: string, route: Route): void {
  expect(res.status, `${route}: ${JSON.stringify(res.body).slice(0, 300)}`).toBe(400);
  expect(res.body.typename, route).toBe("ValidationError");
  expect(typeof res.body.message, route).toBe("string");
  expect(
    (res.body.errors as { path: string }[]).map((e) => e.path),
    `${route} names the field`,
  ).toContain(field);
}

describe.each(ROUTES)("Project fields through %s", (route) => {
  test("researchNote: 10,000 characters pass and are stored whole; 10,001 are refused", async () => {
    const ok = await write(route, { researchNote: "n".repeat(10_000) });
    expect(ok.status, JSON.stringify(ok.body).slice(0, 300)).toBe(route === "create" ? 201 : 200);
    expect((await stored(ok.id!)).researchNote?.length).toBe(10_000);
    const over = await write(route, { researchNote: "n".repeat(10_001) });
    expectRefused(over, "researchNote", route);
    if (over.id !== null) expect((await stored(over.id)).researchNote, "nothing written").toBeNull();
  });

  test("productType: a 50-character industry code passes; a 51-character one is refused by its length", async () => {
    const ok = await write(route, { productType: CODE_50 });
    expect(ok.status, JSON.stringify(ok.body).slice(0, 300)).toBe(route === "create" ? 201 : 200);
    expect((await stored(ok.id!)).productType).toBe(CODE_50);
    // CODE_51 is an industry too: only the length can refuse it.
    const over = await write(route, { productType: CODE_51 });
    expectRefused(over, "productType", route);
    if (over.id !== null) expect((await stored(over.id)).productType, "the client's industry, unchanged").toBe("fmcg");
  });

  test("brandName: trimmed before it is measured; 200 characters inside spaces pass, 201 are refused", async () => {
    const name = "b".repeat(200);
    const ok = await write(route, { brandName: `  ${name}\t ` });
    expect(ok.status, JSON.stringify(ok.body).slice(0, 300)).toBe(route === "create" ? 201 : 200);
    expect((await stored(ok.id!)).brandName, "stored without the spaces").toBe(name);
    const trimmed = await write(route, { brandName: "  Acme  " });
    expect(trimmed.status).toBe(route === "create" ? 201 : 200);
    expect((await stored(trimmed.id!)).brandName).toBe("Acme");
    const over = await write(route, { brandName: ` ${"b".repeat(201)} ` });
    expectRefused(over, "brandName", route);
    if (over.id !== null) expect((await stored(over.id)).brandName, "nothing written").toBeNull();
  });
});

describe.each(ROUTES)("projectName through %s", (route) => {
  test("trimmed before it is measured: 200 characters inside spaces pass, 201 and only spaces are refused", async () => {
    const name = "p".repeat(200);
    const ok = await write(route, { projectName: `  ${name} ` });
    expect(ok.status, JSON.stringify(ok.body).slice(0, 300)).toBe(route === "create" ? 201 : 200);
    const [r] = await tdb.db<{ projectName: string }[]>`select project_name as "projectName" from projects where id = ${ok.id!}`;
    expect(r!.projectName, "stored without the spaces").toBe(name);
    expectRefused(await write(route, { projectName: ` ${"p".repeat(201)} ` }), "projectName", route);
    expectRefused(await write(route, { projectName: "   " }), "projectName", route);
  });
});

// The schedule's numbers are written by UpdateProjectScheduling, the generic PATCH and AdminEdit:
// 1 to 104 (two years of weekly waves) on each.
type ScheduleRoute = "patch" | "adminEdit" | "updateScheduling";
describe.each<ScheduleRoute>(["patch", "adminEdit", "updateScheduling"])("schedule numbers through %s", (route) => {
  async function schedule(fields: { scheduleFrequencyWeeks?: number; scheduleWavesRequired?: number }): Promise<{ status: number; body: any; id: number }> {
    if (route !== "updateScheduling") return write(route, fields).then((r) => ({ ...r, id: r.id! }));
    const id = await draft();
    const body = { scheduleStartDate: null, scheduleFrequencyWeeks: null, wavesRequired: true, ...fields };
    const res = await call(app, "acmeUser", 1003, "POST", `/api/v1/Projects(${id})/UpdateProjectScheduling`, body);
    return { ...res, id };
  }
  for (const field of ["scheduleFrequencyWeeks", "scheduleWavesRequired"] as const) {
    test(`${field}: 1 and 104 pass; 0 and 105 are refused`, async () => {
      for (const n of [1, 104]) {
        const ok = await schedule({ [field]: n });
        expect(ok.status, `${n}: ${JSON.stringify(ok.body).slice(0, 300)}`).toBe(200);
      }
      for (const n of [0, 105]) expectRefused(await schedule({ [field]: n }), field, route === "updateScheduling" ? "patch" : route);
    });
  }
});
