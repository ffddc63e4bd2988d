// Project authoring through the API: creating projects with their framework's standard questions,
// custom questions and options, order, routing, regions and targets, price sensitivity and market
// reach set-ups, objectives, the trash, and the submitted-project lock; with the error and
// security cases of each call (another tenant, a Viewer, a submitted project).
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { createTestDb, type TestDb } from "../helpers/db.ts";
import { call, testApp } from "../helpers/app.ts";
import type { App } from "../../api/src/app.ts";
import { DEFAULT_OBJECTIVE } from "../../api/src/domains/projects/projects.service.ts";
import { synthesizeQuestion } from "../../api/src/domains/projects/synth.ts";

let tdb: TestDb;
let app: App;
beforeAll(async () => {
  tdb = await createTestDb();
  app = testApp(tdb.db);
});
afterAll(async () => {
  await tdb.drop();
});

type Who = "staff" | "ops" | "acmeAdmin" | "acmeUser" | "acmeViewer" | "globexAdmin";
const acme = (method: string, path: string, body?: unknown) => call(app, "acmeUser", 1003, method, path, body);
const as = (who: Who, clientId: number | null, method: string, path: string, body?: unknown) => call(app, who, clientId, method, path, body);

interface PQ {
  id: number;
  standardQuestionId: number | null;
  questionPositionId: number;
  sortOrder: number;
  testOptionId: number | null;
  questionId: number;
  question: { questionText: string; questionTypeId: number; questionOptions: { id: number; optionText: string; standardAnswerValue: number | null; exclusive: boolean }[] };
}

async function newProject(body: Record<string, unknown> = {}, who: Who = "acmeUser", clientId = 1003) {
  const res = await as(who, clientId, "POST", "/api/v1/Projects", { projectName: "Winter bars", projectTypeId: 1, frameworkId: 1000, ...body });
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  return res.body as { id: number; projectQuestions: PQ[]; [k: string]: unknown };
}

async function addTestOption(projectId: number, conceptText: string, clientId = 1003, who: Who = "acmeUser") {
  const res = await as(who, clientId, "POST", "/api/v1/TestOptions", { projectId, conceptText });
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  return res.body.id as number;
}

async function projectQuestions(projectId: number): Promise<PQ[]> {
  const res = await acme("GET", `/api/v1/ProjectQuestions?$filter=projectId eq ${projectId}&$orderby=questionPositionId,sortOrder,id&$expand=question($expand=questionOptions)`);
  expect(res.status).toBe(200);
  return res.body.value;
}

describe("POST Projects", () => {
  test("an Idea project with framework 1000: a Draft of the caller with the standard questions in SPEC 9 order", async () => {
    const p = await newProject({ regionIds: [1, 2], categoryId: 101, brandName: "Acme" });
    expect(p.statusCode, "a new project is a Draft").toBe(0);
    expect(p.clientId).toBe(1003);
    expect(p.ownerUserId, "the caller owns it").toBe(9004);
    expect(p.createdByUserId).toBe(9004);
    expect(p.productType, "the client's industry by default").toBe("fmcg");
    expect(p.isBranded, "a brand name makes it branded").toBe(true);
    expect(p.projectType).toBe("Idea");
    const std = p.projectQuestions.map((q) => q.standardQuestionId);
    expect(std, "SPEC 9: 5, 1, 4, 3, 2, then the framework's others (7)").toEqual([5, 1, 4, 3, 2, 7]);
    expect(
      p.projectQuestions.map((q) => q.questionPositionId),
      "standard questions at position 5",
    ).toEqual([5, 5, 5, 5, 5, 5]);
    expect(p.projectQuestions.map((q) => q.sortOrder)).toEqual([1, 2, 3, 4, 5, 6]);
    const likability = p.projectQuestions[0]!.question;
    expect(likability.questionText).toBe("Overall, how much do you like this?");
    expect(
      likability.questionOptions.map((o) => o.standardAnswerValue),
      "options carry the 4-point scale",
    ).toEqual([1, 2, 3, 4]);
    expect(p.projectQuestions[5]!.question.questionTypeId, "What you like most is open text").toBe(3);
    expect((p.activeProjectObjective as { summary: string }).summary, "the default objective is active").toBe(DEFAULT_OBJECTIVE);
    expect((p.projectsRegions as { regionId: number }[]).map((r) => r.regionId)).toEqual([1, 2]);
  });

  test("Message 2000 and Npd 4000 get their frameworks' questions; Question 3000 none", async () => {
    const msg = await newProject({ projectTypeId: 2, frameworkId: 2000 });
    expect(
      msg.projectQuestions.map((q) => q.standardQuestionId),
      "5, 1, 4, 2 by SPEC 9, then 24 and 10 in the framework's order",
    ).toEqual([5, 1, 4, 2, 24, 10]);
    const npd = await newProject({ projectTypeId: 4, frameworkId: 4000, launchDate: "2026-01-05" });
    expect(npd.projectQuestions.map((q) => q.standardQuestionId)).toEqual([3, 9, 11, 8, 13, 14, 15, 16, 17, 18, 23]);
    expect(npd.launchDate).toBe("2026-01-05");
    const adhoc = await newProject({ projectTypeId: 3, frameworkId: 3000 });
    expect(adhoc.projectQuestions).toEqual([]);
  });

  test("price sensitivity (1010) and market reach (1020) frameworks leave their add-on questions to the set-up calls", async () => {
    const ps = await newProject({ frameworkId: 1010 });
    expect(ps.projectQuestions.map((q) => q.standardQuestionId)).toEqual([5, 1, 4, 3, 2, 7]);
    const mr = await newProject({ frameworkId: 1020 });
    expect(mr.projectQuestions.some((q) => q.standardQuestionId === 25)).toBe(false);
  });

  test("the default region is the team's, else 1", async () => {
    const p = await newProject();
    expect(
      (p.projectsRegions as { regionId: number }[]).map((r) => r.regionId),
      "team 1003's default region is 1",
    ).toEqual([1]);
    const b = await newProject({}, "acmeAdmin", 1004);
    expect(
      (b.projectsRegions as { regionId: number }[]).map((r) => r.regionId),
      "team 1004's default region is 2",
    ).toEqual([2]);
  });

  test("a framework that does not fit the type is a 400 naming frameworkId", async () => {
    const res = await acme("POST", "/api/v1/Projects", { projectName: "x", projectTypeId: 1, frameworkId: 2000 });
    expect(res.status).toBe(400);
    expect(res.body.errors[0].path).toBe("frameworkId");
    const npd = await acme("POST", "/api/v1/Projects", { projectName: "x", projectTypeId: 4, frameworkId: 1000 });
    expect(npd.status).toBe(400);
    const none = await acme("POST", "/api/v1/Projects", { projectName: "x", projectTypeId: 3, frameworkId: 3999 });
    expect(none.status).toBe(400);
  });

  test("3998 (usage and attitude seeding) is for staff only", async () => {
    const user = await acme("POST", "/api/v1/Projects", { projectName: "Seed", projectTypeId: 3, frameworkId: 3998 });
    expect(user.status).toBe(400);
    expect(user.body.errors[0].path).toBe("frameworkId");
    const staff = await as("ops", 1003, "POST", "/api/v1/Projects", { projectName: "Seed", projectTypeId: 3, frameworkId: 3998 });
    expect(staff.status, JSON.stringify(staff.body)).toBe(201);
    expect(staff.body.ownerUserId).toBe(9002);
  });

  test("US state regions need CanChooseUsStateMarkets: a 400 naming the region without it", async () => {
    const res = await acme("POST", "/api/v1/Projects", { projectName: "US", projectTypeId: 1, frameworkId: 1000, regionIds: [15, 59] });
    expect(res.status).toBe(400);
    expect(res.body.message).toContain("Region 59 (California)");
    expect(res.body.message).toContain("CanChooseUsStateMarkets");
    expect(res.body.errors).toEqual([{ path: "regionIds.1", message: expect.stringContaining("59") }]);
    // Globex has the flag through its ClientFeatures row.
    const globex = await newProject({ regionIds: [15, 59] }, "globexAdmin", 2001);
    expect((globex.projectsRegions as { regionId: number }[]).map((r) => r.regionId).sort()).toEqual([15, 59]);
    // Switched on for everyone, Acme may too.
    await tdb.db`update feature_flags set is_enabled = true where ff = 'CanChooseUsStateMarkets'`;
    try {
      const on = await acme("POST", "/api/v1/Projects", { projectName: "US", projectTypeId: 1, frameworkId: 1000, regionIds: [59] });
      expect(on.status).toBe(201);
    } finally {
      await tdb.db`update feature_flags set is_enabled = false where ff = 'CanChooseUsStateMarkets'`;
    }
  });

  test("bad bodies: missing fields, unknown fields, unknown regions, categories and industries", async () => {
    const empty = await acme("POST", "/api/v1/Projects", {});
    expect(empty.status).toBe(400);
    expect(empty.body.errors.map((e: { path: string }) => e.path)).toEqual(expect.arrayContaining(["projectName", "projectTypeId", "frameworkId"]));
    const extra = await acme("POST", "/api/v1/Projects", { projectName: "x", projectTypeId: 1, frameworkId: 1000, statusCode: 900 });
    expect(extra.status, "the status is never taken from a body").toBe(400);
    const region = await acme("POST", "/api/v1/Projects", { projectName: "x", projectTypeId: 1, frameworkId: 1000, regionIds: [424242] });
    expect(region.status).toBe(400);
    expect(region.body.message).toContain("424242");
    const cat = await acme("POST", "/api/v1/Projects", { projectName: "x", projectTypeId: 1, frameworkId: 1000, categoryId: 999999 });
    expect(cat.status).toBe(400);
    const ind = await acme("POST", "/api/v1/Projects", { projectName: "x", projectTypeId: 1, frameworkId: 1000, productType: "nope" });
    expect(ind.status).toBe(400);
  });

  test("security: a Viewer cannot create; nobody creates in another tenant; projects belong to teams", async () => {
    const body = { projectName: "x", projectTypeId: 1, frameworkId: 1000 };
    expect((await as("acmeViewer", 1003, "POST", "/api/v1/Projects", body)).status, "Viewer").toBe(403);
    expect((await as("globexAdmin", 1003, "POST", "/api/v1/Projects", body)).status, "Globex into Acme").toBe(403);
    expect((await as("acmeUser", 2001, "POST", "/api/v1/Projects", body)).status, "Acme into Globex").toBe(403);
    const org = await as("acmeAdmin", 1002, "POST", "/api/v1/Projects", body);
    expect(org.status, "an org is not a team").toBe(400);
    const noClient = await as("staff", null, "POST", "/api/v1/Projects", body);
    expect(noClient.status).toBe(400);
  });
});

describe("questions and options", () => {
  let projectId: number;
  let screenerPq: number;
  let screenerOptions: number[];
  beforeAll(async () => {
    projectId = (await newProject({ regionIds: [1, 2] })).id;
  });

  test("a screener (single choice) is added at position 1 with its options", async () => {
    const res = await acme("POST", "/api/v1/Questions", {
      projectId,
      questionText: "Do you buy snack bars?",
      questionTypeId: 1,
      questionPositionId: 1,
      questionOptions: [{ optionText: "Yes" }, { optionText: "No" }],
    });
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    expect(res.body.projectId).toBe(projectId);
    expect(res.body.questionOptions.map((o: { optionText: string }) => o.optionText)).toEqual(["Yes", "No"]);
    expect(res.body.projectQuestions).toHaveLength(1);
    expect(res.body.projectQuestions[0].questionPositionId).toBe(1);
    expect(res.body.projectQuestions[0].sortOrder).toBe(1);
    screenerPq = res.body.projectQuestions[0].id;
    screenerOptions = res.body.questionOptions.map((o: { id: number }) => o.id);
  });

  test("multiple choice with an exclusive option, dropdown and text questions; follow-ups after the loop", async () => {
    const multi = await acme("POST", "/api/v1/Questions", {
      projectId,
      questionText: "Which of these do you buy?",
      questionTypeId: 2,
      questionPositionId: 1,
      maxChoices: 3,
      questionOptions: [{ optionText: "Bars" }, { optionText: "Chips" }, { optionText: "Nuts" }, { optionText: "None of these", exclusive: true }],
    });
    expect(multi.status, JSON.stringify(multi.body)).toBe(201);
    expect(multi.body.questionOptions.map((o: { exclusive: boolean }) => o.exclusive)).toEqual([false, false, false, true]);
    expect(multi.body.projectQuestions[0].sortOrder, "appended to the screener group").toBe(2);
    const before = await acme("POST", "/api/v1/Questions", {
      projectId,
      questionText: "Where do you live?",
      questionTypeId: 4,
      questionPositionId: 7,
      questionOptions: [{ optionText: "North" }, { optionText: "South" }],
    });
    expect(before.status).toBe(201);
    expect(before.body.projectQuestions[0].sortOrder, "position 7 shares position 1's list (SPEC 9)").toBe(3);
    const text = await acme("POST", "/api/v1/Questions", { projectId, questionText: "Anything else?", questionTypeId: 3, questionPositionId: 3 });
    expect(text.status).toBe(201);
    expect(text.body.questionOptions).toEqual([]);
    expect(text.body.projectQuestions[0].questionPositionId).toBe(3);
  });

  test("routing: a follow-up shown only to those who answered Yes", async () => {
    const res = await acme("POST", "/api/v1/Questions", {
      projectId,
      questionText: "Why do you buy them?",
      questionTypeId: 3,
      questionPositionId: 3,
      routing: { routingConditions: [{ projectQuestionId: screenerPq, questionOptionIds: [screenerOptions[0]] }] },
    });
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    expect(res.body.projectQuestions[0].routing).toEqual({ routingConditions: [{ projectQuestionId: screenerPq, questionOptionIds: [screenerOptions[0]] }] });
    const bad = await acme("POST", "/api/v1/Questions", {
      projectId,
      questionText: "Why?",
      questionTypeId: 3,
      questionPositionId: 3,
      routing: { routingConditions: [{ projectQuestionId: screenerPq, questionOptionIds: [1001] }] },
    });
    expect(bad.status, "an option of another question").toBe(400);
    expect(bad.body.errors[0].path).toBe("routing.routingConditions.0.questionOptionIds.0");
    const foreign = await acme("POST", "/api/v1/Questions", {
      projectId,
      questionText: "Why?",
      questionTypeId: 3,
      questionPositionId: 3,
      routing: { routingConditions: [{ projectQuestionId: 1001, questionOptionIds: [1009] }] },
    });
    expect(foreign.status, "a project question of another project").toBe(400);
  });

  test("shape errors: text with options, one option, exclusive on single choice, position 5, no position, foreign test option", async () => {
    const base = { projectId, questionText: "Q?", questionPositionId: 6 };
    const cases: [string, Record<string, unknown>, string][] = [
      ["text with options", { ...base, questionTypeId: 3, questionOptions: [{ optionText: "a" }, { optionText: "b" }] }, "questionOptions"],
      ["one option", { ...base, questionTypeId: 1, questionOptions: [{ optionText: "a" }] }, "questionOptions"],
      ["duplicate options", { ...base, questionTypeId: 1, questionOptions: [{ optionText: "a" }, { optionText: "A" }] }, "questionOptions.1.optionText"],
      ["exclusive on single", { ...base, questionTypeId: 1, questionOptions: [{ optionText: "a" }, { optionText: "b", exclusive: true }] }, "questionOptions.1.exclusive"],
      ["position 5", { ...base, questionTypeId: 3, questionPositionId: 5 }, "questionPositionId"],
      ["no position", { projectId, questionText: "Q?", questionTypeId: 3 }, "questionPositionId"],
      ["foreign test option", { ...base, questionTypeId: 3, testOptionId: 2001 }, "testOptionId"],
      ["another client's file", { ...base, questionTypeId: 3, s3File: { key: "clients/2001/x.png", fileType: "image/png" } }, "s3File.key"],
    ];
    for (const [what, body, path] of cases) {
      const res = await acme("POST", "/api/v1/Questions", body);
      expect(res.status, what).toBe(400);
      expect(
        res.body.errors.map((e: { path: string }) => e.path),
        what,
      ).toContain(path);
    }
  });

  test("PATCH replaces the options: kept by id, added without, removed when missing", async () => {
    const created = await acme("POST", "/api/v1/Questions", {
      projectId,
      questionText: "Favourite flavour?",
      questionTypeId: 1,
      questionPositionId: 6,
      questionOptions: [{ optionText: "Salted" }, { optionText: "Sweet" }, { optionText: "Sour" }],
    });
    const [salted, sweet] = created.body.questionOptions as { id: number }[];
    const res = await acme("PATCH", `/api/v1/Questions(${created.body.id})`, {
      questionText: "Your favourite flavour?",
      questionOptions: [{ id: sweet!.id, optionText: "Sweet" }, { id: salted!.id, optionText: "Salty" }, { optionText: "Spicy" }],
      questionPositionId: 3,
    });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body.questionText).toBe("Your favourite flavour?");
    expect(res.body.questionOptions.map((o: { optionText: string }) => o.optionText)).toEqual(["Sweet", "Salty", "Spicy"]);
    expect(res.body.questionOptions[0].id, "kept by id").toBe(sweet!.id);
    expect(res.body.projectQuestions[0].questionPositionId).toBe(3);
    const foreignOption = await acme("PATCH", `/api/v1/Questions(${created.body.id})`, { questionOptions: [{ id: 1001, optionText: "x" }, { optionText: "y" }] });
    expect(foreignOption.status).toBe(400);
    const toText = await acme("PATCH", `/api/v1/Questions(${created.body.id})`, { questionTypeId: 3 });
    expect(toText.status, "a text question has no options").toBe(400);
    const nothing = await acme("PATCH", `/api/v1/Questions(${created.body.id})`, {});
    expect(nothing.status).toBe(400);
  });

  test("a standard question keeps its type and scale: only its wording changes", async () => {
    const pqs = await projectQuestions(projectId);
    const likability = pqs.find((q) => q.standardQuestionId === 5)!;
    const type = await acme("PATCH", `/api/v1/Questions(${likability.questionId})`, { questionTypeId: 2 });
    expect(type.status).toBe(400);
    const opts = likability.question.questionOptions;
    const drop = await acme("PATCH", `/api/v1/Questions(${likability.questionId})`, { questionOptions: opts.slice(0, 3).map((o) => ({ id: o.id, optionText: o.optionText })) });
    expect(drop.status).toBe(400);
    const move = await acme("PATCH", `/api/v1/Questions(${likability.questionId})`, { questionPositionId: 6 });
    expect(move.status).toBe(400);
    const reword = await acme("PATCH", `/api/v1/Questions(${likability.questionId})`, {
      questionText: "How much do you like this idea?",
      questionOptions: opts.map((o, i) => ({ id: o.id, optionText: i === 0 ? "Love it" : o.optionText })),
    });
    expect(reword.status, JSON.stringify(reword.body)).toBe(200);
    expect(reword.body.questionOptions[0].optionText).toBe("Love it");
    expect(reword.body.questionOptions[0].standardAnswerValue, "the scale value stays").toBe(1);
  });

  test("template questions of the client (no project) and QuestionTemplates through the generic layer", async () => {
    const q = await acme("POST", "/api/v1/Questions", { questionText: "How often do you snack?", questionTypeId: 1, questionOptions: [{ optionText: "Daily" }, { optionText: "Weekly" }] });
    expect(q.status, JSON.stringify(q.body)).toBe(201);
    expect(q.body.projectId).toBe(null);
    expect(q.body.projectQuestions).toEqual([]);
    const placed = await acme("POST", "/api/v1/Questions", { questionText: "x", questionTypeId: 3, questionPositionId: 1 });
    expect(placed.status, "a template has no position").toBe(400);
    const t = await acme("POST", "/api/v1/QuestionTemplates", { questionId: q.body.id, name: "Snacking", questionPositionId: 1 });
    expect(t.status, JSON.stringify(t.body)).toBe(201);
    const del = await acme("POST", `/api/v1/Questions(${q.body.id})/DeleteTemplateQuestion`, {});
    expect(del.status).toBe(204);
    expect((await acme("GET", `/api/v1/QuestionTemplates(${t.body.id})`)).status, "its templates went too").toBe(404);
    expect((await acme("GET", `/api/v1/Questions(${q.body.id})`)).status).toBe(404);
    const projectQ = await acme("POST", `/api/v1/Questions(${screenerPq})/DeleteTemplateQuestion`, {});
    expect(projectQ.status, "a project's question is not a template").toBe(404);
    const undo = await acme("POST", `/api/v1/QuestionTemplates(${t.body.id})/Undelete`, {});
    expect(undo.status).toBe(200);
    expect((await acme("GET", `/api/v1/Questions(${q.body.id})`)).status, "undeleting the template restores its question").toBe(200);
  });

  test("security: a Viewer cannot write; Globex cannot add to or change Acme's questions", async () => {
    const body = { projectId, questionText: "Q?", questionTypeId: 3, questionPositionId: 6 };
    expect((await as("acmeViewer", 1003, "POST", "/api/v1/Questions", body)).status).toBe(403);
    const g = await as("globexAdmin", 2001, "POST", "/api/v1/Questions", body);
    expect(g.status, "another tenant's project is not found").toBe(404);
    const shared = await as("globexAdmin", 2001, "POST", "/api/v1/Questions", { ...body, projectId: 1001 });
    expect(shared.status, "a project shared with Globex is read-only to it").toBe(404);
    const patch = await as("globexAdmin", 2001, "PATCH", "/api/v1/Questions(1001)", { questionText: "mine" });
    expect(patch.status).toBe(404);
    expect((await as("acmeViewer", 1003, "PATCH", "/api/v1/Questions(1001)", { questionText: "x" })).status).toBe(403);
  });
});

describe("order and synthesised questions", () => {
  let projectId: number;
  beforeAll(async () => {
    projectId = (await newProject()).id;
  });

  test("SortOrderChange reorders one position group; the list answers with SPEC 9 sort keys", async () => {
    const pqs = await projectQuestions(projectId);
    const ids = pqs.filter((q) => q.questionPositionId === 5).map((q) => q.id);
    const reversed = [...ids].reverse();
    const res = await acme("POST", "/api/v1/ProjectQuestions/SortOrderChange", { projectId, projectQuestionIds: reversed });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body.value.map((r: { id: number }) => r.id)).toEqual(reversed);
    expect(res.body.value.map((r: { sortKey: number }) => r.sortKey)).toEqual(reversed.map((_, i) => 5_000_000 + i + 1));
    const after = await projectQuestions(projectId);
    expect(after.filter((q) => q.questionPositionId === 5).map((q) => q.id)).toEqual(reversed);
  });

  test("Screener and BeforeLoop questions are one group (position 7 counts as 1)", async () => {
    const a = await acme("POST", "/api/v1/Questions", { projectId, questionText: "A?", questionTypeId: 3, questionPositionId: 1 });
    const b = await acme("POST", "/api/v1/Questions", { projectId, questionText: "B?", questionTypeId: 3, questionPositionId: 7 });
    const [pa, pb] = [a.body.projectQuestions[0].id, b.body.projectQuestions[0].id];
    const res = await acme("POST", "/api/v1/ProjectQuestions/SortOrderChange", { projectId, projectQuestionIds: [pb, pa] });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body.value).toEqual([
      expect.objectContaining({ id: pb, questionPositionId: 7, sortOrder: 1, sortKey: 1_000_001 }),
      expect.objectContaining({ id: pa, questionPositionId: 1, sortOrder: 2, sortKey: 1_000_002 }),
    ]);
  });

  test("questions added at the same time to one group get distinct places (the project row is locked per write)", async () => {
    const p = await newProject({ projectTypeId: 3, frameworkId: 3000 });
    const made = await Promise.all([1, 2, 3, 4, 5].map((i) => acme("POST", "/api/v1/Questions", { projectId: p.id, questionText: `Q${i}?`, questionTypeId: 3, questionPositionId: 6 })));
    expect(made.map((r) => r.status)).toEqual([201, 201, 201, 201, 201]);
    expect(made.map((r) => r.body.projectQuestions[0].sortOrder).sort()).toEqual([1, 2, 3, 4, 5]);
  });

  test("SortOrderChange errors: a partial group, two groups, a foreign question, a duplicate", async () => {
    const pqs = await projectQuestions(projectId);
    const std = pqs.filter((q) => q.questionPositionId === 5).map((q) => q.id);
    const partial = await acme("POST", "/api/v1/ProjectQuestions/SortOrderChange", { projectId, projectQuestionIds: std.slice(1) });
    expect(partial.status).toBe(400);
    expect(partial.body.message).toContain("every question of the group");
    const screener = pqs.find((q) => q.questionPositionId === 1)!.id;
    const mixed = await acme("POST", "/api/v1/ProjectQuestions/SortOrderChange", { projectId, projectQuestionIds: [...std, screener] });
    expect(mixed.status).toBe(400);
    const foreign = await acme("POST", "/api/v1/ProjectQuestions/SortOrderChange", { projectId, projectQuestionIds: [1002] });
    expect(foreign.status).toBe(400);
    const dup = await acme("POST", "/api/v1/ProjectQuestions/SortOrderChange", { projectId, projectQuestionIds: [...std, std[0]] });
    expect(dup.status).toBe(400);
    const viewer = await as("acmeViewer", 1003, "POST", "/api/v1/ProjectQuestions/SortOrderChange", { projectId, projectQuestionIds: std });
    expect(viewer.status).toBe(403);
    const globex = await as("globexAdmin", 2001, "POST", "/api/v1/ProjectQuestions/SortOrderChange", { projectId, projectQuestionIds: std });
    expect(globex.status).toBe(404);
  });

  test("ProcessSynthQuestion turns 'Question? a / b / c' into a single-choice question of the project", async () => {
    const res = await acme("POST", "/api/v1/ProjectQuestions/ProcessSynthQuestion", { projectId, text: "Which flavour do you prefer? Salted / Sweet / Sour" });
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    expect(res.body.questionPositionId, "Custom by default").toBe(6);
    expect(res.body.question.questionText).toBe("Which flavour do you prefer?");
    expect(res.body.question.questionTypeId).toBe(1);
    expect(res.body.question.questionOptions.map((o: { optionText: string }) => o.optionText)).toEqual(["Salted", "Sweet", "Sour"]);
    const multi = await acme("POST", "/api/v1/ProjectQuestions/ProcessSynthQuestion", {
      projectId,
      text: "Which do you buy? (select all that apply)\n- Bars\n- Chips\n- None of these",
      questionPositionId: 1,
    });
    expect(multi.status).toBe(201);
    expect(multi.body.question.questionTypeId).toBe(2);
    expect(multi.body.question.questionOptions.map((o: { exclusive: boolean }) => o.exclusive)).toEqual([false, false, true]);
    expect((await acme("POST", "/api/v1/ProjectQuestions/ProcessSynthQuestion", { projectId, text: "  " })).status).toBe(400);
    expect((await as("acmeViewer", 1003, "POST", "/api/v1/ProjectQuestions/ProcessSynthQuestion", { projectId, text: "Q? a / b" })).status).toBe(403);
  });

  test("the synthesiser is deterministic and follows its rules", () => {
    expect(synthesizeQuestion("What do you like most about it?")).toEqual({ questionText: "What do you like most about it?", questionTypeId: 3, questionOptions: [] });
    expect(synthesizeQuestion("Tea or coffee?").questionOptions.map((o) => o.optionText)).toEqual(["Tea", "Coffee"]);
    expect(synthesizeQuestion("Age: 18-24; 25-34; 35+").questionOptions.map((o) => o.optionText)).toEqual(["18-24", "25-34", "35+"]);
    expect(synthesizeQuestion(`Pick one? ${"abcdefghijkl".split("").join(" / ")}`).questionTypeId, "more than 10 options: dropdown").toBe(4);
    const other = synthesizeQuestion("Brand?\n1. Acme\n2. Other (please specify)\n3. Don't know");
    expect(other.questionOptions).toEqual([
      { optionText: "Acme", exclusive: false, isOther: false },
      { optionText: "Other (please specify)", exclusive: false, isOther: true },
      { optionText: "Don't know", exclusive: false, isOther: false },
    ]);
    // Rule 2 by hand: the question up to its last "?" (kept), the rest split on "/"; two options: single (rule 3).
    const ab = {
      questionText: "Q?",
      questionTypeId: 1 as const,
      questionOptions: [
        { optionText: "a", exclusive: false, isOther: false },
        { optionText: "b", exclusive: false, isOther: false },
      ],
    };
    expect(synthesizeQuestion("Q? a / b")).toEqual(ab);
    expect(synthesizeQuestion("Q? a / b"), "the same text, the same question").toEqual(ab);
  });
});

describe("regions and targets", () => {
  let projectId: number;
  let screenerOption: number;
  beforeAll(async () => {
    projectId = (await newProject({ regionIds: [1, 2] })).id;
    const s = await acme("POST", "/api/v1/Questions", {
      projectId,
      questionText: "Do you buy snack bars?",
      questionTypeId: 1,
      questionPositionId: 1,
      questionOptions: [{ optionText: "Yes" }, { optionText: "No" }],
    });
    screenerOption = s.body.questionOptions[0].id;
  });

  test("ChangeTargets replaces the targets: demographics (per region) and screener answers", async () => {
    const res = await acme("POST", `/api/v1/Projects(${projectId})/ChangeTargets`, {
      targets: [
        { systemQuestionOptionId: 5100002, regionId: 1, quotaPercent: 40 },
        { systemQuestionOptionId: 4200102 },
        { systemQuestionOptionId: 4500002, regionId: 2 },
        { questionOptionId: screenerOption },
      ],
    });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    const rows = res.body.value as { systemQuestionOptionId: number | null; questionOptionId: number | null; regionId: number | null; questionId: number | null; quotaPercent: number | null }[];
    expect(rows).toHaveLength(4);
    expect(rows.find((r) => r.systemQuestionOptionId === 4200102)!.regionId, "a regional option targets its region").toBe(1);
    expect(rows.find((r) => r.questionOptionId === screenerOption)!.questionId, "the screener's question is recorded").not.toBe(null);
    expect(rows.find((r) => r.systemQuestionOptionId === 5100002)!.quotaPercent).toBe(40);
    const again = await acme("POST", `/api/v1/Projects(${projectId})/ChangeTargets`, { targets: [{ systemQuestionOptionId: 5100003 }] });
    expect(
      again.body.value.map((r: { systemQuestionOptionId: number }) => r.systemQuestionOptionId),
      "replaced, not added",
    ).toEqual([5100003]);
  });

  test("ChangeTargets errors name the target", async () => {
    const url = `/api/v1/Projects(${projectId})/ChangeTargets`;
    const cases: [string, unknown, string][] = [
      ["both kinds", { targets: [{ systemQuestionOptionId: 5100002, questionOptionId: screenerOption }] }, "targets.0"],
      ["neither", { targets: [{ regionId: 1 }] }, "targets.0"],
      ["unknown option", { targets: [{ systemQuestionOptionId: 1 }] }, "targets.0.systemQuestionOptionId"],
      ["another region's option", { targets: [{ systemQuestionOptionId: 4201501 }] }, "targets.0.systemQuestionOptionId"],
      ["a region the project does not field in", { targets: [{ systemQuestionOptionId: 5100002, regionId: 15 }] }, "targets.0.regionId"],
      ["another project's option", { targets: [{ questionOptionId: 1009 }] }, "targets.0.questionOptionId"],
      ["twice", { targets: [{ systemQuestionOptionId: 5100002 }, { systemQuestionOptionId: 5100002 }] }, "targets.1"],
    ];
    for (const [what, body, path] of cases) {
      const res = await acme("POST", url, body);
      expect(res.status, what).toBe(400);
      expect(
        res.body.errors.map((e: { path: string }) => e.path),
        what,
      ).toContain(path);
    }
    const pqs = await projectQuestions(projectId);
    const notScreener = pqs.find((q) => q.standardQuestionId === 5)!.question.questionOptions[0]!.id;
    const std = await acme("POST", url, { targets: [{ questionOptionId: notScreener }] });
    expect(std.status, "only screener questions target").toBe(400);
  });

  test("ChangeTargets with regionIds sets the regions; DeleteRegions removes regions and their targets", async () => {
    const res = await acme("POST", `/api/v1/Projects(${projectId})/ChangeTargets`, {
      regionIds: [1, 2, 17],
      targets: [{ systemQuestionOptionId: 5100002, regionId: 2 }, { systemQuestionOptionId: 5100002, regionId: 17 }, { systemQuestionOptionId: 5100004 }],
    });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    const del = await acme("POST", `/api/v1/Projects(${projectId})/DeleteRegions`, { regionIds: [2] });
    expect(del.status, JSON.stringify(del.body)).toBe(200);
    expect(del.body.value.map((r: { regionId: number }) => r.regionId)).toEqual([1, 17]);
    const targets = await acme("GET", `/api/v1/Targets?$filter=projectId eq ${projectId}&$orderby=id`);
    expect(
      targets.body.value.map((t: { regionId: number | null }) => t.regionId),
      "region 2's target went",
    ).toEqual([17, null]);
    const all = await acme("POST", `/api/v1/Projects(${projectId})/DeleteRegions`, { regionIds: [1, 17] });
    expect(all.status, "a project keeps at least one region").toBe(400);
    const notThere = await acme("POST", `/api/v1/Projects(${projectId})/DeleteRegions`, { regionIds: [15] });
    expect(notThere.status).toBe(400);
    expect(notThere.body.message).toContain("15");
    const us = await acme("POST", `/api/v1/Projects(${projectId})/ChangeTargets`, { regionIds: [1, 60], targets: [] });
    expect(us.status, "US states stay behind the flag").toBe(400);
    expect(us.body.message).toContain("Region 60 (Colorado)");
  });

  test("security: Viewer and Globex are refused; a submitted project is locked", async () => {
    const body = { targets: [{ systemQuestionOptionId: 5100002 }] };
    expect((await as("acmeViewer", 1003, "POST", `/api/v1/Projects(${projectId})/ChangeTargets`, body)).status).toBe(403);
    expect((await as("globexAdmin", 2001, "POST", `/api/v1/Projects(${projectId})/ChangeTargets`, body)).status).toBe(404);
    expect((await as("globexAdmin", 2001, "POST", `/api/v1/Projects(${projectId})/DeleteRegions`, { regionIds: [1] })).status).toBe(404);
    const locked = await acme("POST", "/api/v1/Projects(1001)/ChangeTargets", body);
    expect(locked.status).toBe(409);
    expect(locked.body.message).toContain("submitted");
    expect((await acme("POST", "/api/v1/Projects(1001)/DeleteRegions", { regionIds: [2] })).status).toBe(409);
  });

  test("TargetQuestionsWithCounts: demographics of the project's regions and its screeners, with past respondents per option", async () => {
    const res = await acme("GET", "/api/v1/Questions/TargetQuestionsWithCounts?projectId=1001");
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    const value = res.body.value as {
      source: string;
      id: number;
      options: { systemQuestionOptionId: number | null; questionOptionId: number | null; count: number; isTarget: boolean; regionId: number | null }[];
    }[];
    const age = value.find((q) => q.source === "system" && q.id === 51)!;
    expect(age.options.find((o) => o.systemQuestionOptionId === 5100002)!.count, "session 1001 (NZ) is 25-34").toBe(1);
    expect(age.options.find((o) => o.systemQuestionOptionId === 5100002)!.isTarget, "project 1001 targets 25-34").toBe(true);
    expect(age.options.find((o) => o.systemQuestionOptionId === 5100005)!.count, "Globex's USA respondents are not in NZ or AU").toBe(0);
    const region = value.find((q) => q.source === "system" && q.id === 42)!;
    expect(new Set(region.options.map((o) => o.regionId)), "region options of NZ and AU only").toEqual(new Set([1, 2]));
    const screener = value.find((q) => q.source === "question")!;
    expect(screener.id).toBe(1004);
    expect(screener.options.find((o) => o.questionOptionId === 1009)!.count, "two sessions answered Yes").toBe(2);
    const nz = await acme("GET", `/api/v1/Questions/TargetQuestionsWithCounts?projectId=1001&filters=${encodeURIComponent(JSON.stringify({ regionIds: [2] }))}`);
    const nzAge = (nz.body.value as typeof value).find((q) => q.id === 51)!;
    expect(nzAge.options.find((o) => o.systemQuestionOptionId === 5100004)!.count, "AU session 1003 is 45-54").toBe(1);
    expect(nzAge.options.find((o) => o.systemQuestionOptionId === 5100002)!.count).toBe(0);
    const women = await acme("GET", `/api/v1/Questions/TargetQuestionsWithCounts?projectId=1001&filters=${encodeURIComponent(JSON.stringify({ filterIds: [4500002] }))}`);
    const wAge = (women.body.value as typeof value).find((q) => q.id === 51)!;
    expect(wAge.options.find((o) => o.systemQuestionOptionId === 5100002)!.count, "the woman is 25-34").toBe(1);
    expect(wAge.options.find((o) => o.systemQuestionOptionId === 5100003)!.count, "the 35-44 respondent is a man").toBe(0);
    const fresh = await acme("GET", `/api/v1/Questions/TargetQuestionsWithCounts?projectId=${projectId}&questionPosition=1`);
    expect(fresh.status).toBe(200);
    const q = (fresh.body.value as typeof value).find((x) => x.source === "question")!;
    expect(
      q.options.every((o) => o.count === 0),
      "no responses yet: zero",
    ).toBe(true);
  });

  test("TargetQuestionsWithCounts errors and security", async () => {
    expect((await acme("GET", "/api/v1/Questions/TargetQuestionsWithCounts")).status).toBe(400);
    expect((await acme("GET", "/api/v1/Questions/TargetQuestionsWithCounts?projectId=1001&filters=nope")).status).toBe(400);
    const bad = await acme("GET", `/api/v1/Questions/TargetQuestionsWithCounts?projectId=1001&filters=${encodeURIComponent('{"regionIds":"x"}')}`);
    expect(bad.status).toBe(400);
    expect(bad.body.errors[0].path).toBe("filters.regionIds");
    expect((await acme("GET", "/api/v1/Questions/TargetQuestionsWithCounts?projectId=2002")).status, "Globex's project").toBe(404);
    expect((await as("globexAdmin", 2001, "GET", "/api/v1/Questions/TargetQuestionsWithCounts?projectId=1001")).status, "shared with Globex: not its to target").toBe(404);
    expect((await as("acmeViewer", 1003, "GET", "/api/v1/Questions/TargetQuestionsWithCounts?projectId=1001")).status, "Viewers may read").toBe(200);
  });
});

describe("price sensitivity and market reach", () => {
  let projectId: number;
  let options: number[];
  beforeAll(async () => {
    projectId = (await newProject({ frameworkId: 1010 })).id;
    options = [await addTestOption(projectId, "Bar at $3"), await addTestOption(projectId, "Bar at $4")];
  });

  test("CreatePriceSensitivities adds the four price questions per test option, in the region's currency", async () => {
    const res = await acme("POST", `/api/v1/Projects(${projectId})/CreatePriceSensitivities`, { minPrice: 1, maxPrice: 10, purchaseIntent: true });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body.currencyCode, "region 1 is NZD").toBe("NZD");
    expect(res.body.purchaseIntent).toBe(true);
    expect(res.body.purchaseIntentCalibration).toEqual([0.7, 0.5, 0.3, 0.1, 0]);
    expect(res.body.items.map((i: { testOptionId: number }) => i.testOptionId)).toEqual(options);
    expect(res.body.items[0].projectQuestionIds).toHaveLength(4);
    const pqs = await projectQuestions(projectId);
    const price = pqs.filter((q) => q.standardQuestionId! >= 19 && q.standardQuestionId! <= 22);
    expect(price).toHaveLength(8);
    expect(new Set(price.map((q) => q.testOptionId))).toEqual(new Set(options));
    expect(price.every((q) => q.questionPositionId === 5)).toBe(true);
    expect(Math.min(...price.map((q) => q.sortOrder)), "after the framework's questions").toBe(7);
    expect(new Set(price.map((q) => q.questionId)).size, "one copy of each price question, asked per test option").toBe(4);
    const again = await acme("POST", `/api/v1/Projects(${projectId})/CreatePriceSensitivities`, {});
    expect(again.status).toBe(409);
  });

  test("UpdatePriceSensitivities narrows to one test option; GET reads it; DeletePriceSensitivities removes all", async () => {
    const res = await acme("POST", `/api/v1/Projects(${projectId})/UpdatePriceSensitivities`, { testOptionIds: [options[1]], minPrice: 2, maxPrice: 8 });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body.items).toEqual([expect.objectContaining({ testOptionId: options[1], minPrice: 2, maxPrice: 8 })]);
    expect((await projectQuestions(projectId)).filter((q) => q.standardQuestionId === 20).map((q) => q.testOptionId)).toEqual([options[1]!]);
    const read = await as("acmeViewer", 1003, "GET", `/api/v1/Projects(${projectId})/PriceSensitivities`);
    expect(read.status).toBe(200);
    expect(read.body.items).toHaveLength(1);
    const bad = await acme("POST", `/api/v1/Projects(${projectId})/UpdatePriceSensitivities`, { minPrice: 9, maxPrice: 2 });
    expect(bad.status).toBe(400);
    const foreign = await acme("POST", `/api/v1/Projects(${projectId})/UpdatePriceSensitivities`, { testOptionIds: [2001] });
    expect(foreign.status).toBe(400);
    const del = await acme("POST", `/api/v1/Projects(${projectId})/DeletePriceSensitivities`, {});
    expect(del.status).toBe(204);
    expect((await projectQuestions(projectId)).some((q) => q.standardQuestionId === 20)).toBe(false);
    expect((await acme("GET", `/api/v1/Projects(${projectId})/PriceSensitivities`)).status).toBe(404);
    expect((await acme("POST", `/api/v1/Projects(${projectId})/DeletePriceSensitivities`, {})).status).toBe(404);
    expect((await acme("POST", `/api/v1/Projects(${projectId})/UpdatePriceSensitivities`, {})).status).toBe(404);
  });

  test("price questions need one currency and an Idea or Message project", async () => {
    const two = await newProject({ regionIds: [1, 2] });
    await addTestOption(two.id, "A");
    const res = await acme("POST", `/api/v1/Projects(${two.id})/CreatePriceSensitivities`, {});
    expect(res.status).toBe(400);
    expect(res.body.message).toContain("AUD and NZD");
    const none = await newProject();
    expect((await acme("POST", `/api/v1/Projects(${none.id})/CreatePriceSensitivities`, {})).status, "no test options yet").toBe(400);
    const npd = await newProject({ projectTypeId: 4, frameworkId: 4000 });
    expect((await acme("POST", `/api/v1/Projects(${npd.id})/CreatePriceSensitivities`, {})).status).toBe(400);
  });

  test("CreateMarketReach over test options adds the market reach question 25 with an option per test option", async () => {
    const res = await acme("POST", `/api/v1/Projects(${projectId})/CreateMarketReach`, { maxCombinationSize: 2 });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body.itemSource).toBe("testOptions");
    expect(res.body.items.map((i: { testOptionId: number; label: string }) => [i.testOptionId, i.label])).toEqual([
      [options[0], "Bar at $3"],
      [options[1], "Bar at $4"],
    ]);
    const pqs = await projectQuestions(projectId);
    const mr = pqs.find((q) => q.standardQuestionId === 25)!;
    expect(mr.id).toBe(res.body.projectQuestionId);
    expect(mr.questionPositionId, "asked once after the loop").toBe(3);
    expect(mr.question.questionTypeId).toBe(2);
    // "Which of these, if any": an option per item, then an exclusive "None of these" that is no item.
    const opts = mr.question.questionOptions;
    expect(opts.slice(0, -1).map((o) => o.id)).toEqual(res.body.items.map((i: { answerOptionId: number }) => i.answerOptionId));
    expect(opts.map((o) => [o.optionText, o.exclusive])).toEqual([
      ["Bar at $3", false],
      ["Bar at $4", false],
      ["None of these", true],
    ]);
    expect(res.body.items.map((i: { answerOptionId: number }) => i.answerOptionId)).not.toContain(opts[2]!.id);
    expect((await acme("POST", `/api/v1/Projects(${projectId})/CreateMarketReach`, {})).status).toBe(409);
    const tooBig = await acme("POST", `/api/v1/Projects(${projectId})/UpdateMarketReach`, { maxCombinationSize: 3 });
    expect(tooBig.status, "more than the two items").toBe(400);
  });

  test("UpdateMarketReach over a multiple-choice question's options; DeleteMarketReach undoes it", async () => {
    const q = await acme("POST", "/api/v1/Questions", {
      projectId,
      questionText: "Which would you buy?",
      questionTypeId: 2,
      questionPositionId: 3,
      questionOptions: [{ optionText: "Oat" }, { optionText: "Nut" }, { optionText: "Fruit" }],
    });
    const res = await acme("POST", `/api/v1/Projects(${projectId})/UpdateMarketReach`, { questionId: q.body.id, reachDepth: 1, maxCombinationSize: 3 });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body.itemSource).toBe("question");
    expect(res.body.items.map((i: { label: string }) => i.label)).toEqual(["Oat", "Nut", "Fruit"]);
    expect(
      (await projectQuestions(projectId)).some((x) => x.standardQuestionId === 25),
      "the question 25 of the test options went",
    ).toBe(false);
    expect((await acme("GET", `/api/v1/Questions(${q.body.id})`)).body.marketReachEnabled).toBe(true);
    const single = await acme("POST", "/api/v1/Questions", {
      projectId,
      questionText: "One?",
      questionTypeId: 1,
      questionPositionId: 3,
      questionOptions: [{ optionText: "a" }, { optionText: "b" }],
    });
    expect((await acme("POST", `/api/v1/Projects(${projectId})/UpdateMarketReach`, { questionId: single.body.id })).status, "single choice").toBe(400);
    expect((await acme("POST", `/api/v1/Projects(${projectId})/UpdateMarketReach`, { questionId: q.body.id, testOptionIds: options })).status, "both").toBe(400);
    expect((await as("acmeViewer", 1003, "GET", `/api/v1/Projects(${projectId})/MarketReach`)).body.items).toHaveLength(3);
    expect((await acme("POST", `/api/v1/Projects(${projectId})/DeleteMarketReach`, {})).status).toBe(204);
    expect((await acme("GET", `/api/v1/Questions(${q.body.id})`)).body.marketReachEnabled).toBe(false);
    expect((await acme("GET", `/api/v1/Projects(${projectId})/MarketReach`)).status).toBe(404);
  });

  test("a question's none answer is never a market reach item: left out by default, refused when named", async () => {
    const q = await acme("POST", "/api/v1/Questions", {
      projectId,
      questionText: "Which would you buy?",
      questionTypeId: 2,
      questionPositionId: 3,
      questionOptions: [{ optionText: "Oat" }, { optionText: "Nut" }, { optionText: "None of the above" }, { optionText: "Fruit" }, { optionText: "Can't say", exclusive: true }],
    });
    const ids = q.body.questionOptions.map((o: { id: number }) => o.id) as number[];
    const res = await acme("POST", `/api/v1/Projects(${projectId})/CreateMarketReach`, { questionId: q.body.id, maxCombinationSize: 2 });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    // "None of the above" by its words, "Can't say" by its exclusive flag.
    expect(res.body.items.map((i: { label: string }) => i.label)).toEqual(["Oat", "Nut", "Fruit"]);
    for (const none of [ids[2], ids[4]]) {
      const named = await acme("POST", `/api/v1/Projects(${projectId})/UpdateMarketReach`, { questionId: q.body.id, questionOptionIds: [ids[0], none] });
      expect(named.status).toBe(400);
      expect(named.body.errors).toHaveLength(1);
      expect(named.body.errors[0].path).toBe("questionOptionIds.1");
      expect(named.body.errors[0].message).toStartWith(`Option ${none} is the question's "none" answer`);
    }
    expect((await acme("POST", `/api/v1/Projects(${projectId})/DeleteMarketReach`, {})).status).toBe(204);
  });

  test("security: Viewer, Globex and a submitted project", async () => {
    expect((await as("acmeViewer", 1003, "POST", `/api/v1/Projects(${projectId})/CreateMarketReach`, {})).status).toBe(403);
    expect((await as("globexAdmin", 2001, "POST", `/api/v1/Projects(${projectId})/CreatePriceSensitivities`, {})).status).toBe(404);
    expect((await as("globexAdmin", 2001, "GET", `/api/v1/Projects(${projectId})/PriceSensitivities`)).status).toBe(404);
    expect((await as("globexAdmin", 2001, "POST", "/api/v1/Projects(2001)/CreatePriceSensitivities", {})).status, "Globex's own submitted project").toBe(409);
  });
});

describe("objectives", () => {
  test("saving an objective makes it active; deleting it restores the default", async () => {
    const p = await newProject();
    const res = await acme("POST", "/api/v1/ProjectObjectives", { projectId: p.id, summary: "Which bar should we launch?" });
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    expect(res.body.summary).toBe("Which bar should we launch?");
    const after = await acme("GET", `/api/v1/Projects(${p.id})?$expand=activeProjectObjective`);
    expect(after.body.activeProjectObjectiveId).toBe(res.body.id);
    const del = await acme("DELETE", `/api/v1/ProjectObjectives(${res.body.id})`);
    expect(del.status).toBe(204);
    const back = await acme("GET", `/api/v1/Projects(${p.id})?$expand=activeProjectObjective`);
    expect(back.body.activeProjectObjective.summary).toBe(DEFAULT_OBJECTIVE);
    expect(back.body.activeProjectObjectiveId, "the project's own default objective").toBe(p.activeProjectObjectiveId);
    const deleteDefault = await acme("DELETE", `/api/v1/ProjectObjectives(${p.activeProjectObjectiveId})`);
    expect(deleteDefault.status).toBe(409);
  });

  test("objectives of completed projects can be saved (they drive the AI summaries)", async () => {
    const res = await acme("POST", "/api/v1/ProjectObjectives", { projectId: 1001, summary: "Who likes the berry bar?" });
    expect(res.status).toBe(201);
    const p = await acme("GET", "/api/v1/Projects(1001)");
    expect(p.body.activeProjectObjectiveId).toBe(res.body.id);
  });

  test("security and errors", async () => {
    expect((await as("acmeViewer", 1003, "POST", "/api/v1/ProjectObjectives", { projectId: 1001, summary: "x" })).status).toBe(403);
    expect((await as("globexAdmin", 2001, "POST", "/api/v1/ProjectObjectives", { projectId: 1001, summary: "x" })).status, "shared with Globex: read only").toBe(404);
    expect((await as("globexAdmin", 2001, "DELETE", "/api/v1/ProjectObjectives(1002)")).status).toBe(404);
    expect((await acme("POST", "/api/v1/ProjectObjectives", { projectId: 1001 })).status).toBe(400);
    expect((await acme("POST", "/api/v1/ProjectObjectives", { projectId: 2001, summary: "x" })).status).toBe(404);
  });
});

describe("trash", () => {
  test("GetTrashed lists the client's deleted rows; Undelete restores them", async () => {
    const p = await newProject();
    const t = await addTestOption(p.id, "Gone soon");
    expect((await acme("DELETE", `/api/v1/TestOptions(${t})`)).status).toBe(204);
    const trashed = await acme("GET", "/api/v1/TestOptions/GetTrashed?$select=id,deletedAt");
    expect(trashed.status).toBe(200);
    expect(trashed.body.value[0].id, "newest first").toBe(t);
    expect(trashed.body.value.map((r: { id: number }) => r.id)).toContain(1005);
    expect(
      trashed.body.value.map((r: { id: number }) => r.id),
      "not Globex's",
    ).not.toContain(2004);
    const undo = await acme("POST", `/api/v1/TestOptions(${t})/Undelete`, {});
    expect(undo.status).toBe(200);
    expect(undo.body.deletedAt).toBe(null);
    expect((await acme("POST", `/api/v1/TestOptions(${t})/Undelete`, {})).status, "not in the trash any more").toBe(404);
  });

  test("Projects: GetTrashed with OData options, Undelete", async () => {
    const p = await newProject({ projectName: "Binned" });
    await acme("DELETE", `/api/v1/Projects(${p.id})`);
    const list = await acme("GET", "/api/v1/Projects/GetTrashed?$select=id,projectName&$count=true&$filter=startswith(projectName,'Binned')");
    expect(list.status, JSON.stringify(list.body)).toBe(200);
    expect(list.body.value).toEqual([{ id: p.id, projectName: "Binned" }]);
    expect(list.body["@odata.count"]).toBe(1);
    const all = await acme("GET", "/api/v1/Projects/GetTrashed?$select=id");
    expect(all.body.value.map((r: { id: number }) => r.id)).toEqual(expect.arrayContaining([p.id, 1003]));
    expect(all.body.value.map((r: { id: number }) => r.id)).not.toContain(2003);
    const expanded = await acme("GET", "/api/v1/Projects/GetTrashed?$select=id&$expand=testOptions($select=id)&$top=1");
    expect(expanded.status, JSON.stringify(expanded.body)).toBe(200);
    expect(Array.isArray(expanded.body.value[0].testOptions)).toBe(true);
    expect(expanded.body["@odata.nextLink"], "more rows follow the page").toContain("$skip=1");
    const globex = await as("globexAdmin", 2001, "GET", "/api/v1/Projects/GetTrashed?$select=id");
    expect(globex.body.value.map((r: { id: number }) => r.id)).toEqual([2003]);
    expect((await as("globexAdmin", 2001, "POST", `/api/v1/Projects(${p.id})/Undelete`, {})).status, "Globex cannot restore Acme's").toBe(404);
    expect((await as("acmeViewer", 1003, "POST", `/api/v1/Projects(${p.id})/Undelete`, {})).status).toBe(403);
    const undo = await acme("POST", `/api/v1/Projects(${p.id})/Undelete`, {});
    expect(undo.status).toBe(200);
    expect((await acme("GET", `/api/v1/Projects(${p.id})`)).status).toBe(200);
    expect((await acme("GET", "/api/v1/Projects/GetTrashed?$nosuch=1")).status, "an unknown option is named").toBe(400);
  });

  test("ProjectQuestions, Questions and QuestionTemplates have their trash too", async () => {
    for (const set of ["ProjectQuestions", "Questions", "QuestionTemplates"]) {
      const res = await acme("GET", `/api/v1/${set}/GetTrashed?$select=id`);
      expect(res.status, set).toBe(200);
      expect(res.body.value.length, `${set}: the fixture's deleted rows`).toBeGreaterThan(0);
    }
    const pq = await acme("POST", "/api/v1/ProjectQuestions(1005)/Undelete", {});
    expect(pq.status, "project 1001 is submitted: its questionnaire stays as it is").toBe(409);
  });
});

describe("the submitted-project lock", () => {
  test("questions, options, test options, project questions, targets and regions of a submitted project are refused with 409", async () => {
    const checks: [string, string, string, unknown?][] = [
      ["new question", "POST", "/api/v1/Questions", { projectId: 1001, questionText: "Q?", questionTypeId: 3, questionPositionId: 6 }],
      ["question edit", "PATCH", "/api/v1/Questions(1001)", { questionText: "Changed" }],
      ["test option edit (generic)", "PATCH", "/api/v1/TestOptions(1001)", { conceptText: "Changed" }],
      ["new test option (generic)", "POST", "/api/v1/TestOptions", { projectId: 1001, conceptText: "New" }],
      ["test option delete (generic)", "DELETE", "/api/v1/TestOptions(1002)"],
      ["project question delete (generic)", "DELETE", "/api/v1/ProjectQuestions(1002)"],
      ["order", "POST", "/api/v1/ProjectQuestions/SortOrderChange", { projectId: 1001, projectQuestionIds: [1002, 1003] }],
      ["synth", "POST", "/api/v1/ProjectQuestions/ProcessSynthQuestion", { projectId: 1001, text: "Q? a / b" }],
      ["targets", "POST", "/api/v1/Projects(1001)/ChangeTargets", { targets: [] }],
      ["market reach", "POST", "/api/v1/Projects(1001)/CreateMarketReach", {}],
    ];
    for (const [what, method, path, body] of checks) {
      const res = await acme(method, path, body);
      expect(res.status, `${what}: ${JSON.stringify(res.body)}`).toBe(409);
      expect(res.body.typename, what).toBe("Conflict");
    }
    const q = await acme("GET", "/api/v1/Questions(1001)");
    expect(q.body.questionText, "nothing changed").toBe("Overall, how much do you like this?");
  });

  test("a super admin may edit a submitted project with SuperAdminUpdate; staff who are not, may not", async () => {
    const q = await as("staff", 1003, "POST", "/api/v1/Questions(1001)/SuperAdminUpdate", { questionTitle: "Likability (fixed)" });
    expect(q.status, JSON.stringify(q.body)).toBe(200);
    expect(q.body.questionTitle).toBe("Likability (fixed)");
    const noClient = await as("staff", null, "POST", "/api/v1/TestOptions(2001)/SuperAdminUpdate", { conceptDescription: "Fixed typo" });
    expect(noClient.status, "from the admin area, without a client").toBe(200);
    expect(noClient.body.conceptDescription).toBe("Fixed typo");
    expect((await as("ops", 1003, "POST", "/api/v1/Questions(1001)/SuperAdminUpdate", { questionTitle: "x" })).status).toBe(403);
    expect((await as("acmeAdmin", 1003, "POST", "/api/v1/TestOptions(1001)/SuperAdminUpdate", { conceptText: "x" })).status).toBe(403);
    expect((await as("staff", 1003, "POST", "/api/v1/TestOptions(424242)/SuperAdminUpdate", { conceptText: "x" })).status).toBe(404);
    const file = await as("staff", 1003, "POST", "/api/v1/TestOptions(1001)/SuperAdminUpdate", { file: { key: "clients/2001/x.png", fileType: "image/png" } });
    expect(file.status, "a file of another client").toBe(400);
    // The permission lasts for its own transaction only.
    expect((await acme("PATCH", "/api/v1/Questions(1001)", { questionTitle: "y" })).status).toBe(409);
  });

  test("a draft project's questionnaire stays editable through the generic routes", async () => {
    const p = await newProject();
    const t = await addTestOption(p.id, "Draft option");
    expect((await acme("PATCH", `/api/v1/TestOptions(${t})`, { conceptText: "Renamed" })).status).toBe(200);
    expect((await acme("DELETE", `/api/v1/ProjectQuestions(${p.projectQuestions[0]!.id})`)).status).toBe(204);
  });
});

describe("org template questions", () => {
  test("a team reads the template questions of its org; other tenants do not", async () => {
    // An Acme org admin keeps a template at the org (1002), above Team A (1003).
    const q = await as("acmeAdmin", 1002, "POST", "/api/v1/Questions", {
      questionText: "Which supermarket do you shop at most?",
      questionTypeId: 1,
      questionOptions: [{ optionText: "Countdown" }, { optionText: "New World" }],
    });
    expect(q.status, JSON.stringify(q.body)).toBe(201);
    const t = await as("acmeAdmin", 1002, "POST", "/api/v1/QuestionTemplates", { questionId: q.body.id, name: "Main supermarket", questionPositionId: 1 });
    expect(t.status, JSON.stringify(t.body)).toBe(201);
    const list = await as("acmeViewer", 1003, "GET", "/api/v1/Questions/OrgTemplatesQuestions");
    expect(list.status, JSON.stringify(list.body)).toBe(200);
    expect(list.body.value).toEqual([expect.objectContaining({ id: t.body.id, clientId: 1002, clientName: "Acme Org", name: "Main supermarket", questionId: q.body.id })]);
    expect(list.body.value[0].question.questionOptions.map((o: { optionText: string }) => o.optionText)).toEqual(["Countdown", "New World"]);
    const own = await acme("GET", "/api/v1/Questions/OrgTemplatesQuestions");
    expect(
      own.body.value.map((x: { clientId: number }) => x.clientId),
      "the team's own templates are not the org's",
    ).not.toContain(1003);
    const one = await acme("GET", `/api/v1/Questions(${q.body.id})/OrgTemplatesQuestion`);
    expect(one.status).toBe(200);
    expect(one.body.name).toBe("Main supermarket");
    expect((await acme("GET", "/api/v1/Questions(1005)/OrgTemplatesQuestion")).status, "the team's own template is not above it").toBe(404);
    const globex = await as("globexAdmin", 2001, "GET", "/api/v1/Questions/OrgTemplatesQuestions");
    expect(globex.body.value, "Globex has no org").toEqual([]);
    expect((await as("globexAdmin", 2001, "GET", `/api/v1/Questions(${q.body.id})/OrgTemplatesQuestion`)).status).toBe(404);
    expect((await as("globexAdmin", 1003, "GET", "/api/v1/Questions/OrgTemplatesQuestions")).status, "not a member of Team A").toBe(403);
    // The team cannot delete the org's template question; the org admin can.
    expect((await acme("POST", `/api/v1/Questions(${q.body.id})/DeleteTemplateQuestion`, {})).status).toBe(404);
    expect((await as("acmeAdmin", 1002, "POST", `/api/v1/Questions(${q.body.id})/DeleteTemplateQuestion`, {})).status).toBe(204);
    expect((await acme("GET", "/api/v1/Questions/OrgTemplatesQuestions")).body.value).toEqual([]);
  });
});
