import { expect, test, type APIRequestContext, type Page } from "@playwright/test";
import { api, signIn, token, expectAxeClean, SCREENS } from "./helpers";

// Issue 23 on the demo data (Acme Team A's "Plant-based snacks idea screen", two markets): the
// themes tab counts the filtered answers, so it changes with the market, as ThemeResults says; a
// "why" question to the chat quotes open answers about the named concept, and the quote's citation
// opens them; a figure cited for women opens its chart with the women filter, showing the cited
// value; a project group's open-text view counts its themes for the market chosen, as each project's
// ThemeResults add up. Screenshots at 1440 and 390 px wide go to .tmp/screens; axe-core finds no
// serious issue.

const PROJECT = 1;

async function teamA(request: APIRequestContext, tok: string): Promise<number> {
  const r = await api(request, tok, 0, "GET", "/api/v1/Clients?$select=id,name&$filter=name eq 'Acme Team A'");
  return r.value[0].id as number;
}

const axe = (page: Page, where: string) => expectAxeClean(page, where);

/** Screenshots and axe at both widths. */
async function look(page: Page, name: string) {
  for (const width of [1440, 390]) {
    await page.setViewportSize({ width, height: 900 });
    await page.waitForTimeout(300);
    if (SCREENS) await page.screenshot({ path: `.tmp/screens/qual-${name}-${width}.png`, fullPage: true });
    await axe(page, `${name} at ${width}px`);
  }
  await page.setViewportSize({ width: 1440, height: 900 });
}

async function ask(page: Page, question: string) {
  await page.getByLabel("Your question").fill(question);
  await page.getByRole("button", { name: "Ask" }).click();
  await page.waitForURL(/\/chat\/\d+/);
  const answer = page.locator("[data-role=assistant]").last();
  await expect(answer, "an answer arrives over the websocket").toBeVisible({ timeout: 60_000 });
  return answer;
}

test("the themes tab changes with the market filter, as ThemeResults counts it", async ({ page, request }) => {
  test.setTimeout(120_000);
  const tok = await token(request, "user@acme.test");
  const team = await teamA(request, tok);
  const pq = (await api(request, tok, team, "GET", `/api/v1/ProjectQuestions?$filter=projectId eq ${PROJECT} and standardQuestionId eq 7&$select=id`)).value[0].id as number;
  const regions = (await api(request, tok, team, "GET", `/api/v1/Projects(${PROJECT})?$select=id&$expand=projectsRegions($select=regionId)`)).projectsRegions
    .map((r: { regionId: number }) => r.regionId)
    .sort() as number[];
  const counts = async (regionId: number) =>
    (await api(
      request,
      tok,
      team,
      "GET",
      `/api/v1/TextResponses/ThemeResults?projectId=${PROJECT}&projectQuestionId=${pq}&filters=${encodeURIComponent(JSON.stringify({ regionIds: [regionId] }))}`,
    )) as { answers: number; themes: { name: string; count: number }[] };
  const [a, b] = [await counts(regions[0]!), await counts(regions[1]!)];
  // A theme whose count differs between the markets (the bug: every market showed both markets' counts).
  const moved = a.themes.find((t) => b.themes.find((x) => x.name === t.name)!.count !== t.count);
  expect(moved, "some theme comes up a different number of times in each market").toBeDefined();
  const other = b.themes.find((x) => x.name === moved!.name)!;

  await signIn(page, "user@acme.test");
  await page.goto(`/${team}/results/${PROJECT}/text/${pq}/themes?region=${regions[0]}`);
  // The whole number: "153 answers" contains "53 answers", which let a stale or all-markets base pass
  // for the other market's (a clean run under load, 2026-12-07: the row then showed another count).
  const baseOf = (n: number) => new RegExp(`^${n} answers? from the filtered respondents`);
  await expect(page.getByTestId("themes-base")).toHaveText(baseOf(a.answers));
  const row = page
    .getByRole("region", { name: "Themes per test option and by sentiment" })
    .getByRole("row")
    .filter({ has: page.getByRole("rowheader", { name: moved!.name, exact: true }) });
  await expect(row).toContainText(`${moved!.name}${moved!.count}`);
  await look(page, "themes-market1");
  await page.getByLabel("Market").selectOption(String(regions[1]));
  // The other market's answer may take a while on a loaded machine; until it arrives the page
  // shows the first market's figures, base and rows together.
  await expect(page.getByTestId("themes-base"), "the other market's answers").toHaveText(baseOf(b.answers), { timeout: 20_000 });
  await expect(row, "the theme's count in the other market").toContainText(`${moved!.name}${other.count}`);
  await look(page, "themes-market2");
  await page.goto(`/${team}/results/${PROJECT}/drivers?region=${regions[0]}`);
  await expect(page.getByTestId("drivers-chart")).toContainText("the filtered respondents");
  await look(page, "drivers");
  // One age group of one market is under the minimum base: all respondents' drivers, labelled.
  const age = page
    .locator("details")
    .filter({ has: page.locator("summary", { hasText: "Age group" }) })
    .first();
  if ((await age.getAttribute("open")) === null) await age.locator("summary").click();
  await page.getByLabel("18-24").check();
  await expect(page.getByTestId("drivers-note")).toContainText("under the minimum base of");
  await expect(page.getByTestId("drivers-chart")).toContainText("all respondents");
  await look(page, "drivers-small-base");
});

test("a 'why' question quotes open answers about the named concept, and the quote's citation opens them", async ({ page, request }) => {
  test.setTimeout(180_000);
  const team = await teamA(request, await token(request, "user@acme.test"));
  await signIn(page, "user@acme.test");
  await page.goto(`/${team}/results/${PROJECT}/chat`);
  const answer = await ask(page, "What do people dislike about Veggie crisps trio?");
  await expect(answer).toContainText("What respondents dislike about Veggie crisps trio");
  const quoted = (await answer.innerText()).match(/“([^”]+)”/);
  expect(quoted, "the answer quotes an open answer").not.toBeNull();
  await look(page, "chat-why");
  // The quote's citation is the link right after it.
  const cite = answer.getByRole("link", { name: new RegExp(`^Source F\\d+: “${quoted![1]!.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")}”`) }).first();
  await cite.click();
  await expect(page).toHaveURL(/\/text\/\d+\?.*sentiment=Negative/);
  await expect(page.getByRole("list", { name: "Answers" })).toContainText(quoted![1]!);
});

test("a figure cited for women opens its chart with the women filter, showing the cited value", async ({ page, request }) => {
  test.setTimeout(180_000);
  const team = await teamA(request, await token(request, "user@acme.test"));
  await signIn(page, "user@acme.test");
  await page.goto(`/${team}/results/${PROJECT}/chat`);
  const answer = await ask(page, "Which concept did best with women?");
  const first = answer.getByRole("link", { name: /^Source F1: / });
  const cited = ((await first.getAttribute("aria-label")) ?? "").replace(/^Source F1: /, "");
  expect(cited).toMatch(/^\d+\.\d%$/);
  await first.click();
  await expect(page, "the citation opens its chart").toHaveURL(/\/grow-ideas\/\d+/);
  await expect(page.getByTestId("filter-count"), "with the women filter").toHaveText("1");
  await expect(page.getByTestId("top2-cell").filter({ hasText: cited }).first(), `the page shows the cited ${cited}`).toBeVisible();
  await look(page, "cited-women");
});

test("a project group's open-text view counts its themes for the market chosen, as ThemeResults says", async ({ page, request }) => {
  test.setTimeout(180_000);
  const staff = await token(request, "staff@ideally.test");
  const tok = await token(request, "user@acme.test");
  const team = await teamA(request, tok);
  const g = await api(request, staff, team, "POST", "/api/v1/ProjectGroups", { name: `Snack answers ${Date.now()}`, description: "Open answers of the snack tests" });
  const members = [PROJECT, 2];
  for (const projectId of members) await api(request, staff, team, "POST", "/api/v1/ProjectGroupTags", { projectGroupId: g.id, projectId, name: "snacks" });
  const own = (
    await api(request, tok, team, "GET", `/api/v1/ProjectQuestions?$filter=projectId eq ${PROJECT} and standardQuestionId eq 7&$select=id,questionId&$expand=question($select=questionText)`)
  ).value[0];
  const text = own.question.questionText as string;
  // Every group project's copy of the question (VerbatimGroup matches them by text).
  const copies = (
    await api(
      request,
      tok,
      team,
      "GET",
      `/api/v1/ProjectQuestions?$filter=projectId in (${members.join(",")}) and question/questionTypeId eq 3 and question/questionText eq '${text.replace(/'/g, "''")}'&$select=id,projectId`,
    )
  ).value as { id: number; projectId: number }[];
  expect(copies.length, "both projects ask the open question").toBe(2);
  // The expected figures: each copy's ThemeResults for one market, added up by theme name here.
  const counts = async (regionId: number) => {
    const byName = new Map<string, number>();
    let answers = 0;
    let projects = 0; // the projects with answers in the market
    for (const c of copies) {
      const r = (await api(
        request,
        tok,
        team,
        "GET",
        `/api/v1/TextResponses/ThemeResults?projectId=${c.projectId}&projectQuestionId=${c.id}&filters=${encodeURIComponent(JSON.stringify({ regionIds: [regionId] }))}`,
      )) as { answers: number; themes: { name: string; count: number }[] };
      answers += r.answers;
      if (r.answers > 0) projects++;
      for (const t of r.themes) byName.set(t.name, (byName.get(t.name) ?? 0) + t.count);
    }
    return { answers, byName, projects, said: `${answers} answers from the filtered respondents in ${projects} project${projects === 1 ? "" : "s"}` };
  };
  const regions = (await api(request, tok, team, "GET", `/api/v1/Projects(${PROJECT})?$select=id&$expand=projectsRegions($select=regionId;$expand=region($select=regionName))`)).projectsRegions as {
    regionId: number;
    region: { regionName: string };
  }[];
  const [a, b] = [await counts(regions[0]!.regionId), await counts(regions[1]!.regionId)];
  const moved = [...a.byName.entries()].find(([name, n]) => n > 0 && b.byName.get(name) !== n);
  expect(moved, "some theme comes up a different number of times in each market").toBeDefined();
  const [name, inA] = moved!;

  await signIn(page, "user@acme.test");
  await page.goto(`/${team}/groups/${g.id}/text/${own.questionId}`);
  const market = page.getByLabel("Market", { exact: true });
  await market.selectOption({ label: regions[0]!.region.regionName });
  await expect(page.getByTestId("group-themes-base")).toContainText(a.said);
  const row = page
    .getByRole("region", { name: "Themes of the group's answers by sentiment" })
    .getByRole("row")
    .filter({ has: page.getByRole("rowheader", { name, exact: true }) });
  await expect(row.getByRole("cell").first()).toHaveText(String(inA));
  await look(page, "group-text-market1");
  await market.selectOption({ label: regions[1]!.region.regionName });
  await expect(page.getByTestId("group-themes-base"), "the other market's answers, from the projects fielded there").toContainText(b.said);
  await expect(row.getByRole("cell").first(), "the theme's count in the other market").toHaveText(String(b.byName.get(name) ?? 0));
  await look(page, "group-text-market2");
});
