// The migration runner: applies in order, records each file, does nothing the second time, and
// refuses a file edited after it was applied (and a file that went missing).
import { afterAll, beforeAll, expect, test } from "bun:test";
import { cpSync, mkdtempSync, rmSync, writeFileSync, appendFileSync, unlinkSync } from "node:fs";
import { join } from "node:path";
import { tmpdir } from "node:os";
import postgres from "postgres";
import { connect, type Db } from "../../api/src/db/client.ts";
import { migrate, MIGRATIONS_DIR, migrationFiles } from "../../api/src/db/migrate.ts";
import { testServerAdminUrl } from "../helpers/server.ts";

let dir: string;
let db: Db;
let admin: postgres.Sql;
const name = `ideally_mig_${process.pid}`;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), "ideally-migrations-"));
  cpSync(MIGRATIONS_DIR, dir, { recursive: true });
  const adminUrl = await testServerAdminUrl();
  admin = postgres(adminUrl, { max: 1, onnotice: () => {} });
  await admin.unsafe(`drop database if exists "${name}" with (force)`);
  await admin.unsafe(`create database "${name}"`);
  const u = new URL(adminUrl);
  u.pathname = `/${name}`;
  db = connect(u.toString(), { max: 1 });
});

afterAll(async () => {
  await db.end();
  await admin.unsafe(`drop database if exists "${name}" with (force)`);
  await admin.end();
  rmSync(dir, { recursive: true, force: true });
});

test("applies every file once, in order, and records it", async () => {
  const first = await migrate(db, { dir });
  expect(first.applied).toEqual(migrationFiles(dir).map((f) => f.name));
  const second = await migrate(db, { dir });
  expect(second.applied, "nothing to do the second time").toEqual([]);
  const rows = await db<{ name: string }[]>`select name from schema_migrations order by name`;
  expect(rows.map((r) => r.name)).toEqual(first.applied);
});

test("a new file is applied; an edited applied file is refused", async () => {
  writeFileSync(join(dir, "9990_create_scratch.sql"), "create table scratch_x (id int primary key);\n");
  expect((await migrate(db, { dir })).applied).toEqual(["9990_create_scratch.sql"]);
  appendFileSync(join(dir, "9990_create_scratch.sql"), "-- an edit\n");
  await expect(migrate(db, { dir })).rejects.toThrow("migration 9990_create_scratch.sql was edited after it was applied");
});

test("a failing file rolls back whole and is not recorded", async () => {
  unlinkSync(join(dir, "9990_create_scratch.sql"));
  await expect(migrate(db, { dir })).rejects.toThrow("9990_create_scratch.sql was applied but its file is missing");
  writeFileSync(join(dir, "9990_create_scratch.sql"), "create table scratch_x (id int primary key);\n");
  writeFileSync(join(dir, "9991_create_broken.sql"), "create table half_made (id int);\nselect no_such_function();\n");
  await expect(migrate(db, { dir })).rejects.toThrow("migration 9991_create_broken.sql failed");
  const [t] = await db`select to_regclass('half_made') as t`;
  expect(t!.t, "nothing of the failed file remains").toBeNull();
  const [r] = await db`select count(*)::int as n from schema_migrations where name = '9991_create_broken.sql'`;
  expect(r!.n).toBe(0);
});

test("file names must follow NNNN_verb_noun.sql", () => {
  writeFileSync(join(dir, "bad name.sql"), "select 1;");
  expect(() => migrationFiles(dir)).toThrow("does not match NNNN_verb_noun.sql");
  unlinkSync(join(dir, "bad name.sql"));
});
