import { expect, test, type APIRequestContext, type Page } from "@playwright/test";
import { api, apiCall, signIn as signInAs, token, axeFindings, expectAxeClean, nextFrames, requestsInFlight, SCREENS_ALL, SCREENS } from "./helpers";

const signIn = (page: Page, email = "user@acme.test") => signInAs(page, email);
import JSZip from "jszip";
import { readFileSync } from "node:fs";

// The results pages as a researcher uses them, on the demo projects (Acme Team A): every results
// route of every demo project opens with its charts named and labelled; each filter kind changes
// the base exactly as the API's ResponsesCount says and clears again; a filter set is saved,
// applied and deleted; the benchmark choice survives a reload; a PowerPoint export runs as a job
// and its deck opens; a project group page opens; axe-core finds no serious or critical issue on
// any results route of any demo project, at 1280 px and at 390 px (one pass, each page resized).
// Screenshots go to .tmp/screens (kept out of the repo) to be looked at; the crawl's, one per page
// and width, only with SCREENS=all.

async function teamA(request: APIRequestContext, tok: string): Promise<number> {
  const r = await api(request, tok, 0, "GET", "/api/v1/Clients?$select=id,name&$filter=name eq 'Acme Team A'");
  return r.value[0].id as number;
}


async function countFor(request: APIRequestContext, tok: string, clientId: number, projectId: number, filters: unknown): Promise<number> {
  const r = await api(request, tok, clientId, "GET", `/api/v1/Projects(${projectId})/ResponsesCount?filters=${encodeURIComponent(JSON.stringify(filters))}`);
  return (r.value as { count: number }[]).reduce((n, x) => n + x.count, 0);
}

async function base(page: Page): Promise<number> {
  return Number((await page.getByTestId("responses-count").innerText()).replace(/\D/g, ""));
}

/** Waits for the base to show the API's figure (the call is debounced 400 ms). */
async function expectBase(page: Page, expected: number, what: string) {
  await expect.poll(() => base(page), { message: `${what}: the base is the API's ResponsesCount`, timeout: 10_000 }).toBe(expected);
}

async function expectChartsNamed(page: Page, where: string) {
  const charts = page.locator("figure svg[role=img]");
  const n = await charts.count();
  for (let i = 0; i < n; i++) {
    const label = await charts.nth(i).getAttribute("aria-label");
    expect(label, `${where}: chart ${i} has an accessible name`).toBeTruthy();
  }
  return n;
}

/** axe-core's serious and critical violations on the page, each named with where it was found. */
async function axeAt(page: Page, where: string): Promise<string[]> {
  return (await axeFindings(page)).map((f) => `${where}: ${f}`);
}

const axe = (page: Page, where: string) => expectAxeClean(page, where);

/** Opens a collapsible filter section (a no-op when it is open already). */
async function openSection(page: Page, title: string) {
  const d = page.locator("details").filter({ has: page.locator("summary", { hasText: title }) }).first();
  if ((await d.getAttribute("open")) === null) await d.locator("summary").click();
}

async function shot(page: Page, name: string) {
  if (SCREENS) await page.screenshot({ path: `.tmp/screens/results-${name}.png`, fullPage: true });
}

test.describe.configure({ mode: "serial" });

/** Chart texts (tick labels, axis legends, marker labels) drawn outside their svg: cut off on screen. */
async function clippedChartTexts(page: Page): Promise<string[]> {
  return page.locator("figure svg[role=img]").evaluateAll((svgs) =>
    svgs.flatMap((svg, i) => {
      const box = svg.getBoundingClientRect();
      return [...svg.querySelectorAll("text")].flatMap((t) => {
        const r = t.getBoundingClientRect();
        if (!r.width || !(t.textContent ?? "").trim()) return [];
        const out = r.left < box.left - 1 || r.right > box.right + 1 || r.top < box.top - 1 || r.bottom > box.bottom + 1;
        return out ? [`chart ${i} "${svg.getAttribute("aria-label")?.slice(0, 40)}": "${t.textContent}" at ${Math.round(r.left - box.left)}..${Math.round(r.right - box.left)} of ${Math.round(box.width)} px`] : [];
      });
    }),
  );
}

/** A chart's vertical axis legend (the text turned a quarter) drawn over another of its texts, e.g. a long tick label. */
async function legendOverlaps(page: Page): Promise<string[]> {
  return page.locator("figure svg[role=img]").evaluateAll((svgs) =>
    svgs.flatMap((svg) => {
      const texts = [...svg.querySelectorAll("text")].filter((t) => (t.textContent ?? "").trim());
      const legends = texts.filter((t) => /rotate\(-90/.test(t.getAttribute("transform") ?? t.parentElement?.getAttribute("transform") ?? ""));
      return legends.flatMap((l) => {
        const a = l.getBoundingClientRect();
        return texts
          .filter((t) => t !== l)
          .filter((t) => {
            const b = t.getBoundingClientRect();
            return b.width > 0 && a.left < b.right - 1 && b.left < a.right - 1 && a.top < b.bottom - 1 && b.top < a.bottom - 1;
          })
          .map((t) => `"${svg.getAttribute("aria-label")?.slice(0, 40)}": legend "${l.textContent}" over "${t.textContent}"`);
      });
    }),
  );
}

// One pass over every results route of every demo project: each page is opened once at 1280 px,
// checked, then resized to 390 px and checked again. No results page reads the window's width in
// script (the only reader is the editor's ProjectPage), so a page resized to a phone's width lays
// out as one opened there: its CSS and its charts' own ResizeObserver decide. The two widths were
// two crawls, each loading every page (4.4 minutes of the browser stage; docs/testing.md "The
// results crawl"). Every page's screenshot, at both widths, with SCREENS=all.
test("every results route of every demo project opens, at 1280 and at 390 px: named, labelled charts, no chart label cut off, nothing wider than a phone, no serious accessibility issue", async ({ page, request }) => {
  test.setTimeout(900_000);
  const staff = await token(request, "staff@ideally.test");
  const uma = await token(request, "user@acme.test");
  const team = await teamA(request, uma);
  // MarketReach gates the market-reach pages: on for the team.
  const flags = await api(request, staff, 0, "GET", "/api/v1/FeatureFlags?$filter=ff eq 'MarketReach'&$select=id");
  const had = await api(request, staff, team, "GET", `/api/v1/ClientFeatures?$filter=featureFlagId eq ${flags.value[0].id}&$select=id,isEnabled`);
  // Another spec may have switched it off for the team: the row is then replaced by one that is on.
  if (had.value.length && !had.value[0].isEnabled) await apiCall(request, staff, team, "DELETE", `/api/v1/ClientFeatures(${had.value[0].id})`);
  if (!had.value.length || !had.value[0].isEnabled) await api(request, staff, team, "POST", "/api/v1/ClientFeatures", { featureFlagId: flags.value[0].id, isEnabled: true });
  const projects = await api(request, uma, team, "GET", "/api/v1/Projects?$select=id,projectName&$filter=statusCode ge 800&$orderby=id");
  expect(projects.value.length, "the demo projects are completed").toBeGreaterThanOrEqual(6);
  const errors: string[] = [];
  page.on("pageerror", (e) => errors.push(e.message));
  const net = requestsInFlight(page);
  const desktop = page.viewportSize() ?? { width: 1280, height: 720 };
  expect(desktop.width, "the desktop width checked").toBe(1280);
  await signIn(page);
  let visited = 0;
  let phoneCharts = 0;
  const a11y: string[] = [];
  const cut: string[] = [];
  const wide: string[] = [];
  const clipped: string[] = [];
  for (const p of projects.value as { id: number; projectName: string }[]) {
    await page.goto(`/${team}/results/${p.id}`);
    const landing = await api(request, uma, team, "GET", `/api/v1/Projects(${p.id})/ResultsLanding`);
    await page.waitForURL((u) => u.pathname === `/${team}/results/${p.id}/${landing.tab}`, { timeout: 15_000 });
    await expect(page.getByRole("heading", { level: 1, name: p.projectName })).toBeVisible();
    const hrefs = await page.getByRole("navigation", { name: "Results pages" }).getByRole("link").evaluateAll((ls) => ls.map((l) => (l as HTMLAnchorElement).getAttribute("href")!));
    expect(hrefs.length, `${p.projectName}: a sub-nav of results pages`).toBeGreaterThan(3);
    for (const href of hrefs) {
      const name = href.split("/").slice(3).join("-").replace(/\?.*$/, "");
      // Through the sub-nav, as a researcher moves between the pages: the app and axe stay loaded
      // (a full load of each page was most of the crawl's browser time besides axe).
      await page.getByRole("navigation", { name: "Results pages" }).locator(`a[href="${href}"]`).click();
      await page.waitForURL((u) => `${u.pathname}${u.search}` === href);
      await expect(page.getByTestId("results-page").getByRole("heading", { level: 2 }).first(), `${href} has a page heading`).toBeVisible({ timeout: 15_000 });
      await net.settled();
      await expect(page.locator('[role=status][aria-label="Loading"]'), `${href} finishes loading`).toHaveCount(0);
      await expect(page.getByText("Sorry, something went wrong on our end.")).toHaveCount(0);
      const charts = await expectChartsNamed(page, href);
      // Axis legends: every chart's svg carries its axis titles as text.
      for (let i = 0; i < charts; i++) expect(await page.locator("figure svg[role=img]").nth(i).locator("text").count(), `${href}: chart ${i} has axis text`).toBeGreaterThan(2);
      visited++;
      a11y.push(...(await axeAt(page, href)));
      // The measures' figures tables fit a 1280 px screen (no column cut off behind a scrollbar).
      for (const w of await page.getByRole("region", { name: /: figures/ }).evaluateAll((els) => els.map((e) => e.scrollWidth - e.clientWidth))) cut.push(...(w > 1 ? [`${href}: ${w} px`] : []));
      if (SCREENS_ALL) await shot(page, name);

      // The same page at a phone's width.
      await page.setViewportSize({ width: 390, height: 844 });
      await nextFrames(page);
      await net.settled();
      await expect(page.getByTestId("results-page").getByRole("heading", { level: 2 }).first(), `${href} at phone width`).toBeVisible();
      phoneCharts += await page.locator("figure svg[role=img]").count();
      // Nothing wider than the screen (a wide table scrolls inside its own box).
      const overflow = await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
      if (overflow > 0) wide.push(`${href}: ${overflow} px wider than the phone`);
      clipped.push(...(await clippedChartTexts(page)).map((c) => `${href}: ${c}`));
      clipped.push(...(await legendOverlaps(page)).map((c) => `${href}: ${c}`));
      a11y.push(...(await axeAt(page, `${href} at 390 px`)));
      if (SCREENS_ALL) await shot(page, `charts-phone-${name}`);
      await page.setViewportSize(desktop);
    }
  }
  expect(visited, "results pages visited").toBeGreaterThan(30);
  expect(phoneCharts, "charts looked at on a phone").toBeGreaterThan(20);
  expect(a11y, "no serious or critical accessibility violation on any results route, at 1280 or at 390 px").toEqual([]);
  expect(cut, "figures tables wider than their box at 1280 px").toEqual([]);
  expect(wide, "pages wider than a phone").toEqual([]);
  expect(clipped, "chart labels cut off at 390 px").toEqual([]);
  // Phone width: the filters open from a button.
  await page.setViewportSize({ width: 390, height: 844 });
  await page.goto(`/${team}/results/${projects.value[0].id}/summary`);
  await page.getByRole("button", { name: /^Filters/ }).click();
  await expect(page.getByTestId("responses-count")).toBeVisible();
  await shot(page, "summary-phone");
  expect(errors, "no page errors").toEqual([]);
});

test("each filter kind changes the base as the API says, and clears", async ({ page, request }) => {
  test.setTimeout(180_000);
  const uma = await token(request, "user@acme.test");
  const team = await teamA(request, uma);
  const projectId = 1; // the two-market idea screen
  await signIn(page);
  // The measures table is on All results (Summary leads with the verdict); New Zealand chosen (the results open on All markets).
  await page.goto(`/${team}/results/${projectId}/all?region=1`);
  const all = await countFor(request, uma, team, projectId, { regionIds: [1] });
  await expectBase(page, all, "no filters");

  // System filter (a demographic)
  const gender = await api(request, uma, team, "GET", "/api/v1/SystemQuestionOption?$filter=systemQuestionId eq 45 and (regionId eq 1 or regionId eq null)&$orderby=sortOrder&$select=id,answerLabel");
  const female = (gender.value as { id: number; answerLabel: string }[]).find((o) => o.answerLabel === "Female")!;
  await openSection(page, "Gender");
  await page.getByLabel("Female", { exact: true }).check();
  const byGender = await countFor(request, uma, team, projectId, { regionIds: [1], filterIds: [female.id] });
  expect(byGender).toBeLessThan(all);
  await expectBase(page, byGender, "gender");
  await expect(page.getByTestId("filter-count")).toHaveText("1");
  const top2Before = await page.getByTestId("top2-cell").first().innerText();

  // Question-option filter: include, then exclude
  const qs = await api(request, uma, team, "GET", `/api/v1/ProjectQuestions?$filter=projectId eq ${projectId} and standardQuestionId eq 3&$expand=question($expand=questionOptions($orderby=sortOrder))`);
  const opt = qs.value[0].question.questionOptions[0] as { id: number; optionText: string };
  await openSection(page, "Purchase intent");
  await page.getByRole("button", { name: `${opt.optionText}: not filtered` }).click();
  await expectBase(page, await countFor(request, uma, team, projectId, { regionIds: [1], filterIds: [female.id], questionOptionsIds: [opt.id] }), "include an option");
  await page.getByRole("button", { name: `${opt.optionText}: included` }).click();
  await expectBase(page, await countFor(request, uma, team, projectId, { regionIds: [1], filterIds: [female.id], excludeQuestionOptionsIds: [opt.id] }), "exclude an option");
  await expect(page.getByTestId("filter-count")).toHaveText("2");
  await expect.poll(() => page.getByTestId("top2-cell").first().innerText(), { message: "the figures follow the filters" }).not.toBe(top2Before);

  // Test options
  await page.getByRole("button", { name: "Clear all" }).click();
  await expectBase(page, all, "cleared");
  await expect(page.getByTestId("filter-count")).toHaveCount(0);
  const options = await api(request, uma, team, "GET", `/api/v1/TestOptions?$filter=projectId eq ${projectId}&$orderby=id&$select=id,conceptText`);
  await page.getByLabel(options.value[0].conceptText, { exact: true }).check();
  await expectBase(page, await countFor(request, uma, team, projectId, { regionIds: [1], testOptionIds: [options.value[0].id] }), "one test option");

  // Survey runs, then dates (which clear the runs)
  await page.getByRole("button", { name: "Clear all" }).click();
  await openSection(page, "Survey runs");
  const runs = await api(request, uma, team, "GET", `/api/v1/ProjectSchedules?$filter=projectId eq ${projectId} and regionId eq 1 and surveyRunId ne null&$select=surveyRunId`);
  const runId = runs.value[0].surveyRunId as number;
  await page.locator("details", { hasText: "Survey runs" }).getByRole("checkbox").first().check();
  await expectBase(page, await countFor(request, uma, team, projectId, { regionIds: [1], surveyIds: [runId] }), "a survey run");
  await openSection(page, "Dates");
  const today = new Date();
  const iso = (d: Date) => `${d.getFullYear()}-${String(d.getMonth() + 1).padStart(2, "0")}-${String(d.getDate()).padStart(2, "0")}`;
  await page.getByLabel("From", { exact: true }).fill(iso(new Date(today.getTime() - 30 * 86400_000)));
  await page.getByLabel("To", { exact: true }).fill(iso(today));
  await page.getByRole("button", { name: "Apply dates" }).click();
  await expect(page.locator("details", { hasText: "Survey runs" }).getByRole("checkbox").first(), "dates clear the survey runs").not.toBeChecked();
  await expect(page.getByTestId("filter-count")).toHaveText("1");
  const dates = JSON.parse(new URL(page.url()).searchParams.get("dates")!) as { from: string; to: string };
  expect(new Date(dates.from).getHours(), "the start of the day").toBe(0);
  expect(new Date(dates.to).getHours() * 60 + new Date(dates.to).getMinutes(), "the end of the day").toBe(23 * 60 + 59);
  await expectBase(page, await countFor(request, uma, team, projectId, { regionIds: [1], dateFrom: dates.from, dateTo: dates.to }), "dates");

  // Panel type
  await page.getByRole("button", { name: "Clear all" }).click();
  await page.getByLabel("Panel type").selectOption("Ideally");
  await expectBase(page, await countFor(request, uma, team, projectId, { regionIds: [1], panelType: "Ideally" }), "panel type");

  // Region: changing it clears question filters
  await openSection(page, "Gender");
  await page.getByLabel("Female", { exact: true }).check();
  await page.getByLabel("Market").selectOption({ label: "Australia" });
  await expectBase(page, await countFor(request, uma, team, projectId, { regionIds: [2], panelType: "Ideally" }), "another market");
  expect(new URL(page.url()).searchParams.get("filters"), "the region change cleared the demographic filters").toBeNull();
});

test("a filter set is saved, applied from the sidebar and deleted with the spec's confirm", async ({ page, request }) => {
  const uma = await token(request, "user@acme.test");
  const team = await teamA(request, uma);
  await signIn(page);
  await page.goto(`/${team}/results/1/summary`);
  await openSection(page, "Age group");
  await page.getByLabel("18-24").check();
  await page.waitForTimeout(1000); // the base call is debounced
  const filtered = await base(page);
  await page.getByRole("button", { name: "Filter sets" }).click();
  const name = `Young ${Date.now()}`;
  await page.getByLabel(/Save the current filters/).fill(name);
  await page.getByRole("button", { name: "Save", exact: true }).click();
  await expect(page.getByText("Filter set saved")).toBeVisible();
  await expect(page.getByText("All team members can access this filter set in the filters menu.")).toBeVisible();
  await page.getByRole("button", { name: "Close panel" }).click();
  await page.getByRole("button", { name: "Clear all" }).click();
  await expect.poll(() => base(page)).toBeGreaterThan(filtered);
  await page.getByLabel("Filter set", { exact: true }).selectOption({ label: name });
  await expectBase(page, filtered, "the filter set applied");
  await expect(page.getByLabel("18-24"), "its stored filters are loaded into the sidebar").toBeChecked();
  await page.getByRole("button", { name: "Filter sets" }).click();
  await page.getByRole("button", { name: `Delete ${name}` }).click();
  const dialog = page.getByRole("dialog", { name: "Delete filter set" });
  await expect(dialog.getByText(`Are you sure you want to delete filter set "${name}"?`)).toBeVisible();
  await dialog.getByRole("button", { name: "Delete" }).click();
  await expect(page.getByRole("list", { name: "Filter sets" }).getByText(name)).toHaveCount(0);
  await page.getByRole("button", { name: "Close panel" }).click();
  await expect(page.getByLabel("Filter set", { exact: true }), "filters were reset").toHaveValue("");
});

test("the benchmark choice is kept across a reload, and a PowerPoint export runs and opens", async ({ page, request }) => {
  test.setTimeout(120_000);
  const uma = await token(request, "user@acme.test");
  const team = await teamA(request, uma);
  await signIn(page);
  await page.goto(`/${team}/results/1/summary`);
  await expect(page.getByText("Benchmark: All customers and historical data")).toBeVisible();
  await page.getByRole("button", { name: "Benchmark", exact: true }).click();
  await page.getByRole("radio", { name: /Your team/ }).check();
  await page.getByRole("button", { name: "Close panel" }).click();
  await expect(page.getByText("Benchmark: Tests in your team")).toBeVisible();
  await page.reload();
  await expect(page.getByText("Benchmark: Tests in your team"), "remembered after a reload").toBeVisible();
  expect(await page.evaluate(() => localStorage.getItem("benchmarkId"))).toBe("2");

  await page.getByRole("button", { name: "Export", exact: true }).click();
  await page.getByRole("button", { name: "Create PowerPoint" }).click();
  await expect(page.getByRole("progressbar", { name: "PowerPoint export progress" })).toBeVisible();
  const download = page.waitForEvent("download");
  await page.getByRole("button", { name: "Download PowerPoint" }).click({ timeout: 90_000 });
  const file = await (await download).path();
  const zip = await JSZip.loadAsync(readFileSync(file!));
  expect(Object.keys(zip.files).some((f) => f.startsWith("ppt/slides/slide")), "the deck has slides").toBe(true);
  expect(Object.keys(zip.files).some((f) => f.startsWith("ppt/charts/")), "with native charts").toBe(true);
});

test("a project group page opens with the group's respondents", async ({ page, request }) => {
  const staff = await token(request, "staff@ideally.test");
  const uma = await token(request, "user@acme.test");
  const team = await teamA(request, uma);
  const g = await api(request, staff, team, "POST", "/api/v1/ProjectGroups", { name: `Snack tests ${Date.now()}`, description: "Idea screens of the snack range" });
  for (const projectId of [1, 2]) await api(request, staff, team, "POST", "/api/v1/ProjectGroupTags", { projectGroupId: g.id, projectId, name: "snacks" });
  const ws = await api(request, uma, team, "GET", `/api/v1/Responses/WeightSumGroup?projectGroupId=${g.id}`);
  await signIn(page);
  await page.goto(`/${team}/groups/${g.id}`);
  await expect(page.getByRole("heading", { level: 1, name: g.name })).toBeVisible();
  await expect(page.getByTestId("group-respondents")).toHaveText(ws.count.toLocaleString("en-US"));
  await expectChartsNamed(page, "group overview");
  await shot(page, "group-overview");
  await page.getByRole("link", { name: "Test options" }).click();
  await expect(page.getByRole("table", { name: "Top-2-box by project" })).toBeVisible();
  await axe(page, "group test options");
});

test("the AI chat answers a question with citations that open their chart, and takes feedback", async ({ page, request }) => {
  test.setTimeout(120_000);
  const team = await teamA(request, await token(request, "user@acme.test"));
  await signIn(page);
  await page.goto(`/${team}/results/1/chat`);
  await page.getByLabel("Your question").fill("Which test option did best on purchase intent?");
  await page.getByRole("button", { name: "Ask" }).click();
  await page.waitForURL(/\/chat\/\d+/);
  const answer = page.locator("[data-role=assistant]").first();
  await expect(answer, "an answer arrives over the websocket").toBeVisible({ timeout: 60_000 });
  const cite = answer.getByRole("link", { name: /^Source F\d+/ }).first();
  await expect(cite, "the answer cites its figures").toBeVisible();
  await answer.getByRole("button", { name: "Helpful", exact: true }).click();
  await expect(answer.getByRole("button", { name: "Helpful", exact: true })).toHaveAttribute("aria-pressed", "true");
  await shot(page, "chat");
  await axe(page, "chat");
  await cite.click();
  await expect(page, "the citation opens the chart it came from").toHaveURL(/\/results\/1\/(summary|grow-ideas\/\d+)/);
  await expect(page.locator("figure svg[role=img]").first()).toBeVisible();
});

test("rename (skipped when unchanged), clone, and an objective saved and deleted with the spec's texts", async ({ page, request }) => {
  test.setTimeout(120_000);
  const uma = await token(request, "user@acme.test");
  const team = await teamA(request, uma);
  const before = await api(request, uma, team, "GET", "/api/v1/Projects(6)?$select=projectName,updatedAt");
  await signIn(page);
  await page.goto(`/${team}/results/6/summary`);
  await page.getByRole("button", { name: "Rename project" }).click();
  await page.getByRole("dialog", { name: "Rename project" }).getByRole("button", { name: "Save" }).click();
  await expect(page.getByRole("dialog", { name: "Rename project" })).toHaveCount(0);
  await expect(page.getByText("Project Name Updated"), "an unchanged name is not saved").toHaveCount(0);
  const same = await api(request, uma, team, "GET", "/api/v1/Projects(6)?$select=projectName,updatedAt");
  expect(same.updatedAt, "no PATCH for an unchanged name").toBe(before.updatedAt);
  const renamed = `${before.projectName} (renamed)`;
  await page.getByRole("button", { name: "Rename project" }).click();
  await page.getByLabel("Project name").fill(renamed);
  await page.getByRole("dialog", { name: "Rename project" }).getByRole("button", { name: "Save" }).click();
  await expect(page.getByText("Project Name Updated")).toBeVisible();
  await expect(page.getByText(`Project name has been updated to '${renamed}'`)).toBeVisible();
  await expect(page.getByRole("heading", { level: 1, name: renamed })).toBeVisible();
  await request.fetch("/api/v1/Projects(6)", { method: "PATCH", data: { projectName: before.projectName }, headers: { authorization: `Bearer ${uma}`, clientId: String(team) } });

  await page.getByRole("button", { name: "Objectives", exact: true }).click();
  await expect(page.getByLabel("Your objective")).toHaveValue("Summarize the overall performance and highlight any significant audience skews in the results.");
  await page.getByLabel("Your objective").fill(`Which lunch style should a new meal-kit target? ${Date.now()}`);
  await page.getByRole("button", { name: "Save objective" }).click();
  await expect(page.getByText("Objective saved")).toBeVisible();
  await expect(page.getByText("We're currently analysing your objective and preparing summaries. This will take a few minutes.")).toBeVisible();
  await page.getByRole("button", { name: "Delete objective" }).first().click();
  const confirm = page.getByRole("dialog", { name: "Delete objective" });
  await expect(confirm.getByText("Are you sure you want to delete your custom objective?")).toBeVisible();
  await confirm.getByRole("button", { name: "Delete" }).click();
  await expect(confirm).toHaveCount(0);
  await page.getByRole("button", { name: "Close panel" }).click();

  await page.getByRole("button", { name: "Clone", exact: true }).click();
  const copy = `Lunch copy ${Date.now()}`;
  await page.getByLabel("Name of the copy").fill(copy);
  await page.getByRole("dialog", { name: "Clone project" }).getByRole("button", { name: "Clone" }).click();
  await expect(page.getByText("Project cloned")).toBeVisible();
  await expect(page.getByText(`Project '${copy}' has been cloned.`)).toBeVisible();
  await expect(page).toHaveURL(new RegExp(`/${team}/projects/\\d+`));
});
