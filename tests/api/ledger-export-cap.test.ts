// ExportTransactionListCsv's bound (issue 38): a client's ledger is exported whole up to
// LEDGER_EXPORT_MAX_ROWS entries; a ledger with more is refused before the first byte (400 in the
// spec's error shape, naming the count and the cap), so no export holds its transaction and the
// costly lane for a ledger of any length. The cap is tested at its edge with the fixtures' ledger:
// a cap of exactly its entries exports them all, one fewer is refused.
import { afterAll, beforeAll, expect, test } from "bun:test";
import { createTestDb, type TestDb } from "../helpers/db.ts";
import { PRINCIPALS } from "../helpers/app.ts";
import { connect, type Db } from "../../api/src/db/client.ts";
import { access } from "../../api/src/access/policy.ts";
import type { RequestCtx } from "../../api/src/access/principal.ts";
import { exportTransactionListCsv } from "../../api/src/domains/credits/credits.service.ts";
import { LEDGER_EXPORT_MAX_ROWS } from "../../api/src/config.ts";

let tdb: TestDb;
let db: Db;
beforeAll(async () => {
  tdb = await createTestDb();
  db = connect(tdb.url, { max: 2 });
});
afterAll(async () => {
  await db?.end({ timeout: 1 });
  await tdb.drop();
});

const admin: RequestCtx = { principal: PRINCIPALS.acmeAdmin!, clientId: 1003, descendants: false, access: access.admin };

test("a ledger of exactly the cap's entries is exported whole; one entry more than the cap is refused before any byte", async () => {
  const [row] = await tdb.db<{ n: number }[]>`select count(*)::int as n from credit_logs where client_id = 1003`;
  const n = row!.n;
  expect(n, "the fixtures give client 1003 a ledger").toBeGreaterThan(1);
  const whole = await new Response(await exportTransactionListCsv(db, admin, { clientId: 1003 }, n)).text();
  expect(whole.trimEnd().split("\r\n").length, "the header and every entry").toBe(n + 1);
  const refused = await exportTransactionListCsv(db, admin, { clientId: 1003 }, n - 1).catch((e: unknown) => e);
  expect(refused).toMatchObject({ name: "ApiError", code: "BadRequest", status: 400 });
  expect((refused as Error).message).toBe(`This client's ledger has ${n} entries, more than the ${n - 1} one export answers; nothing was exported`);
  expect(LEDGER_EXPORT_MAX_ROWS, "the documented cap (docs/credits.md)").toBe(100_000);
});
