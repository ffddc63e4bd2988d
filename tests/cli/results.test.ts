// Issue 24, complete results: `ideally results` on a Question project fielded by the simulated
// panel shows its custom questions (they are all it has) with the shares the API computes; an
// Idea project's non-measure questions (the fixture's screener) are there too; a draft is refused
// in one line (exit 2) instead of an empty table; `results verbatims` lists and pages the same rows
// in text and --json. Expected figures come from the API's own QualResults?projectQuestionId.
import { afterAll, beforeAll, expect, test } from "bun:test";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { cliHarness, type CliHarness } from "../helpers/cli.ts";
import { createTestDb, type TestDb } from "../helpers/db.ts";
import { startServerProcess, type ServerProcess } from "../helpers/live.ts";

const T = 1003;
let tdb: TestDb;
let server: ServerProcess;
let uma: CliHarness;
let sam: CliHarness;
let id = 0;
const dir = mkdtempSync(join(tmpdir(), "ideally-results-"));

interface QuestionResults {
  projectQuestionId: number;
  questionText: string;
  options: { id: number; text: string }[];
  results: { testOptionId: number | null; n: number; options: { questionOptionId: number; share: number }[] }[];
}

async function api<T>(path: string): Promise<T> {
  const token = (uma.config().session as { accessToken: string }).accessToken;
  const res = await fetch(`${server.base}${path}`, { headers: { authorization: `Bearer ${token}`, clientId: String(T) } });
  expect(res.status, path).toBe(200);
  return (await res.json()) as T;
}

beforeAll(async () => {
  tdb = await createTestDb();
  await tdb.db`insert into credit_logs (client_id, type, credit_amount, description) values (${T}, 1, 100000, 'CLI results top-up')`;
  server = await startServerProcess(tdb.url);
  [uma, sam] = [cliHarness(server.base), cliHarness(server.base)];
  await uma.json(["login", "--email", "user@acme.test", "--password-stdin"], { stdin: "Password123!" });
  await sam.json(["login", "--email", "staff@ideally.test", "--password-stdin"], { stdin: "Password123!" });
  writeFileSync(
    join(dir, "q.yaml"),
    "name: Snacking habits\ntype: Question\nframework: ad-hoc\nregions: [NZ]\nsampleSize: 20\nquestions:\n" +
      "  - text: Which snack do you buy most?\n    title: Snack\n    type: single\n    options: [Oat bar, Fruit, Crisps]\n" +
      "  - text: Why that one?\n    type: text\n",
  );
  ({ id } = await uma.json<{ id: number }>(["projects", "create", "--from", join(dir, "q.yaml")]));
}, 120_000);
afterAll(async () => {
  uma?.dispose();
  sam?.dispose();
  rmSync(dir, { recursive: true, force: true });
  await server?.stop();
  await tdb?.drop();
}, 30_000);

test("a draft has no results: one line, exit 2, for results and verbatims alike", async () => {
  for (const args of [
    ["results", String(id)],
    ["results", String(id), "--json"],
    ["results", "verbatims", String(id)],
  ]) {
    const r = await uma.run(args);
    expect([r.code, r.stdout], args.join(" ")).toEqual([2, ""]);
    expect(r.stderr).toBe(
      `ideally: project ${id} 'Snacking habits' is Draft (0): it has not fielded, so there are no ${args[1] === "verbatims" ? "answers" : "results"} yet (results follow fielding, status 400 and on)\n`,
    );
  }
});

test("an Idea project's other questions are in the results beside the measures; an unfinished reach set-up is a warning", async () => {
  const r = await uma.json<{ qual: { measures: unknown[] }; questions: QuestionResults[]; openQuestions: { projectQuestionId: number }[] }>(["results", "1001"]);
  expect(r.qual.measures.length).toBeGreaterThan(0);
  // The fixture's screener 'Do you buy snack bars?' (project question 1001) is no measure.
  const screener = await api<{ question: QuestionResults }>("/api/v1/Responses/QualResults?projectId=1001&projectQuestionId=1001");
  expect(r.questions).toContainEqual(screener.question);
  const text = await uma.run(["results", "1001"]);
  expect(text.code).toBe(0);
  expect(text.stdout).toContain("Snack bar buyer: Do you buy snack bars?");
  // The fixture's market reach set-up has no items: the API answers 409; the rest still shows.
  expect(text.stderr).toBe("warning: no market reach: Project 1001's market reach has no items\n");
});

test("the verdict: the API's Scorecard for the same view, its sentence, each option's decision in DOMAIN's words and why (issue 37)", async () => {
  for (const args of [[], ["--total", "markets", "--benchmark", "0"]]) {
    const r = await uma.json<{ verdict: { headline: string; rows: { testOptionId: number; rank: number; verdict: string; firm: boolean; reason: string }[] } }>(["results", "1001", ...args]);
    const query = args.length ? "&total=markets&benchmarkTypeId=0" : "&benchmarkTypeId=1";
    const card = await api<{ headline: string; rows: { testOptionId: number; rank: number; verdict: string; firm: boolean; reason: string }[] }>(`/api/v1/Responses/Scorecard?projectId=1001${query}`);
    expect(r.verdict).toEqual(card as typeof r.verdict);
    expect(card.rows.length).toBeGreaterThan(0);
    const text = await uma.run(["results", "1001", "--wide", ...args]);
    expect(text.code).toBe(0);
    expect(text.stdout).toContain(card.headline);
    const words = { go: "Go", consider: "Consider", "no-go": "No go" } as Record<string, string>;
    for (const row of card.rows) {
      expect(text.stdout).toMatch(new RegExp(`^\\s*${row.rank}\\s+\\S+ .+\\s${words[row.verdict]}${row.firm ? "" : " †"}\\s+[\\d.]+%$`, "m"));
      expect(text.stdout).toContain(row.reason);
    }
  }
  // At 60 columns nothing wraps or is cut mid-word in the reasons: each reason's words are all there.
  const narrow = await uma.run(["results", "1001"], { env: { COLUMNS: "60" } });
  expect(narrow.code).toBe(0);
  for (const line of narrow.stdout.split("\n")) expect(line.length, line).toBeLessThanOrEqual(60);
});

test("--total markets: the measures and the other questions are the API's all-markets total; another total is a usage error", async () => {
  const r = await uma.json<{ qual: { total: string }; questions: QuestionResults[] }>(["results", "1001", "--total", "markets"]);
  expect(r.qual.total).toBe("markets");
  const screener = await api<{ question: QuestionResults & { total: string } }>("/api/v1/Responses/QualResults?projectId=1001&projectQuestionId=1001&total=markets");
  expect(screener.question.total).toBe("markets");
  expect(r.questions).toContainEqual(screener.question);
  const bad = await uma.run(["results", "1001", "--total", "regions"]);
  expect(bad.code, "a usage error").toBe(1);
  expect(bad.stderr).toContain("--total: expected sample or markets, got 'regions'");
});

test("a fielded Question project: its custom questions with the API's shares, the open one for verbatims", async () => {
  await uma.json(["projects", "submit", String(id), "--yes"]);
  await sam.json(["admin", "approve", String(id), "--to", "300"]);
  // Staff start the due wave and run the fielding tick now (the command runner's
  // TestCreateNextSchedule), instead of the test waiting for the server's cron minute: 30 to 35 s
  // of doing nothing before the simulated panel's run was created, then 0.1 s of fielding. (Should
  // the server's own cron come first, the command finds nothing due; the watch below is the check.)
  await sam.json(["admin", "commands", "TestCreateNextSchedule", "--set", `today=${new Date().toISOString().slice(0, 10)}`]);
  const w = await uma.run(["projects", "watch", String(id), "--json", "--interval", "2", "--timeout", "200"]);
  expect(w.code, w.stderr).toBe(0);

  const pqs = await api<{ value: { id: number; question: { questionTypeId: number } }[] }>(
    `/api/v1/ProjectQuestions?$filter=projectId eq ${id}&$expand=question($select=questionTypeId)&$orderby=questionPositionId,sortOrder,id`,
  );
  const closed = pqs.value.filter((q) => q.question.questionTypeId !== 3).map((q) => q.id);
  const open = pqs.value.filter((q) => q.question.questionTypeId === 3).map((q) => q.id);
  expect(closed.length).toBeGreaterThan(0);
  const expected = await Promise.all(closed.map(async (q) => (await api<{ question: QuestionResults }>(`/api/v1/Responses/QualResults?projectId=${id}&projectQuestionId=${q}`)).question));
  const snack = expected.find((q) => q.questionText === "Which snack do you buy most?")!;
  expect(snack.results[0].n, "every respondent answered it").toBe(20);

  const json = await uma.json<{ qual: { measures: unknown[] }; questions: QuestionResults[]; openQuestions: { projectQuestionId: number }[] }>(["results", String(id)]);
  expect(json.qual.measures, "a Question project has no standard measures").toEqual([]);
  expect(json.questions).toEqual(expected);
  expect(json.openQuestions.map((q) => q.projectQuestionId)).toEqual(open);

  const text = await uma.run(["results", String(id)]);
  expect(text.code).toBe(0);
  expect(text.stdout).toContain("Snacking habits (Question: no standard measures; its results are its questions)");
  expect(text.stdout).toContain("Snack: Which snack do you buy most?");
  for (const o of snack.options) {
    const share = snack.results[0].options.find((x) => x.questionOptionId === o.id)!.share;
    expect(text.stdout, o.text).toMatch(new RegExp(`\\n${o.text}\\s+${(share * 100).toFixed(1)}%\\n`));
  }
  expect(text.stdout).toMatch(new RegExp(`\\n\\s*${open[0]}\\s+Why that one\\?\\n`));
  // Its respondents are the simulated panel's: the CLI says so first, in the API's words (issue 36).
  const said = await api<{ respondents: number; simulated: number; words: string | null }>(`/api/v1/Projects(${id})/SimulatedRespondents`);
  expect(said.words).toBe("All 20 respondents are simulated: answers generated by the simulated panel, not real people.");
  expect(text.stdout.startsWith(`${said.words}\n`), text.stdout.slice(0, 200)).toBe(true);
  expect((json as unknown as { simulated: unknown }).simulated).toEqual(said);
  // At 60 columns the sentence wraps at words, never past the width.
  const narrow = await uma.run(["results", String(id)], { env: { COLUMNS: "60" } });
  expect(narrow.stdout.split("\n\n")[0]!.replace(/\n\s+/g, " ")).toBe(said.words!);
  for (const line of narrow.stdout.split("\n")) expect(line.length, line).toBeLessThanOrEqual(60);
}, 240_000);

test("verbatims: the same rows in text and --json, listing and paging", async () => {
  const list = await uma.json<{ projectQuestionId: number }[]>(["results", "verbatims", String(id)]);
  const listed = await uma.run(["results", "verbatims", String(id)]);
  expect(listed.code).toBe(0);
  expect(
    listed.stdout
      .trimEnd()
      .split("\n")
      .slice(2)
      .map((l) => Number(l.trim().split(/\s+/)[0])),
  ).toEqual(list.map((q) => q.projectQuestionId));
  const q = String(list.find((x) => x.projectQuestionId)!.projectQuestionId);
  const page = await uma.json<{ value: { responseText: string }[] }>(["results", "verbatims", String(id), "--question", q, "--page-size", "7", "--page", "2"]);
  expect(page.value.length).toBeGreaterThan(0);
  const shown = await uma.run(["results", "verbatims", String(id), "--question", q, "--page-size", "7", "--page", "2", "--wide"]);
  const rows = shown.stdout.trimEnd().split("\n").slice(3);
  expect(rows.length).toBe(page.value.length);
  page.value.forEach((v, i) => {
    expect(rows[i].endsWith(v.responseText.replace(/\s+/g, " ")), `row ${i}`).toBe(true);
  });
});
