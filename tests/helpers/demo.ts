// The demo world as a server's first start seeds it (logins, teams, the fielded demo projects), for
// tests that read results on real-looking data, and the ids they look up in it.
import type { Db } from "../../api/src/db/client.ts";
import { seedDemo } from "../../api/src/db/demo.ts";
import { seedDemoProjects } from "../../api/src/domains/fielding/demo.ts";
import { registry } from "../../api/src/entities/index.ts";
import { TEST_PUBLIC_URL, testPasswords } from "./app.ts";

/** Seeds the demo's logins and teams, then its fielded projects; their ids. */
export async function seedDemoWorld(db: Db): Promise<number[]> {
  await seedDemo(db, testPasswords.hash, { whenEmpty: true });
  return seedDemoProjects(db, registry, TEST_PUBLIC_URL);
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
