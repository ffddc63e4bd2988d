// Demo data for development: when the database has no people yet (only the backend services
// user), it gets the Acme enterprise (an org with two teams), an unrelated Globex team, one login
// per role (all with the password DEMO_PASSWORD) and credits to run projects with. Production
// starts never call this.
import type { Db } from "./client.ts";

export const DEMO_PASSWORD = "ideally-demo";

/** Starting credit balances of the demo teams. */
export const DEMO_CREDITS = { teamA: 5000, teamB: 1000, globex: 3000 } as const;

export interface DemoLogin {
  email: string;
  what: string;
}

export const DEMO_LOGINS: readonly DemoLogin[] = [
  { email: "staff@ideally.test", what: "provider staff, super admin" },
  { email: "ops@ideally.test", what: "provider staff, not super admin" },
  { email: "admin@acme.test", what: "Admin of Acme Team A and of the Acme enterprise" },
  { email: "user@acme.test", what: "User of Acme Team A" },
  { email: "viewer@acme.test", what: "Viewer of Acme Team A" },
  { email: "admin@globex.test", what: "Admin of Globex" },
];

/**
 * Seeds the demo world. `whenEmpty` (start-up): only into a database with no people besides the
 * backend services user. Otherwise (bun run db:seed): unless the demo logins already exist.
 * Returns whether it seeded.
 */
export async function seedDemo(db: Db, hash: (plain: string) => Promise<string>, opts: { whenEmpty: boolean }): Promise<boolean> {
  const passwordHash = await hash(DEMO_PASSWORD);
  return db.begin(async (tx) => {
    // One seeder at a time across processes; a second start finds the data and does nothing.
    await tx`select pg_advisory_xact_lock(7311002)`;
    const [present] = opts.whenEmpty ? await tx`select 1 from users where id <> 5380 limit 1` : await tx`select 1 from users where lower(email) in ${tx(DEMO_LOGINS.map((l) => l.email))} limit 1`;
    if (present) return false;
    const client = async (name: string, tier: string, parent: number | null, industry: string) => {
      const [row] = await tx<{ id: number }[]>`
        insert into clients (name, tier, parent_id, industry) values (${name}, ${tier}, ${parent}, ${industry}) returning id`;
      return row!.id;
    };
    const acme = await client("Acme", "Enterprise", null, "fmcg");
    const acmeOrg = await client("Acme Foods", "Org", acme, "fmcg");
    const teamA = await client("Acme Team A", "Team", acmeOrg, "fmcg");
    const teamB = await client("Acme Team B", "Team", acmeOrg, "fmcg");
    const globex = await client("Globex", "Team", null, "telecommunications");
    await tx`insert into enterprises (id, client_id) values (${acme}, ${acme})`;
    await tx`insert into orgs (id, client_id) values (${acmeOrg}, ${acmeOrg})`;
    await tx`insert into teams (id, client_id, auto_project_watch, default_region_id)
             values (${teamA}, ${teamA}, true, 1), (${teamB}, ${teamB}, false, 2), (${globex}, ${globex}, false, 15)`;

    const user = async (email: string, first: string, last: string, staff: boolean, roleId: number, defaultClient: number | null) => {
      const [row] = await tx<{ id: number }[]>`
        insert into users (email, first_name, last_name, password_hash, is_staff, role_id, default_client_id, onboarded_at)
        values (${email}, ${first}, ${last}, ${passwordHash}, ${staff}, ${roleId}, ${defaultClient}, now()) returning id`;
      await tx`insert into cognito_users (user_id, username, status) values (${row!.id}, ${email}, 'CONFIRMED')`;
      return row!.id;
    };
    // user_roles: 1 User, 2 Staff, 3 SuperAdmin (reference-data.sql).
    await user("staff@ideally.test", "Sam", "Staff", true, 3, null);
    await user("ops@ideally.test", "Olive", "Ops", true, 2, null);
    const admin = await user("admin@acme.test", "Ada", "Admin", false, 1, teamA);
    const member = await user("user@acme.test", "Uma", "User", false, 1, teamA);
    const viewer = await user("viewer@acme.test", "Vic", "Viewer", false, 1, teamA);
    const gAdmin = await user("admin@globex.test", "Gil", "Globex", false, 1, globex);
    // Client roles: 1 Admin, 2 User, 3 Viewer.
    await tx`insert into user_and_clients (user_id, client_id, role_id) values
      (${admin}, ${teamA}, 1), (${admin}, ${acme}, 1), (${member}, ${teamA}, 2), (${viewer}, ${teamA}, 3), (${gAdmin}, ${globex}, 1)`;
    // Credits to run projects with: a deal for Acme's teams, a subscription for Globex (credit log
    // types 1 HubspotDeal and 2 CBSubscription), entered by the backend services user.
    await tx`insert into credit_logs (client_id, type, credit_amount, description, created_by_user_id) values
      (${teamA}, 1, ${DEMO_CREDITS.teamA}, 'Demo deal', 5380),
      (${teamB}, 1, ${DEMO_CREDITS.teamB}, 'Demo deal', 5380),
      (${globex}, 2, ${DEMO_CREDITS.globex}, 'Demo subscription', 5380)`;
    return true;
  });
}

export function demoLoginsText(): string {
  const w = Math.max(...DEMO_LOGINS.map((l) => l.email.length));
  return [`Demo logins (password '${DEMO_PASSWORD}'):`, ...DEMO_LOGINS.map((l) => `  ${l.email.padEnd(w)}  ${l.what}`)].join("\n");
}
