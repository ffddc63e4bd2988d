// bun run db:seed — the demo clients and logins, unless they exist already (never in production).
import { readConfigOrExit } from "../config.ts";
import { connect } from "./client.ts";
import { migrate } from "./migrate.ts";
import { openDatabase } from "./open.ts";
import { demoLoginsText, seedDemo } from "./demo.ts";
import { argon2idPasswords } from "../auth/passwords-bun.ts";

const cfg = readConfigOrExit();
if (cfg.production) {
  console.error("db:seed refuses to run with NODE_ENV=production: demo logins have a published password");
  process.exit(1);
}
const handle = await openDatabase(cfg);
const db = connect(handle.directUrl, { max: 1 });
try {
  await migrate(db);
  console.log((await seedDemo(db, argon2idPasswords(cfg.passwordCost).hash, { whenEmpty: false })) ? "seeded the demo data" : "the demo data is there already");
  console.log(demoLoginsText());
} finally {
  await db.end();
  await handle.stop();
}
