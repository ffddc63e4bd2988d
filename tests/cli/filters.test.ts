// The response filter the CLI sends (`results`, `export`), read off the wire: the CLI runs against
// a stand-in API that records the `filters` parameter of each ExportCsv call, so each expectation
// is the JSON object docs/cli.md describes, written by hand:
// - "repeat `--filter`" and "ids comma-separated" (`region=1,2`): a key given twice adds its ids,
//   `--filter region=1 --filter region=2` is `region=1,2` ({ regionIds: [1, 2] });
// - "`--segment ID` applies a saved filter set (options given with `--filter` win per key)": the
//   segment's keys that no --filter names stay, the ones a --filter names take the option's value.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdirSync } from "node:fs";
import { dirname } from "node:path";
import { cliHarness, type CliHarness } from "../helpers/cli.ts";

/** The saved filter set of segment 7 (SPEC 3's response filter). */
const SEGMENT_7 = { regionIds: [1, 2], testOptionIds: [22], panelType: "Ideally", dateFrom: "2026-01-01T00:00:00.000Z" };

let server: ReturnType<typeof Bun.serve>;
let cli: CliHarness;
/** The `filters` parameter of each ExportCsv call, parsed (null: none sent). */
const sent: (Record<string, unknown> | null)[] = [];

beforeAll(() => {
  server = Bun.serve({
    port: 0,
    hostname: "127.0.0.1",
    fetch(req) {
      const url = new URL(req.url);
      const path = decodeURIComponent(url.pathname);
      if (path === "/api/v1/Projects(42)") return Response.json({ id: 42, projectName: "Oat bars", statusCode: 900, projectType: "Idea" });
      if (path === "/api/v1/Segments(7)") return Response.json({ id: 7, name: "Young women", responsesFilters: SEGMENT_7 });
      if (path === "/api/v1/Projects(42)/ExportCsv") {
        const f = url.searchParams.get("filters");
        sent.push(f === null ? null : JSON.parse(f));
        return new Response("Respondent\r\n1\r\n", { headers: { "content-type": "text/csv" } });
      }
      return Response.json({ typename: "NotFound", message: `no ${path} here` }, { status: 404 });
    },
  });
  const api = `http://127.0.0.1:${server.port}`;
  cli = cliHarness(api);
  mkdirSync(dirname(cli.configFile), { recursive: true });
  cli.writeConfig({ session: { api, email: "user@acme.test", userId: 9003, accessToken: "stand-in", expiresAt: Date.now() + 86400_000, refreshToken: null, clientId: 1003 } });
});
afterAll(() => {
  cli?.dispose();
  server?.stop(true);
});

/** Runs `ideally export 42 --format csv -o - ARGS` and answers the filter it sent. */
async function filterSent(args: string[]): Promise<Record<string, unknown> | null> {
  const before = sent.length;
  const r = await cli.run(["export", "42", "--format", "csv", "-o", "-", ...args]);
  expect([r.code, r.stdout], r.stderr).toEqual([0, "Respondent\r\n1\r\n"]);
  expect(sent.length - before, "one ExportCsv call").toBe(1);
  return sent[sent.length - 1]!;
}

describe("--filter", () => {
  test("no filter: no filters parameter", async () => {
    expect(await filterSent([])).toBeNull();
  });

  test("a repeated key adds its ids, as one comma-separated list would", async () => {
    expect(await filterSent(["--filter", "region=1", "--filter", "region=2"])).toEqual({ regionIds: [1, 2] });
    expect(await filterSent(["--filter", "region=1,2"])).toEqual({ regionIds: [1, 2] });
    expect(await filterSent(["--filter", "answer=301,302", "--filter", "option=22", "--filter", "answer=303"])).toEqual({ questionOptionsIds: [301, 302, 303], testOptionIds: [22] });
  });

  test("--filter wins over --segment per key; the segment's other keys stay", async () => {
    expect(await filterSent(["--segment", "7"]), "the segment alone").toEqual(SEGMENT_7);
    expect(await filterSent(["--segment", "7", "--filter", "region=3"])).toEqual({ ...SEGMENT_7, regionIds: [3] });
    expect(await filterSent(["--filter", "panel=Customer", "--segment", "7", "--filter", "demographic=451"])).toEqual({ ...SEGMENT_7, panelType: "Customer", filterIds: [451] });
  });
});
