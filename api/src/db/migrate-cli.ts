// bun run db:migrate — applies pending migrations to DATABASE_URL (DATABASE_DIRECT_URL when that is set: a
// pooler in transaction mode is no place for DDL) or the embedded database.
import { readConfigOrExit } from "../config.ts";
import { connect } from "./client.ts";
import { migrate } from "./migrate.ts";
import { openDatabase } from "./open.ts";

const cfg = readConfigOrExit();
const handle = await openDatabase(cfg);
const db = connect(handle.directUrl, { max: 1 });
try {
  const { applied } = await migrate(db, { log: console.log });
  console.log(applied.length ? `applied ${applied.length} migration(s)` : "database is up to date");
} finally {
  await db.end();
  await handle.stop();
}
