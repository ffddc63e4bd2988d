// The migration runner: applies migrations/NNNN_verb_noun.sql in order, each in its own
// transaction, records name and checksum, and refuses a file edited after it was applied.
// Then it runs the idempotent post-migration steps (app role grants, reference data).
import { readdirSync, readFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { createHash } from "node:crypto";
import type { Db, Tx } from "./client.ts";
import { APP_ROLE } from "./roles.ts";

const ROOT = resolve(import.meta.dir, "../../..");
export const MIGRATIONS_DIR = join(ROOT, "migrations");
const REFERENCE_DATA = join(import.meta.dir, "reference-data.sql");
const NAME = /^\d{4}_[a-z0-9_]+\.sql$/;
/** Arbitrary constant: serialises concurrent starts of several API processes. */
const LOCK_KEY = 7_311_001;

export interface MigrationFile {
  name: string;
  sql: string;
  checksum: string;
}

export function migrationFiles(dir = MIGRATIONS_DIR): MigrationFile[] {
  return readdirSync(dir)
    .filter((f) => f.endsWith(".sql"))
    .sort()
    .map((name) => {
      if (!NAME.test(name)) throw new Error(`migration file name ${name} does not match NNNN_verb_noun.sql`);
      const sql = readFileSync(join(dir, name), "utf8");
      return { name, sql, checksum: createHash("sha256").update(sql).digest("hex") };
    });
}

export interface MigrateResult {
  applied: string[];
}

export async function migrate(db: Db, opts: { dir?: string; log?: (m: string) => void } = {}): Promise<MigrateResult> {
  const log = opts.log ?? (() => {});
  const files = migrationFiles(opts.dir);
  const applied: string[] = [];
  await db.begin(async (tx) => {
    await tx`select pg_advisory_xact_lock(${LOCK_KEY})`;
    await tx`create table if not exists schema_migrations (
      name text primary key, checksum text not null, applied_at timestamptz not null default now())`;
    const done = new Map<string, string>();
    for (const r of await tx<{ name: string; checksum: string }[]>`select name, checksum from schema_migrations`) {
      done.set(r.name, r.checksum);
    }
    for (const [name] of done) {
      if (!files.some((f) => f.name === name)) throw new Error(`migration ${name} was applied but its file is missing`);
    }
    for (const f of files) {
      const sum = done.get(f.name);
      if (sum !== undefined) {
        if (sum !== f.checksum) {
          throw new Error(`migration ${f.name} was edited after it was applied; add a new migration instead`);
        }
        continue;
      }
      // Migration files are the project's own SQL, not input: unsafe() runs them as scripts.
      await tx
        .savepoint(async (sp) => {
          await sp.unsafe(f.sql);
          await sp`insert into schema_migrations (name, checksum) values (${f.name}, ${f.checksum})`;
        })
        .catch((e: Error) => {
          throw new Error(`migration ${f.name} failed: ${e.message}`);
        });
      applied.push(f.name);
      log(`migrated ${f.name}`);
    }
    await postMigrate(tx);
  });
  return { applied };
}

/** Idempotent steps that run after every migrate: grants for the app role and reference data. */
async function postMigrate(tx: Tx): Promise<void> {
  await tx.unsafe(APP_ROLE_SQL);
  await tx.unsafe(readFileSync(REFERENCE_DATA, "utf8"));
}

// Roles are cluster-wide, so creation is guarded; grants are repeated so new tables are covered.
const APP_ROLE_SQL = `
do $$ begin
  if not exists (select 1 from pg_roles where rolname = '${APP_ROLE}') then
    create role ${APP_ROLE} nologin nobypassrls;
  end if;
exception when duplicate_object then null; -- another database of this cluster created it meanwhile
end $$;
grant usage on schema public to ${APP_ROLE};
grant select, insert, update, delete on all tables in schema public to ${APP_ROLE};
grant usage, select on all sequences in schema public to ${APP_ROLE};
revoke all on schema_migrations, auth_secrets, auth_sessions, auth_refresh_tokens, auth_attempts, app_auth_epoch, norms_epoch from ${APP_ROLE};
`;
