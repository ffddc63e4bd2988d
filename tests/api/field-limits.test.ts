// One declaration per field (issue 34): a field's limits are the same through every route that
// writes it. Projects: POST /Projects (create), PATCH /Projects(id) (the generic write) and
// POST /Projects(id)/AdminEdit (staff); Clients: POST /Teams, PATCH /Clients(id), AdminUpdate,
// SetupTrialAccount and Rename; TestOptions: POST, PATCH and SuperAdminUpdate. Each limit is tried at
// its edge on each route: the longest value passes and is stored, one character more is refused
// with a 400 in the error shape naming the field. The limits are the widest a domain route took
// before the field was declared once (researchNote 10,000 characters, productType and a client's
// industry 50, brandName 200 after trimming, hsCompanyId 100 after trimming, ...), so no value a
// route accepted before is refused now.
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

// ---- Clients: name, industry (an industry code, as productType), hsCompanyId ----

type ClientRoute = "createTeam" | "patch" | "adminUpdate" | "trial" | "rename";
let clientSeq = 0;
/** A new team under Acme Org (1002), made by staff. */
async function team(fields: Record<string, unknown> = {}): Promise<{ status: number; body: any; id: number | null }> {
  const res = await call(app, "staff", 1002, "POST", "/api/v1/Teams", { name: `Limits team ${++clientSeq}`, parentId: 1002, ...fields });
  return { ...res, id: res.status === 201 ? (res.body.id as number) : null };
}
async function writeClient(route: ClientRoute, fields: Record<string, unknown>): Promise<{ status: number; body: any; id: number | null }> {
  if (route === "createTeam") return team(fields);
  if (route === "trial") {
    const res = await call(app, "staff", null, "POST", "/api/v1/Clients/SetupTrialAccount", {
      name: `Trial ${++clientSeq}`,
      adminEmail: `owner${clientSeq}@trial.example`,
      ...fields,
    });
    return { ...res, id: res.status === 200 ? (res.body.clientId as number) : null };
  }
  const made = await team();
  expect(made.status, JSON.stringify(made.body).slice(0, 300)).toBe(201);
  const id = made.id!;
  const res =
    route === "patch"
      ? await call(app, "staff", id, "PATCH", `/api/v1/Clients(${id})`, fields)
      : route === "adminUpdate"
        ? await call(app, "ops", null, "POST", `/api/v1/Clients(${id})/AdminUpdate`, fields)
        : await call(app, "staff", id, "POST", `/api/v1/Teams(${id})/Rename`, fields);
  return { ...res, id };
}
async function client(id: number): Promise<{ name: string; industry: string | null; hsCompanyId: string | null }> {
  const [r] = await tdb.db<{ name: string; industry: string | null; hsCompanyId: string | null }[]>`
    select name, industry, hs_company_id as "hsCompanyId" from clients where id = ${id}`;
  return r!;
}
const passed = (route: ClientRoute) => (route === "createTeam" ? 201 : 200);

describe.each<ClientRoute>(["createTeam", "patch", "adminUpdate", "trial", "rename"])("Client name through %s", (route) => {
  test("trimmed before it is measured: 200 characters inside spaces pass, 201 and only spaces are refused", async () => {
    const name = `${"c".repeat(197)}${String(++clientSeq).padStart(3, "0")}`;
    const ok = await writeClient(route, { name: `  ${name} ` });
    expect(ok.status, JSON.stringify(ok.body).slice(0, 300)).toBe(passed(route));
    expect((await client(ok.id!)).name, "stored without the spaces").toBe(name);
    expectRefused(await writeClient(route, { name: ` ${"c".repeat(201)} ` }), "name", "patch");
    expectRefused(await writeClient(route, { name: "   " }), "name", "patch");
  });
});

describe.each<ClientRoute>(["createTeam", "patch", "adminUpdate", "trial"])("Client industry through %s", (route) => {
  test("a 50-character industry code passes; a 51-character one is refused by its length", async () => {
    const ok = await writeClient(route, { industry: CODE_50 });
    expect(ok.status, JSON.stringify(ok.body).slice(0, 300)).toBe(passed(route));
    expect((await client(ok.id!)).industry).toBe(CODE_50);
    expectRefused(await writeClient(route, { industry: CODE_51 }), "industry", "patch");
  });
});

describe.each<ClientRoute>(["adminUpdate"])("Client hsCompanyId through %s", (route) => {
  test("trimmed before it is measured: 100 characters inside spaces pass, 101 are refused", async () => {
    const ok = await writeClient(route, { hsCompanyId: ` ${"h".repeat(100)} ` });
    expect(ok.status, JSON.stringify(ok.body).slice(0, 300)).toBe(200);
    expect((await client(ok.id!)).hsCompanyId).toBe("h".repeat(100));
    expectRefused(await writeClient(route, { hsCompanyId: "h".repeat(101) }), "hsCompanyId", "patch");
  });
});

test("Client hsCompanyId through POST Enterprises: the same limit", async () => {
  const ok = await call(app, "staff", null, "POST", "/api/v1/Enterprises", { name: `Limits enterprise ${++clientSeq}`, hsCompanyId: ` ${"h".repeat(100)} ` });
  expect(ok.status, JSON.stringify(ok.body).slice(0, 300)).toBe(201);
  expect((await client(ok.body.id)).hsCompanyId).toBe("h".repeat(100));
  const over = await call(app, "staff", null, "POST", "/api/v1/Enterprises", { name: `Limits enterprise ${++clientSeq}`, hsCompanyId: "h".repeat(101) });
  expectRefused(over, "hsCompanyId", "create");
});

// ---- TestOptions: conceptText ----

type OptionRoute = "create" | "patch" | "superAdminUpdate";
describe.each<OptionRoute>(["create", "patch", "superAdminUpdate"])("TestOption conceptText through %s", (route) => {
  async function writeOption(conceptText: string): Promise<{ status: number; body: any; id: number | null }> {
    const projectId = await draft();
    if (route === "create") {
      const res = await call(app, "acmeUser", 1003, "POST", "/api/v1/TestOptions", { projectId, conceptText });
      return { ...res, id: res.status === 201 ? (res.body.id as number) : null };
    }
    const made = await call(app, "acmeUser", 1003, "POST", "/api/v1/TestOptions", { projectId, conceptText: "Concept" });
    expect(made.status).toBe(201);
    const id = made.body.id as number;
    const res =
      route === "patch"
        ? await call(app, "acmeUser", 1003, "PATCH", `/api/v1/TestOptions(${id})`, { conceptText })
        : await call(app, "staff", 1003, "POST", `/api/v1/TestOptions(${id})/SuperAdminUpdate`, { conceptText });
    return { ...res, id };
  }
  test("trimmed before it is measured: 500 characters inside spaces pass, 501 and only spaces are refused", async () => {
    const ok = await writeOption(`  ${"t".repeat(500)} `);
    expect(ok.status, JSON.stringify(ok.body).slice(0, 300)).toBe(route === "create" ? 201 : 200);
    const [r] = await tdb.db<{ conceptText: string }[]>`select concept_text as "conceptText" from test_options where id = ${ok.id!}`;
    expect(r!.conceptText, "stored without the spaces").toBe("t".repeat(500));
    expectRefused(await writeOption(` ${"t".repeat(501)} `), "conceptText", "patch");
    expectRefused(await writeOption("   "), "conceptText", "patch");
  });
});

// ---- Questions and their options: questionText, questionTitle, optionText ----

describe.each<"create" | "patch">(["create", "patch"])("Question fields through %s", (route) => {
  let projectId = 0;
  async function writeQuestion(fields: Record<string, unknown>): Promise<{ status: number; body: any; id: number | null }> {
    projectId ||= await draft();
    const base = { projectId, questionText: "Which flavour?", questionTypeId: 1, questionPositionId: 6, questionOptions: [{ optionText: "Salted" }, { optionText: "Sweet" }] };
    if (route === "create") {
      const res = await call(app, "acmeUser", 1003, "POST", "/api/v1/Questions", { ...base, ...fields });
      return { ...res, id: res.status === 201 ? (res.body.id as number) : null };
    }
    const made = await call(app, "acmeUser", 1003, "POST", "/api/v1/Questions", base);
    expect(made.status, JSON.stringify(made.body).slice(0, 300)).toBe(201);
    const res = await call(app, "acmeUser", 1003, "PATCH", `/api/v1/Questions(${made.body.id})`, fields);
    return { ...res, id: made.body.id as number };
  }
  async function question(id: number): Promise<{ questionText: string; questionTitle: string | null; options: string[] }> {
    const [q] = await tdb.db<{ questionText: string; questionTitle: string | null }[]>`
      select question_text as "questionText", question_title as "questionTitle" from questions where id = ${id}`;
    const options = await tdb.db<{ optionText: string }[]>`select option_text as "optionText" from question_options where question_id = ${id} order by sort_order, id`;
    return { ...q!, options: options.map((o) => o.optionText) };
  }
  const passed = route === "create" ? 201 : 200;

  test("questionText: trimmed, then 1 to 2,000 characters", async () => {
    const ok = await writeQuestion({ questionText: ` ${"q".repeat(2000)}  ` });
    expect(ok.status, JSON.stringify(ok.body).slice(0, 300)).toBe(passed);
    expect((await question(ok.id!)).questionText).toBe("q".repeat(2000));
    expectRefused(await writeQuestion({ questionText: ` ${"q".repeat(2001)} ` }), "questionText", "patch");
    expectRefused(await writeQuestion({ questionText: "  " }), "questionText", "patch");
  });

  test("questionTitle: trimmed, then at most 200 characters", async () => {
    const ok = await writeQuestion({ questionTitle: `  ${"t".repeat(200)} ` });
    expect(ok.status, JSON.stringify(ok.body).slice(0, 300)).toBe(passed);
    expect((await question(ok.id!)).questionTitle).toBe("t".repeat(200));
    expectRefused(await writeQuestion({ questionTitle: "t".repeat(201) }), "questionTitle", "patch");
  });

  test("optionText: trimmed, then 1 to 500 characters", async () => {
    const ok = await writeQuestion({ questionOptions: [{ optionText: ` ${"o".repeat(500)} ` }, { optionText: "Sweet" }] });
    expect(ok.status, JSON.stringify(ok.body).slice(0, 300)).toBe(passed);
    expect((await question(ok.id!)).options[0]).toBe("o".repeat(500));
    expectRefused(await writeQuestion({ questionOptions: [{ optionText: "o".repeat(501) }, { optionText: "Sweet" }] }), "questionOptions.0.optionText", "patch");
  });
});
