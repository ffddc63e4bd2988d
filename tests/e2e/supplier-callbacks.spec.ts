import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { expect, test } from "@playwright/test";
import { apiCall, apiToken, clientIdByName, expectAxeClean, liveRunsOf, shot, signIn } from "./helpers";

// Staff see a supplier run's server-to-server callbacks on the admin surveys page and send a
// failed one again (docs/suppliers.md; decision record 0141). A local HTTP server plays the
// supplier: it refuses a rid's first callback with 400 (failed at once) and accepts the next. The
// rid arrives after the run closed, so its outcome (over-quota) and callback are recorded without
// answering the survey. Screenshots go to .tmp/screens.

let supplier: Server;
let base = "";
const seen = new Map<string, number>();

test.beforeAll(async () => {
  supplier = createServer((req, res) => {
    const rid = new URL(req.url ?? "/", "http://x").searchParams.get("rid") ?? "";
    const n = (seen.get(rid) ?? 0) + 1;
    seen.set(rid, n);
    res.statusCode = n === 1 ? 400 : 200;
    res.end(n === 1 ? "unknown transaction" : "ok");
  });
  await new Promise<void>((done) => supplier.listen(0, "127.0.0.1", done));
  base = `http://127.0.0.1:${(supplier.address() as AddressInfo).port}`;
});
test.afterAll(async () => {
  await new Promise((done) => supplier.close(done));
});

test("staff see a supplier run's callbacks, a failed one with its answer, and Resend delivers it", async ({ page, request }) => {
  test.setTimeout(120_000);
  const uma = await apiToken(request, "user@acme.test");
  const sam = await apiToken(request, "staff@ideally.test");
  const team = await clientIdByName(request, uma, "Acme Team A");
  const sup = await apiCall<{ id: number }>(request, sam, null, "POST", "/api/v1/SampleSuppliers", {
    name: `E2E supplier ${Date.now()}`,
    completeUrl: "https://sup.example/end?st=c&rid={rid}",
    screenOutUrl: "https://sup.example/end?st=s&rid={rid}",
    overQuotaUrl: "https://sup.example/end?st=q&rid={rid}",
    qualityTerminateUrl: "https://sup.example/end?st=t&rid={rid}",
    callbackUrl: `${base}/s2s?rid={rid}&status={outcome}`,
  });
  // The supplier is the wave's, chosen while the project awaits approval (its schedule is made at the
  // submit; record 0145): the run the fielding tick or CreateDecipherSurveys makes is the supplier's
  // from birth, whichever comes first.
  const p = await apiCall<{ id: number }>(request, uma, team, "POST", "/api/v1/Projects", { projectName: `Callbacks ${Date.now()}`, projectTypeId: 1, frameworkId: 1000, regionIds: [1] });
  const projectId = p.id;
  await apiCall(request, uma, team, "POST", "/api/v1/TestOptions", { projectId, conceptText: "Oat bar" });
  await apiCall(request, uma, team, "POST", `/api/v1/Projects(${projectId})/Submit`, {});
  const schedules = await apiCall<{ value: { id: number }[] }>(request, sam, team, "GET", `/api/v1/ProjectSchedules?$filter=projectId eq ${projectId}&$select=id`);
  expect(schedules.value.length).toBe(1);
  await apiCall(request, sam, team, "PATCH", `/api/v1/ProjectSchedules(${schedules.value[0]!.id})`, { sampleSupplierId: sup.id });
  await apiCall(request, sam, team, "POST", `/api/v1/Projects(${projectId})/SuperApprove`, {});
  const [runId] = await liveRunsOf(request, sam, team, projectId);
  const run = { surveyRunId: runId!, ...(await apiCall<{ surveyLink: string; sampleSource: string }>(request, sam, null, "GET", `/api/v1/SurveyRuns(${runId})?$select=surveyLink,sampleSource`)) };
  expect(run.sampleSource).toBe("supplier");
  await apiCall(request, sam, team, "POST", `/api/v1/SurveyRuns(${run.surveyRunId})/ForceCloseSurvey`);
  // A rid arriving after the close: sent back over quota, its callback sent at once (refused: 400).
  const late = await request.post(`/s/api/${run.surveyLink}/start`, { data: { entryQuery: `supplier=${sup.id}&rid=E1` } });
  expect(late.status(), await late.text()).toBe(200);
  await expect
    .poll(
      async () =>
        (await apiCall<{ value: { rid: string; state: string }[] }>(request, sam, null, "GET", `/api/v1/SurveyRuns(${run.surveyRunId})/SupplierCallbacks`)).value.map((c) => `${c.rid} ${c.state}`),
      { message: "the callback refused and failed", timeout: 60_000 },
    )
    .toEqual(["E1 failed"]);

  await signIn(page, "staff@ideally.test");
  await page.goto(`/admin/surveys?project=${projectId}`);
  const row = page.getByRole("row").filter({ hasText: `#${run.surveyRunId}` });
  await row.getByRole("button", { name: `Supplier callbacks of run ${run.surveyRunId}` }).click();
  const dialog = page.getByRole("dialog", { name: `Supplier callbacks of run ${run.surveyRunId}` });
  const e1 = dialog.getByRole("row").filter({ hasText: "E1" });
  await expect(e1).toContainText("over-quota");
  await expect(e1).toContainText("failed");
  await expect(e1).toContainText("HTTP 400");
  await expectAxeClean(page, "the callbacks dialog");
  await shot(page, "surveys-callbacks-failed");

  await e1.getByRole("button", { name: "Resend the callback of rid E1" }).click();
  await expect(page.getByText("Callback sent again")).toBeVisible();
  // The callbacks job was nudged: the supplier now accepts it.
  await expect(async () => {
    await dialog.getByRole("button", { name: "Refresh" }).click();
    await expect(e1).toContainText("delivered", { timeout: 2_000 });
  }).toPass({ timeout: 60_000 });
  await expect(e1).toContainText("series 2");
  await expect(e1).toContainText("HTTP 200");
  await expect(e1.getByRole("button", { name: "Resend the callback of rid E1" }), "a delivered callback is not offered again").toHaveCount(0);
  expect(seen.get("E1"), "the supplier was called twice").toBe(2);
  await shot(page, "surveys-callbacks-delivered");
});

test("staff field a supplier run from two suppliers, 60/40, in its Suppliers dialog, and read each one's cap", async ({ page, request }) => {
  const uma = await apiToken(request, "user@acme.test");
  const sam = await apiToken(request, "staff@ideally.test");
  const team = await clientIdByName(request, uma, "Acme Team A");
  const stamp = Date.now();
  const [first, second] = await Promise.all(
    ["First", "Second"].map((n) =>
      apiCall<{ id: number; name: string }>(request, sam, null, "POST", "/api/v1/SampleSuppliers", {
        name: `${n} supplier ${stamp}`,
        completeUrl: "https://sup.example/end?st=c&rid={rid}",
        screenOutUrl: "https://sup.example/end?st=s&rid={rid}",
        overQuotaUrl: "https://sup.example/end?st=q&rid={rid}",
        qualityTerminateUrl: "https://sup.example/end?st=t&rid={rid}",
      }),
    ),
  );
  const p = await apiCall<{ id: number }>(request, uma, team, "POST", "/api/v1/Projects", {
    projectName: `Two suppliers ${stamp}`,
    projectTypeId: 1,
    frameworkId: 1000,
    regionIds: [1],
    sampleSize: 200,
  });
  await apiCall(request, uma, team, "POST", "/api/v1/TestOptions", { projectId: p.id, conceptText: "Oat bar" });
  await apiCall(request, uma, team, "POST", `/api/v1/Projects(${p.id})/Submit`, {});
  const schedules = await apiCall<{ value: { id: number }[] }>(request, sam, team, "GET", `/api/v1/ProjectSchedules?$filter=projectId eq ${p.id}&$select=id`);
  await apiCall(request, sam, team, "PATCH", `/api/v1/ProjectSchedules(${schedules.value[0]!.id})`, { sampleSupplierId: first!.id });
  await apiCall(request, sam, team, "POST", `/api/v1/Projects(${p.id})/SuperApprove`, {});
  const [runId] = await liveRunsOf(request, sam, team, p.id);

  await signIn(page, "staff@ideally.test");
  await page.goto(`/admin/surveys?project=${p.id}`);
  await page.getByRole("button", { name: `Suppliers of run ${runId}` }).click();
  const dialog = page.getByRole("dialog", { name: `Suppliers of run ${runId}` });
  await expect(dialog.getByText("One supplier takes the run's respondents up to its quota.")).toBeVisible();
  await dialog.getByRole("button", { name: "Add a supplier" }).click();
  await dialog.getByRole("combobox", { name: "Supplier 1" }).selectOption({ label: first!.name });
  await dialog.getByRole("textbox", { name: "Share of supplier 1 (%)" }).fill("60");
  await expect(dialog.getByText("Total 60.00% (the shares must sum to 100%)")).toBeVisible();
  await expect(dialog.getByRole("button", { name: "Save shares" })).toBeDisabled();
  await dialog.getByRole("button", { name: "Add a supplier" }).click();
  await dialog.getByRole("combobox", { name: "Supplier 2" }).selectOption({ label: second!.name });
  await dialog.getByRole("textbox", { name: "Share of supplier 2 (%)" }).fill("40");
  await dialog.getByRole("button", { name: "Save shares" }).click();
  await expect(page.getByText("Allocations saved")).toBeVisible();
  // 60% and 40% of 200 completes: caps 120 and 80.
  await expect(dialog.getByRole("row").filter({ hasText: first!.name })).toContainText("60%120");
  await expect(dialog.getByRole("row").filter({ hasText: second!.name })).toContainText("40%80");
  const saved = await apiCall<{ value: { sampleSupplierId: number; cap: number }[] }>(request, sam, null, "GET", `/api/v1/SurveyRuns(${runId})/SampleAllocations`);
  expect(saved.value.map((a) => [a.sampleSupplierId, a.cap])).toEqual([
    [first!.id, 120],
    [second!.id, 80],
  ]);
  await expectAxeClean(page, "the Suppliers dialog");
  await shot(page, "surveys-allocations");
});
