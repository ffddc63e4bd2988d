// Test databases: the schema is migrated (with reference data and fixtures) once into a template
// database named by a hash of its inputs, then every test file gets its own
// CREATE DATABASE ... TEMPLATE copy: fast and isolated. A layer (the fielded demo world) is built
// once the same way over a copy of that template, into a template of its own.
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
  u.pathname = `/${name}`;
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

/**
 * TEST_DB_TAG (set by .ci/run, [a-z0-9], at most 16): the per-file databases of one run are named
 * `ideally_t_{tag}_...`, so the run's cleanup drops its own and never those of another run beside it
 * on the same PostgreSQL (two copies of the suite side by side, docs/testing.md).
 */
function runTag(): string {
  const tag = process.env.TEST_DB_TAG;
  if (!tag) return "";
  if (!/^[a-z0-9]{1,16}$/.test(tag)) throw new Error(`TEST_DB_TAG '${tag}': [a-z0-9], at most 16 characters`);
  return `${tag}_`;
}

const ready = new Map<string, Promise<void>>();

async function ensureTemplate(admin: postgres.Sql, adminUrl: string, name: string, build: (db: Db) => Promise<void>, from?: string): Promise<void> {
  const [exists] = await admin`select 1 from pg_database where datname = ${name}`;
  if (exists) return;
  // One builder per template on this PostgreSQL: a second run beside this one (two copies of the
  // suite, docs/testing.md) waits for the first's build and copies it instead of building its own
  // beside it, which doubled the heaviest work of both (the fielded demo world). A session lock on
  // the admin connection (max 1), released when it ends.
  await admin`select pg_advisory_lock(hashtext(${`ideally template ${name}`}))`;
  try {
    const [built] = await admin`select 1 from pg_database where datname = ${name}`;
    if (built) return;
    await buildTemplate(admin, adminUrl, name, build, from);
  } finally {
    await admin`select pg_advisory_unlock(hashtext(${`ideally template ${name}`}))`;
  }
}

async function buildTemplate(admin: postgres.Sql, adminUrl: string, name: string, build: (db: Db) => Promise<void>, from?: string): Promise<void> {
  // Build under a temporary name, then rename: a half-built template is never used.
  const building = `${name}_b${process.pid}`;
  await admin.unsafe(`drop database if exists "${building}"`);
  await admin.unsafe(from ? `create database "${building}" template "${from}"` : `create database "${building}"`);
  // The pool of a test's database (createTestDb): the demo world's fielding tick answers three runs
  // side by side, each on a connection of its own.
  const db = connect(withDb(adminUrl, building), { max: 4 });
  try {
    await build(db);
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

/**
 * A layer of data over the migrated template, built once into a template of its own and copied
 * for each test file that asks for it (the fielded demo world: tests/helpers/demo.ts). `name` must
 * change whenever what `build` writes could (a digest of the code it runs), and be a safe
 * identifier: [a-z0-9_], at most 40 characters.
 */
export interface TemplateLayer {
  name: string;
  build(db: Db): Promise<void>;
  /** Called before the layer's template is built: e.g. to drop older versions of it. */
  prune?(admin: postgres.Sql): Promise<void>;
}

export interface TestDb {
  url: string;
  name: string;
  db: Db;
  drop(): Promise<void>;
}

/** The base template's name (migrations, reference data and fixtures or not), for layers' names. */
export function baseTemplateName(fixtures = true): string {
  return templateName(fixtures);
}

/**
 * A fresh database for one test file: migrated, reference data, and (by default) fixtures; with a
 * `layer`, a copy of that layer's template instead (built on the first call, then reused).
 */
export async function createTestDb(opts: { fixtures?: boolean; layer?: TemplateLayer; onQuery?: (text: string, params: readonly unknown[]) => void } = {}): Promise<TestDb> {
  const fixtures = opts.fixtures ?? true;
  const adminUrl = await testServerAdminUrl();
  const admin = postgres(adminUrl, { max: 1, onnotice: () => {} });
  // Template names in this file are built from hex digests (a layer's from its own): safe in the
  // statement text.
  const base = templateName(fixtures);
  let tmpl = base;
  try {
    if (!ready.has(base))
      ready.set(
        base,
        ensureTemplate(admin, adminUrl, base, (db) => migrateWithFixtures(db, fixtures)),
      );
    await ready.get(base);
    if (opts.layer) {
      const layer = opts.layer;
      if (!/^[a-z0-9_]{1,40}$/.test(layer.name)) throw new Error(`template layer name '${layer.name}': [a-z0-9_], at most 40 characters`);
      tmpl = `ideally_tmpl_${layer.name}`;
      if (!ready.has(tmpl)) {
        ready.set(
          tmpl,
          (async () => {
            await layer.prune?.(admin);
            await ensureTemplate(admin, adminUrl, tmpl, layer.build, base);
          })(),
        );
      }
      await ready.get(tmpl);
    }
    const name = `ideally_t_${runTag()}${Date.now().toString(36)}_${Math.random().toString(36).slice(2, 8)}`;
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
