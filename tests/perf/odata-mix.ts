// The OData benchmark's data and query mix, shared by bench:odata (odata-expand.bench.ts) and the
// per-layer probe (odata-layers.probe.ts), so both measure the same requests on the same rows.
import type { Db } from "../../api/src/db/client.ts";

/** The team the mix reads as (Acme Team A in the test fixtures). */
export const CLIENT = 1003;

/** The mix: each request takes the next path, so consecutive requests differ in set and shape. */
export const PATHS = [
  "/api/v1/Projects?$top=50&$expand=projectsRegions($expand=region)",
  "/api/v1/Projects?$top=20&$skip=40&$select=id,projectName,statusCode&$orderby=projectName desc",
  "/api/v1/Projects?$filter=projectTypeId eq 2 and contains(projectName,'1')&$select=id,projectName&$top=30",
  "/api/v1/ProjectsRegions?$top=100&$select=id,projectId,regionId&$expand=region($select=regionName,currencyCode)",
  "/api/v1/Projects?$top=10&$skip=150&$orderby=id&$expand=projectsRegions($select=regionId)",
  "/api/v1/TestOptions?$filter=projectId eq 1001&$select=id,conceptText",
  "/api/v1/Projects?$filter=statusCode eq 0 and projectTypeId in (1,3)&$top=25&$orderby=createdAt desc&$select=id,projectName,createdAt",
  "/api/v1/Regions?$select=id,regionName&$orderby=regionName",
];

/** 200 projects of the team, each in two regions (the team's own region rows replaced). */
export async function seedMix(db: Db) {
  await db`delete from projects_regions where client_id = ${CLIENT}`;
  const projects = await db<{ id: number }[]>`
    insert into projects (client_id, project_name, project_type_id, framework_id, status_code)
    select ${CLIENT}, 'Bench project ' || g, 1 + (g % 4), 1000, 0 from generate_series(1, 200) g
    returning id`;
  await db`
    insert into projects_regions (client_id, project_id, region_id)
    select ${CLIENT}, p.id, r.region_id
    from unnest(${projects.map((p) => p.id)}::int[]) as p(id)
    cross join (values (1), (2)) as r(region_id)`;
}
