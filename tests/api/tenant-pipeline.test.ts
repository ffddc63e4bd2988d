// readManyAsTenant (db/tx.ts): several reads in one tenant transaction and one round trip. The
// statements run after the entry (row-level security binds them, as the app role), a failed entry
// is the error thrown, and a statement started after an awaited result is refused rather than run
// behind COMMIT, outside the transaction.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { createTestDb, type TestDb } from "../helpers/db.ts";
import { readManyAsTenant } from "../../api/src/db/tx.ts";
import type { Tx } from "../../api/src/db/client.ts";

let tdb: TestDb;
beforeAll(async () => {
  tdb = await createTestDb();
});
afterAll(async () => {
  await tdb.drop();
});

const globex = { userId: 9006, clientId: 2001, descendants: false };

describe("readManyAsTenant", () => {
  test("pipelined statements run inside the tenant, as the app role, in one transaction", async () => {
    const { value, role } = await readManyAsTenant(tdb.db, globex, (tx) =>
      Promise.all([
        tx<{ id: number; clientId: number }[]>`select id, client_id as "clientId" from projects`,
        tx<{ role: string; xid: string }[]>`select current_user as role, txid_current()::text as xid`,
        (async () => (await tx<{ xid: string }[]>`select txid_current()::text as xid`)[0]!.xid)(),
      ]),
    );
    const [projects, [who], xid] = value;
    expect(role, "Globex's admin is an Admin").toBe(1);
    expect(projects.length).toBeGreaterThan(0);
    expect(
      projects.every((p) => p.clientId === 2001 || p.id === 1001),
      "row-level security shows Globex its rows (and the share)",
    ).toBe(true);
    expect(who!.role, "the app role, not the connection's superuser").toBe("ideally_app");
    expect(xid, "one transaction").toBe(who!.xid);
  });

  test("a failed entry is the error, and no statement runs without it", async () => {
    let ran = 0;
    await expect(
      readManyAsTenant(tdb.db, { userId: 9006, clientId: 1003, descendants: false }, (tx) => Promise.all([tx`select 1`.then(() => ran++), tx`select 2`.then(() => ran++)])),
      "entering a client without a membership fails",
    ).rejects.toThrow(/no access/);
    expect(ran, "the statements were refused by the aborted transaction").toBe(0);
  });

  test("a statement started after an awaited result is refused", async () => {
    let late: unknown = null;
    await expect(
      readManyAsTenant(tdb.db, globex, async (tx: Tx) => {
        await tx`select 1`;
        try {
          return await tx`select id from projects`;
        } catch (e) {
          late = e;
          throw e;
        }
      }),
    ).rejects.toThrow(/after an awaited result/);
    expect(String(late)).toContain("outside the transaction");
    // The connection went back to the pool clean: the next transaction works.
    const { value } = await readManyAsTenant(tdb.db, globex, (tx) => tx<{ n: number }[]>`select 1 as n`);
    expect(value[0]!.n).toBe(1);
  });
});
