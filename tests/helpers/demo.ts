// The demo world as a server's first start seeds it (logins, teams, the fielded demo projects), for
// tests that read results on real-looking data, and the ids they look up in it.
//
// Fielding it takes a minute or more (the simulated panel answers every demo project), so it is
// built once into a template database (tests/helpers/db.ts, TemplateLayer) and each test file gets
// a copy. The template's name carries the UTC date (the demo's history is dated back from today)
// and a digest of everything the seeding runs: api/src, the migrations and reference data (through
// the base template's name), bun.lock, this file and tests/helpers/app.ts (the public URL and
// password hasher it seeds with). tests/api/demo.test.ts still seeds a database of its own: it
// tests the seeding.
import { createHash } from "node:crypto";
import { readdirSync, readFileSync } from "node:fs";
import { join, resolve } from "node:path";
import type { Db } from "../../api/src/db/client.ts";
import { seedDemo } from "../../api/src/db/demo.ts";
import { seedDemoProjects } from "../../api/src/domains/fielding/demo.ts";
import { registry } from "../../api/src/entities/index.ts";
import { TEST_PUBLIC_URL, testPasswords } from "./app.ts";
import { baseTemplateName, createTestDb, type TemplateLayer, type TestDb } from "./db.ts";

const ROOT = resolve(import.meta.dir, "../..");

/**
 * The time a beforeAll that copies the demo world may take: a guard against a hang, not a time the
 * build must meet. The first file of a run builds the template (seconds on a quiet machine); with a
 * second copy of the suite and other work on two cores, building it, or waiting for the other run's
 * build (ensureTemplate's lock), took over three minutes (docs/testing.md, "Two copies side by side").
 */
export const DEMO_WORLD_HOOK_MS = 600_000;

/** Seeds the demo's logins and teams, then its fielded projects; their ids. */
async function seedDemoWorld(db: Db): Promise<number[]> {
  await seedDemo(db, testPasswords.hash, { whenEmpty: true });
  return seedDemoProjects(db, registry, TEST_PUBLIC_URL);
}

/** The demo projects of a database seeded by seedDemoWorld, in the order it returns them. */
async function demoProjectIds(db: Db): Promise<number[]> {
  return (await db<{ id: number }[]>`select id from projects order by id`).map((r) => r.id);
}

function filesUnder(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true, recursive: true })
    .filter((e) => e.isFile())
    .map((e) => join(e.parentPath, e.name))
    .sort();
}

/** The demo world's template layer: its name changes with the day and with the code that seeds it. */
export function demoWorldLayer(today = new Date().toISOString().slice(0, 10)): TemplateLayer {
  const h = createHash("sha256").update(baseTemplateName(false));
  for (const f of [...filesUnder(join(ROOT, "api/src")), ...["bun.lock", "tests/helpers/demo.ts", "tests/helpers/app.ts"].map((f) => join(ROOT, f))]) {
    h.update(f.slice(ROOT.length)).update(readFileSync(f));
  }
  const day = today.replaceAll("-", "");
  return {
    name: `demo_${day}_${h.digest("hex").slice(0, 12)}`,
    async build(db) {
      const ids = await seedDemoWorld(db);
      // Copies find their project ids by reading them back; make sure that reads what seeding made.
      const read = await demoProjectIds(db);
      if (JSON.stringify(read) !== JSON.stringify(ids)) throw new Error(`demo template: seeded projects ${ids.join(",")} but reads back ${read.join(",")}`);
    },
    // Older days' demo templates (this checkout's or another's) are not used again.
    async prune(admin) {
      const old = await admin<{ datname: string }[]>`select datname from pg_database where datname ~ '^ideally_tmpl_demo_[0-9]{8}_[0-9a-f]{12}$' and substr(datname, 19, 8) < ${day}`;
      for (const { datname } of old) await admin.unsafe(`drop database if exists "${datname}"`).catch(() => {});
    },
  };
}

/**
 * A database of its own for a test file holding the fielded demo world (the same data
 * seedDemoWorld writes into an empty one), copied from a template built on first use; and the
 * demo projects' ids, as seedDemoWorld returns them.
 */
export async function createDemoWorldDb(opts: { onQuery?: (text: string, params: readonly unknown[]) => void } = {}): Promise<{ tdb: TestDb; projectIds: number[] }> {
  const tdb = await createTestDb({ fixtures: false, layer: demoWorldLayer(), onQuery: opts.onQuery });
  return { tdb, projectIds: await demoProjectIds(tdb.db) };
}

/** Acme Team A, the demo User's team. */
export async function demoTeam(db: Db): Promise<number> {
  const [team] = await db<{ id: number }[]>`select id from clients where name = 'Acme Team A'`;
  return team!.id;
}

/** A demo project of Acme Team A, by name. */
export async function demoProject(db: Db, team: number, name: string): Promise<number> {
  const [p] = await db<{ id: number }[]>`select id from projects where project_name = ${name} and client_id = ${team}`;
  if (!p) throw new Error(`no demo project '${name}' in team ${team}`);
  return p.id;
}
