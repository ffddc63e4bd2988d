// The command runner's job: one queue for every command, run one at a time.
import { defineJob } from "../../jobs/workers.ts";
import type { Db } from "../../db/client.ts";
import { processConfig } from "../../config.ts";
import { runCommand, type CommandJob } from "./commands.service.ts";

/** Seeds the demo logins and projects when missing (development only). */
async function syncDemo(db: Db): Promise<{ seededLogins: boolean; seededProjects: number }> {
  const { seedDemo } = await import("../../db/demo.ts");
  const { argon2idPasswords } = await import("../../auth/passwords-bun.ts");
  const { seedDemoProjects } = await import("../fielding/demo.ts");
  const { registry } = await import("../../entities/index.ts");
  const seededLogins = await seedDemo(db, argon2idPasswords(processConfig().passwordCost).hash, { whenEmpty: false });
  const [{ n }] = await db<{ n: number }[]>`
    select count(*)::int as n from projects p join clients c on c.id = p.client_id where c.name = 'Acme Team A' and p.deleted_at is null`;
  const publicUrl = processConfig().publicUrl;
  const ids = n === 0 ? await seedDemoProjects(db, registry, publicUrl) : [];
  return { seededLogins, seededProjects: ids.length };
}

export const commandJob = defineJob<CommandJob>(
  "commands.run",
  (job) =>
    runCommand(job, {
      publicUrl: processConfig().publicUrl,
      syncDemo: processConfig().production ? undefined : syncDemo,
    }),
  { retryLimit: 1, retryDelay: 5, expireInSeconds: 900 },
);
