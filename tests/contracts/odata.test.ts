// contracts/odata.ts's listSet: the list helper shared pages use when the set is a value (admin's
// useSet). At run time it is GET /api/v1/{set} with the OData options and the header given; at
// compile time (the project's typecheck covers tests/) the row type must be a row of that set.
import { expect, test } from "bun:test";
import { createApiClient } from "@ideally/contracts";
import { listSet, type Row, type SetFor } from "@ideally/contracts/odata";

function recorder(answer: unknown) {
  const seen: Request[] = [];
  const fetch = (async (input: Request) => {
    seen.push(input.clone());
    return new Response(JSON.stringify(answer), { status: 200, headers: { "content-type": "application/json" } });
  }) as unknown as typeof globalThis.fetch;
  return { seen, fetch };
}

test("listSet asks GET /api/v1/{set} with the query and the header, and answers the page", async () => {
  const r = recorder({ value: [{ id: 4, name: "Acme" }], "@odata.count": 1 });
  const api = createApiClient({ baseUrl: "http://x.test", fetch: r.fetch });
  const page = await listSet<Row<"Clients", "id" | "name">>(api, "Clients", { $select: "id,name", $top: 5, $count: true }, { clientId: "9" });
  const url = new URL(r.seen[0]!.url);
  expect(r.seen[0]!.method).toBe("GET");
  expect(url.pathname).toBe("/api/v1/Clients");
  expect(url.searchParams.get("$select")).toBe("id,name");
  expect(url.searchParams.get("$top")).toBe("5");
  expect(url.searchParams.get("$count")).toBe("true");
  expect(r.seen[0]!.headers.get("clientId")).toBe("9");
  expect(page.data?.value[0]?.name).toBe("Acme");
  expect(page.data?.["@odata.count"]).toBe(1);
});

test("a row type compiles only against a set it belongs to (checked by tsc)", async () => {
  const r = recorder({ value: [] });
  const api = createApiClient({ baseUrl: "http://x.test", fetch: r.fetch });
  // A row of the set, with an expansion and an $expand count: fine.
  await listSet<Row<"Projects", "id" | "projectName", { client: Row<"Clients", "name"> | null; "questions@odata.count"?: number }>>(api, "Projects", {});
  // @ts-expect-error a row of Projects is not a row of Users
  await listSet<Row<"Projects", "projectName">>(api, "Users", {});
  // @ts-expect-error a property the set does not have (a renamed one)
  await listSet<{ id: number; projectTitle: string }>(api, "Projects", {});
  // @ts-expect-error a property with another type than the schema's
  await listSet<{ id: string }>(api, "Projects", {});
  // The sets a row fits, as a type: Clients has `tier`, Projects has not.
  const fits: SetFor<Row<"Clients", "id" | "tier">> = "Clients";
  // @ts-expect-error Projects has no tier
  const notFits: SetFor<Row<"Clients", "id" | "tier">> = "Projects";
  const both: string[] = [fits, notFits];
  expect(both).toEqual(["Clients", "Projects"]);
  expect(r.seen.map((q) => new URL(q.url).pathname)).toEqual(["/api/v1/Projects", "/api/v1/Users", "/api/v1/Projects", "/api/v1/Projects"]);
});
