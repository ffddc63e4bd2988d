// The HubSpot syncs of the command runner (SPEC 7): each reads HubSpot through the client and
// writes our side in its own transaction per record, so a failure half-way keeps what was synced.
//   RunHubspotClientSync             every client with an hsCompanyId: its company's name, industry
//                                    (our industry code when it matches) and domain -> LinkedClients
//   RunHubspotClientCustomPropsSync  the companies' custom (non-HubSpot-defined) properties -> LinkedClients.properties
//   RunHubspotUserSync               every active member -> a HubSpot contact (found by email, else created)
//   RunHubspotProjectSync            every submitted project of a client with an hsCompanyId -> a deal,
//                                    upserted by its ideally_project_id property
import type { Db } from "../db/client.ts";
import type { HubSpot } from "./client.ts";

type Progress = (pct: number, message: string) => Promise<void>;

export async function syncClients(db: Db, hs: HubSpot, progress: Progress) {
  const clients = await db<{ id: number; hs: string }[]>`select id, hs_company_id as hs from clients where hs_company_id is not null order by id`;
  const industries = new Set((await db<{ code: string }[]>`select code from industries`).map((r) => r.code));
  let synced = 0;
  const missing: string[] = [];
  for (const [i, c] of clients.entries()) {
    await progress((i / Math.max(1, clients.length)) * 100, `company ${c.hs}`);
    const co = await hs.company(c.hs, ["name", "industry", "domain"]).catch((e: { status?: number }) => {
      if (e.status === 404) return null;
      throw e;
    });
    if (!co) {
      missing.push(c.hs);
      continue;
    }
    const industry = (co.properties.industry ?? "").toLowerCase().replace(/[^a-z]/g, "");
    await db`
      insert into linked_clients (client_id, hs_company_id, name, industry, domain, synced_at)
      values (${c.id}, ${c.hs}, ${co.properties.name ?? c.hs}, ${industries.has(industry) ? industry : null}, ${co.properties.domain ?? null}, now())
      on conflict (client_id, hs_company_id) do update set name = excluded.name, industry = excluded.industry, domain = excluded.domain, synced_at = now(), updated_at = now()`;
    synced++;
  }
  return { clients: clients.length, synced, missing };
}

export async function syncCustomProps(db: Db, hs: HubSpot, progress: Progress) {
  const custom: string[] = [];
  for await (const p of hs.companyProperties()) if (!p.hubspotDefined) custom.push(p.name);
  const linked = await db<{ id: number; hs: string }[]>`select id, hs_company_id as hs from linked_clients order by id`;
  let synced = 0;
  for (const [i, l] of linked.entries()) {
    await progress((i / Math.max(1, linked.length)) * 100, `company ${l.hs}`);
    if (!custom.length) break;
    const co = await hs.company(l.hs, custom).catch(() => null);
    if (!co) continue;
    await db`update linked_clients set properties = ${db.json(co.properties)}, synced_at = now(), updated_at = now() where id = ${l.id}`;
    synced++;
  }
  return { properties: custom, companies: linked.length, synced };
}

export async function syncUsers(db: Db, hs: HubSpot, progress: Progress) {
  const users = await db<{ email: string; first: string | null; last: string | null }[]>`
    select email, first_name as first, last_name as last from users where not is_staff and disabled_at is null and id <> 5380 order by id`;
  let found = 0;
  let created = 0;
  for (const [i, u] of users.entries()) {
    await progress((i / Math.max(1, users.length)) * 100, u.email);
    if (await hs.contactByEmail(u.email)) found++;
    else {
      await hs.createContact({ email: u.email, firstname: u.first ?? "", lastname: u.last ?? "" });
      created++;
    }
  }
  return { users: users.length, found, created };
}

export async function syncProjects(db: Db, hs: HubSpot, progress: Progress) {
  const rows = await db<{ id: number; name: string; status: string; hs: string; spent: number }[]>`
    select p.id, p.project_name as name, s.name as status, c.hs_company_id as hs,
           coalesce((select -sum(l.credit_amount) from credit_logs l where l.project_id = p.id and l.credit_amount < 0), 0)::float8 as spent
    from projects p join clients c on c.id = p.client_id join project_statuses s on s.id = p.status_code
    where c.hs_company_id is not null and p.deleted_at is null and p.status_code >= 50 order by p.id`;
  await progress(50, `${rows.length} projects`);
  let upserted = 0;
  for (let i = 0; i < rows.length; i += 100) {
    upserted += await hs.upsertDeals(
      rows.slice(i, i + 100).map((r) => ({ id: String(r.id), properties: { dealname: r.name, amount: String(r.spent), ideally_status: r.status, ideally_company_id: r.hs } })),
    );
  }
  return { projects: rows.length, upserted };
}
