import { expect, test, type Page } from "@playwright/test";
import { api, clientIdByName, shot, signIn, token, expectAxeClean } from "./helpers";

// All markets and cross-tabs on the demo data (issue 23): the market picker's "All markets" shows
// the all-markets total (QualResults total=markets) with its weighting under the header; the
// Markets page shows each market beside the total with the method of its letters (with one market
// picked it offers all markets instead of empty columns); the Cross-tabs
// page shows Likability by age, gender and market with the significance letters CrossTab answers.
// Both at 1440 and 390 px, axe-clean (no serious or critical violation). Screenshots in .tmp/screens.

const axe = (page: Page, where: string) => expectAxeClean(page, where);

test.describe.configure({ mode: "serial" });

for (const width of [1440, 390] as const) {
  test(`All markets, the market table and a cross-tab with significance letters at ${width} px`, async ({ page, request }) => {
    test.setTimeout(180_000);
    await page.setViewportSize({ width, height: width === 390 ? 844 : 1000 });
    const tok = await token(request, "user@acme.test");
    const team = await clientIdByName(request, tok, "Acme Team A");
    const projects = await api(request, tok, team, "GET", "/api/v1/Projects?$select=id,projectName&$expand=projectsRegions($select=regionId)&$filter=statusCode ge 800&$orderby=id");
    const p = projects.value.find((x: { projectsRegions: unknown[] }) => x.projectsRegions.length > 1);
    expect(p, "a demo project fielded in two markets").toBeTruthy();
    const regions = (p.projectsRegions as { regionId: number }[]).map((r) => r.regionId);
    await signIn(page, "user@acme.test");

    // All markets: the figures are the all-markets total, the weighting said under the header.
    await page.goto(`/${team}/results/${p.id}/all`);
    if (width === 390) await page.getByRole("button", { name: /^Filters/ }).click();
    await page.getByLabel("Market").selectOption({ label: "All markets" });
    const note = page.getByTestId("all-markets-note");
    await expect(note).toContainText("All markets: weighted by population");
    const qual = await api(request, tok, team, "GET", `/api/v1/Responses/QualResults?projectId=${p.id}&total=markets&filters=${encodeURIComponent(JSON.stringify({ regionIds: regions }))}`);
    expect(qual.total).toBe("markets");
    for (const s of qual.allMarkets.shares) await expect(note).toContainText(`${(s.share * 100).toFixed(1)}%`);
    const first = qual.measures.find((m: { standardQuestionId: number }) => m.standardQuestionId === 5) ?? qual.measures[0];
    await expect(page.getByTestId("top2-cell").first()).toBeVisible();
    const shown = await page.getByTestId("top2-cell").allInnerTexts();
    for (const r of first.results) expect(shown, "the page shows the all-markets total's figures").toContain(`${(r.top2 * 100).toFixed(1)}%`);
    await shot(page, `all-markets-${width}`);
    await axe(page, `all markets ${width}`);

    // The market-by-market table. With one market picked it says so, and offers all markets
    // (its table would be that market's column and empty columns for the others).
    await page.goto(`/${team}/results/${p.id}/markets?region=${regions[0]}`);
    await expect(page.getByRole("heading", { name: /^Showing .+ only$/ })).toBeVisible();
    await expect(page.getByTestId("market-row")).toHaveCount(0);
    await axe(page, `markets, one market, ${width}`);
    await page.getByRole("button", { name: "Compare all markets" }).click();
    await expect(page).toHaveURL(/[?&]region=0/);
    await expect(page.getByTestId("market-row").first()).toBeVisible();
    // Two markets and the total fit the screen, even a phone's: no column behind a scrollbar.
    const overflow = await page.getByRole("region", { name: /top-2-box by market$/ }).evaluateAll((els) => els.map((e) => e.scrollWidth - e.clientWidth));
    expect(overflow.length).toBeGreaterThan(0);
    expect(
      overflow.filter((w) => w > 1),
      "market tables wider than their box",
    ).toEqual([]);
    await expect(page.getByTestId("method-note")).toContainText("markets compared with each other as independent samples, not with the total");
    await expect(page.getByTestId("method-note")).toContainText(`over the table's ${qual.marketsMethod.tests} tests`);
    const sig = qual.markets.flatMap((m: { measures: { results: { vsMarkets: { significant: boolean; diff: number }[] }[] }[] }) =>
      m.measures.flatMap((x) => x.results.flatMap((r) => r.vsMarkets.filter((t) => t.significant && t.diff > 0))),
    );
    await expect(page.getByTestId("market-letters")).toHaveCount(sig.length);
    await shot(page, `markets-${width}`);
    await axe(page, `markets ${width}`);

    // A cross-tab (All markets still chosen): Likability by age group, gender and market, the
    // letters as CrossTab answers them.
    await page.goto(`/${team}/results/${p.id}/crosstab?region=0`);
    const table = page.getByTestId("crosstab");
    await expect(table).toBeVisible();
    await expect(page.getByLabel("Rows")).toHaveValue(/^measure:/);
    const rows = await page.getByLabel("Rows").inputValue();
    // All markets: CrossTab's all-markets total (each market reweighted to its population share), its Total column included.
    const x = await api(
      request,
      tok,
      team,
      "GET",
      `/api/v1/Responses/CrossTab?projectId=${p.id}&rows=${rows}&banner=demographic:51,demographic:45,market&total=markets&filters=${encodeURIComponent(JSON.stringify({ regionIds: regions }))}`,
    );
    expect(x.total).toBe("markets");
    for (const r of x.rows as { label: string; cells: { value: number | null }[] }[])
      await expect(
        table
          .getByRole("row")
          .filter({ has: page.getByRole("rowheader", { name: r.label, exact: true }) })
          .getByRole("cell")
          .first(),
      ).toContainText(`${(r.cells[0]!.value! * 100).toFixed(1)}%`);
    await expect(page.getByTestId("method-note")).toContainText("Weights: the all-markets total");
    const letters = x.rows.flatMap((r: { cells: { higherThan: string[] }[] }) => r.cells.filter((c) => c.higherThan.length).map((c) => c.higherThan.join("")));
    expect(letters.length, "the demo's cross-tab has significant differences").toBeGreaterThan(0);
    await expect(page.getByTestId("sig-letters")).toHaveText(letters);
    await expect(page.getByTestId("method-note")).toContainText("Benjamini-Hochberg adjustment over the table's");
    await shot(page, `crosstab-${width}`);
    await axe(page, `cross-tab ${width}`);
    // Another banner: ticking Market off leaves age and gender.
    await page.getByRole("checkbox", { name: "Market", exact: true }).uncheck();
    await expect(table.getByRole("columnheader", { name: "Market", exact: true })).toHaveCount(0);
    await expect(table.getByRole("columnheader", { name: "Gender", exact: true })).toHaveCount(1);
    // A question in the rows: one row per answer, as the API has them.
    const question = (
      await page
        .getByLabel("Rows")
        .locator("option")
        .evaluateAll((os) => os.map((o) => (o as HTMLOptionElement).value))
    ).find((v) => v.startsWith("question:"));
    if (question) {
      await page.getByLabel("Rows").selectOption(question);
      const qx = await api(
        request,
        tok,
        team,
        "GET",
        `/api/v1/Responses/CrossTab?projectId=${p.id}&rows=${question}&banner=demographic:51,demographic:45&total=markets&filters=${encodeURIComponent(JSON.stringify({ regionIds: regions }))}`,
      );
      await expect(table.getByRole("rowheader")).toHaveText(qx.rows.map((r: { label: string }) => r.label));
      await expect(table.getByRole("columnheader", { name: "Answer" })).toHaveCount(1);
    }
  });
}
