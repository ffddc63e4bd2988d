// Test databases: the schema is migrated (with reference data and fixtures) once into a template
// database named by a hash of its inputs, then every test file gets its own
// CREATE DATABASE ... TEMPLATE copy: fast and isolated.
import { createHash } from "node:crypto";
import { readFileSync } from "node:fs";
import { join, resolve } from "node:path";
import postgres from "postgres";
import { connect, type Db } from "../../api/src/db/client.ts";
import { migrate, migrationFiles } from "../../api/src/db/migrate.ts";
import { testServerAdminUrl } from "./server.ts";

const ROOT = resolve(import.meta.dir, "../..");
const FIXTURES = join(ROOT, "tests/helpers/fixtures.sql");
const REFERENCE = join(ROOT, "api/src/db/reference-data.sql");

function withDb(url: string, name: string): string {
  const u = new URL(url);
  u.pathname = "/" + name;
  return u.toString();
}

function templateName(fixtures: boolean): string {
  const h = createHash("sha256");
  for (const f of migrationFiles()) h.update(f.name).update(f.checksum);
  h.update(readFileSync(REFERENCE));
  if (fixtures) h.update(readFileSync(FIXTURES));
  return `ideally_tmpl_${fixtures ? "fx" : "ref"}_${h.digest("hex").slice(0, 12)}`;
}

/** Migrations, reference data and (by default) the fixtures, into an empty database. */
export async function migrateWithFixtures(db: Db, fixtures = true): Promise<void> {
  await migrate(db);
  if (fixtures) await db.unsafe(readFileSync(FIXTURES, "utf8")); // our own file, no input
}

const ready = new Map<string, Promise<void>>();

async function ensureTemplate(admin: postgres.Sql, adminUrl: string, name: string, fixtures: boolean): Promise<void> {
  const [exists] = await admin`select 1 from pg_database where datname = ${name}`;
  if (exists) return;
  // Build under a temporary name, then rename: a half-built template is never used.
  const building = `${name}_b${process.pid}`;
  await admin.unsafe(`drop database if exists "${building}"`);
  await admin.unsafe(`create database "${building}"`);
  const db = connect(withDb(adminUrl, building), { max: 1 });
  try {
    await migrateWithFixtures(db, fixtures);
  } finally {
    await db.end();
  }
  try {
    await admin.unsafe(`alter database "${building}" rename to "${name}"`);
  } catch {
    // Another process built it meanwhile.
    await admin.unsafe(`drop database if exists "${building}"`);
  }
}

export interface TestDb {
  url: string;
  name: string;
  db: Db;
  drop(): Promise<void>;
}

/** A fresh database for one test file: migrated, reference data, and (by default) fixtures. */
export async function createTestDb(opts: { fixtures?: boolean; onQuery?: (text: string, params: readonly unknown[]) => void } = {}): Promise<TestDb> {
  const fixtures = opts.fixtures ?? true;
  const adminUrl = await testServerAdminUrl();
  const admin = postgres(adminUrl, { max: 1, onnotice: () => {} });
  // Template names in this file are built from hex digests: safe in the statement text.
  const tmpl = templateName(fixtures);
  try {
    if (!ready.has(tmpl)) ready.set(tmpl, ensureTemplate(admin, adminUrl, tmpl, fixtures));
    await ready.get(tmpl);
    const name = `ideally_t_${Date.now().toString(36)}_${Math.random().toString(36).slice(2, 8)}`;
    await admin.unsafe(`create database "${name}" template "${tmpl}"`);
    const url = withDb(adminUrl, name);
    const db = connect(url, { max: 4, onQuery: opts.onQuery });
    return {
      url,
      name,
      db,
      async drop() {
        await db.end({ timeout: 1 });
        const a = postgres(adminUrl, { max: 1, onnotice: () => {} });
        await a.unsafe(`drop database if exists "${name}" with (force)`);
        await a.end();
      },
    };
  } finally {
    await admin.end();
  }
}
