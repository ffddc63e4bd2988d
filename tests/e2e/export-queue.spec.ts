// A CSV export beyond the bound on exports in flight (issue 38, record 0134): the API queues it
// (202 with a job), the Export panel shows its progress and the browser saves the file when the job
// is done, the same file a synchronous export gives. The user's two allowed exports are held in the
// database by a table lock on the embedded PostgreSQL, so the page's export is the third; nothing
// is timed. Each export is read and built by an export worker (record 0137), so the test server
// runs two of them (EXPORT_WORKERS: playwright.config.ts): one alone would hold the second export
// in its line, short of the database. The two held exports name two clients (Acme Team A, and the Acme enterprise with its
// descendants), so each takes its own tenant's costly lane and both wait on the lock, where they
// are counted.
import { expect, test } from "@playwright/test";
import postgres from "postgres";
import { readFileSync } from "node:fs";
import { api, shot, signIn, token } from "./helpers";

const PG_PORT = process.env.E2E_PG_PORT ?? "54349";

test("a queued CSV export shows its progress and downloads the file when done", async ({ page, request }) => {
  test.setTimeout(120_000);
  const ada = await token(request, "admin@acme.test");
  const clientId = async (name: string) => (await api(request, ada, 0, "GET", `/api/v1/Clients?$select=id,name&$filter=name eq '${name}'`)).value[0].id as number;
  const team = await clientId("Acme Team A");
  const enterprise = await clientId("Acme");
  const csv = (client: number, scope: string) =>
    request.get("/api/v1/Projects(1)/ExportCsv", { headers: { authorization: `Bearer ${ada}`, clientId: String(client), requestscope: scope }, timeout: 90_000 });
  await signIn(page, "admin@acme.test");
  await page.goto(`/${team}/results/1/summary`);
  await expect(page.getByText("Effective sample (Kish)"), "the summary page has loaded").toBeVisible({ timeout: 30_000 });
  await page.getByRole("button", { name: "Export", exact: true }).click();

  // The server's database: DATABASE_URL when the run sets it (.ci/run does, and the server then uses
  // it: playwright.config.ts), else the embedded PostgreSQL the server starts on E2E_PG_PORT.
  const options = { max: 2, onnotice: () => {} };
  const url = process.env.DATABASE_URL;
  const sql = url ? postgres(url, options) : postgres({ host: "127.0.0.1", port: Number(PG_PORT), user: "postgres", password: "postgres", database: "ideally", ...options });
  // The exports' reads, waiting for the lock: an export worker's connections (record 0137; the
  // test server runs two workers, playwright.config.ts), not the page's own reads.
  const waitingOnLock = async () =>
    (await sql<{ n: number }[]>`select count(*)::int as n from pg_stat_activity where datname = current_database() and wait_event_type = 'Lock' and application_name = 'ideally export worker'`)[0]!.n;
  const locker = await sql.reserve();
  try {
    await locker`begin`;
    await locker`lock table project_survey_sessions in access exclusive mode`;
    const held = [csv(team, "client"), csv(enterprise, "descendants")];
    await expect.poll(waitingOnLock, { message: "the user's two exports are in flight", timeout: 30_000 }).toBe(2);
    await page.getByRole("button", { name: "Download CSV" }).click();
    const bar = page.getByRole("progressbar", { name: "CSV export progress" });
    await expect(bar, "the page's export was queued").toBeVisible({ timeout: 30_000 });
    await expect(page.getByTestId("data-export-job")).toContainText("CSV: queued");
    await shot(page, "export-queued");
    const download = page.waitForEvent("download", { timeout: 90_000 });
    await locker`commit`;
    const answers = await Promise.all(held);
    expect(
      answers.map((a) => a.status()),
      "the two held exports answered the file",
    ).toEqual([200, 200]);
    const sync = await answers[0]!.text();
    expect(sync).toMatch(/^Respondent,Market,/);
    const file = await (await download).path();
    expect(readFileSync(file!, "utf8"), "the queued file is the synchronous one").toBe(sync);
    await expect(page.getByTestId("data-export-job")).toContainText("Downloaded Plant-based-snacks-idea-screen.csv");
    await expect(bar).toHaveAttribute("aria-valuenow", "100");
    await shot(page, "export-queued-done");
  } finally {
    await locker`rollback`.catch(() => {});
    locker.release();
    await sql.end({ timeout: 1 });
  }
});
