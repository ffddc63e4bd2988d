// bun run db:backup-check: proves a backup restores. Takes a pg_dump (custom format) of
// DATABASE_URL's database, restores it with pg_restore into a fresh database on the same server,
// and compares every table's row count (the app's schema and pg-boss's) and a results query
// (weighted completes and top-2-box share per project and test option) between the two; then
// drops the copy. Exit 0 when everything matches. Needs pg_dump/pg_restore of the server's major
// version (Debian: postgresql-client-15). Keep the dump with --keep FILE.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import postgres from "postgres";

export interface BackupCheck {
  tables: number;
  rows: number;
  mismatches: string[];
  resultsRows: number;
  dumpBytes: number;
}

type Sql = postgres.Sql;

async function tableCounts(sql: Sql): Promise<Map<string, number>> {
  const tables = await sql<{ t: string }[]>`
    select format('%I.%I', schemaname, tablename) as t from pg_tables
    where schemaname not in ('pg_catalog', 'information_schema') order by 1`;
  const out = new Map<string, number>();
  for (const { t } of tables) {
    // Safe: names come from pg_tables, quoted by format('%I').
    const [r] = (await sql.unsafe(`select count(*)::int as n from ${t}`)) as unknown as { n: number }[];
    out.set(t, r!.n);
  }
  return out;
}

/** A results query: weighted completes and top-2-box share per project and test option. */
async function resultsQuery(sql: Sql): Promise<string> {
  const rows = await sql`
    select r.project_id, r.test_option_id, count(distinct r.project_survey_session_id)::int as completes,
           round(sum(s.weight)::numeric, 6)::text as weight,
           round((sum(s.weight) filter (where r.standard_answer_value >= 4)
                  / nullif(sum(s.weight) filter (where r.standard_answer_value is not null), 0))::numeric, 6)::text as top2
    from responses r join project_survey_sessions s on s.id = r.project_survey_session_id
    group by 1, 2 order by 1, 2`;
  return JSON.stringify(rows);
}

function run(cmd: string[]): void {
  const p = Bun.spawnSync(cmd, { stdout: "pipe", stderr: "pipe" });
  if (p.exitCode !== 0) throw new Error(`${cmd[0]} failed: ${p.stderr.toString().trim().split("\n").slice(-3).join(" | ")}`);
}

export async function checkBackupRestore(url: string, opts: { keep?: string } = {}): Promise<BackupCheck> {
  const dir = mkdtempSync(join(tmpdir(), "ideally-backup-"));
  const file = opts.keep ?? join(dir, "backup.dump");
  const target = new URL(url);
  const copyName = `${target.pathname.slice(1)}_restore_${Date.now().toString(36)}`.slice(0, 63);
  const admin = new URL(url);
  admin.pathname = "/postgres";
  const adminSql = postgres(admin.toString(), { max: 1, onnotice: () => {} });
  const copy = new URL(url);
  copy.pathname = `/${copyName}`;
  const source = postgres(url, { max: 1, onnotice: () => {} });
  let restored: Sql | undefined;
  try {
    // The dump and the source's counts read one snapshot (exported from a repeatable-read
    // transaction), so a live database that keeps changing still compares exactly.
    const snapshot = await source.begin("isolation level repeatable read read only", async (tx) => {
      const [{ id }] = await tx<{ id: string }[]>`select pg_export_snapshot() as id`;
      run(["pg_dump", "--format=custom", `--snapshot=${id}`, "--file", file, url]);
      return { counts: await tableCounts(tx as unknown as Sql), results: await resultsQuery(tx as unknown as Sql) };
    });
    const dumpBytes = Bun.file(file).size;
    // Safe: the name is the source database's name plus a base-36 suffix, quoted.
    await adminSql.unsafe(`create database "${copyName.replace(/"/g, '""')}"`);
    run(["pg_restore", "--exit-on-error", "--no-owner", "--dbname", copy.toString(), file]);
    restored = postgres(copy.toString(), { max: 1, onnotice: () => {} });
    const [a, b] = [snapshot.counts, await tableCounts(restored)];
    const mismatches: string[] = [];
    for (const [t, n] of a) if (b.get(t) !== n) mismatches.push(`${t}: ${n} rows, restored ${b.get(t) ?? "missing"}`);
    for (const t of b.keys()) if (!a.has(t)) mismatches.push(`${t}: only in the restore`);
    const [ra, rb] = [snapshot.results, await resultsQuery(restored)];
    if (ra !== rb) mismatches.push("the results query differs");
    return { tables: a.size, rows: [...a.values()].reduce((x, y) => x + y, 0), mismatches, resultsRows: JSON.parse(ra).length, dumpBytes };
  } finally {
    await source.end();
    await restored?.end();
    await adminSql.unsafe(`drop database if exists "${copyName.replace(/"/g, '""')}" with (force)`).catch(() => {});
    await adminSql.end();
    if (!opts.keep) rmSync(dir, { recursive: true, force: true });
  }
}

if (import.meta.main) {
  const url = process.env.DATABASE_URL;
  if (!url) {
    console.error("db:backup-check needs DATABASE_URL");
    process.exit(2);
  }
  const keepAt = process.argv.indexOf("--keep");
  const r = await checkBackupRestore(url, { keep: keepAt > 0 ? process.argv[keepAt + 1] : undefined });
  console.log(`backup of ${r.dumpBytes} bytes restored: ${r.tables} tables, ${r.rows} rows, ${r.resultsRows} results rows compared`);
  for (const m of r.mismatches) console.error(`mismatch: ${m}`);
  process.exit(r.mismatches.length ? 1 : 0);
}
