// Backups restore: a pg_dump of a populated database (the fixtures plus fielded responses and
// pg-boss jobs) is restored into a fresh database, and every table's row count and a results query
// match (scripts/backup-check.ts, also `bun run db:backup-check` in production).
import { afterAll, beforeAll, expect, test } from "bun:test";
import { createTestDb, type TestDb } from "../helpers/db.ts";
import { checkBackupRestore } from "../../scripts/backup-check.ts";

let tdb: TestDb;
beforeAll(async () => {
  tdb = await createTestDb();
});
afterAll(async () => {
  await tdb.drop();
});

test("a pg_dump restores into a fresh database with every row and the same results", async () => {
  const [{ n }] = await tdb.db<{ n: number }[]>`select count(*)::int as n from responses`;
  expect(n, "the database is populated with responses").toBeGreaterThan(0);
  const r = await checkBackupRestore(tdb.url);
  expect(r.mismatches, r.mismatches.join("\n")).toEqual([]);
  expect(r.tables, "every table of the schema").toBeGreaterThan(60);
  expect(r.rows).toBeGreaterThan(1000);
  expect(r.resultsRows, "the results query has rows to compare").toBeGreaterThan(0);
}, 120_000);
