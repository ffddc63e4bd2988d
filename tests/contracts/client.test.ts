// The typed client's headers: the bearer token, the clientId and requestscope defaults, and a
// call's own clientId or requestscope (an enterprise page acting on one of its teams) kept.
import { expect, test } from "bun:test";
import { createApiClient } from "@ideally/contracts";

function recorder() {
  const seen: Headers[] = [];
  const fetch = (async (input: Request) => {
    seen.push(new Headers(input.headers));
    return new Response(JSON.stringify({ value: [] }), { status: 200, headers: { "content-type": "application/json" } });
  }) as unknown as typeof globalThis.fetch;
  return { seen, fetch };
}

test("defaults: token, the chosen client and requestscope client", async () => {
  const r = recorder();
  const api = createApiClient({ baseUrl: "http://x.test", fetch: r.fetch, getToken: () => "t0k", getClientId: () => 3 });
  await api.GET("/api/v1/Teams");
  expect(r.seen[0]!.get("authorization")).toBe("Bearer t0k");
  expect(r.seen[0]!.get("clientId"), "the default client").toBe("3");
  expect(r.seen[0]!.get("requestscope")).toBe("client");
});

test("a call's own clientId and requestscope win over the defaults", async () => {
  const r = recorder();
  const api = createApiClient({ baseUrl: "http://x.test", fetch: r.fetch, getClientId: () => 1, getRequestScope: () => "client" });
  await api.GET("/api/v1/Teams", { headers: { clientId: "4", requestscope: "descendants" } });
  expect(r.seen[0]!.get("clientId"), "the team the call names").toBe("4");
  expect(r.seen[0]!.get("requestscope")).toBe("descendants");
  await api.GET("/api/v1/Teams");
  expect(r.seen[1]!.get("clientId"), "the next call is back to the default").toBe("1");
  expect(r.seen[1]!.get("requestscope")).toBe("client");
});

test("no client chosen: no clientId header at all", async () => {
  const r = recorder();
  const api = createApiClient({ baseUrl: "http://x.test", fetch: r.fetch, getClientId: () => null });
  await api.GET("/api/v1/Teams");
  expect(r.seen[0]!.has("clientId")).toBe(false);
});

test("the committed openapi.json fits the outline tsc gives its readers (contracts/document.ts), and a document that does not fails", async () => {
  const { OpenApiDocument } = await import("@ideally/contracts/document");
  const { default: committed } = await import("@ideally/contracts/openapi.json", { with: { type: "json" } });
  const parsed = OpenApiDocument.safeParse(committed);
  expect(parsed.error?.issues ?? []).toEqual([]);
  expect(Object.keys(committed.paths).length).toBeGreaterThan(100);
  // The same document with one operation's access rule gone, or a schema that is not an object: refused.
  const noAccess = structuredClone(committed);
  Reflect.deleteProperty(noAccess.paths["/api/v1/Teams"]?.get ?? {}, "x-access");
  expect(OpenApiDocument.safeParse(noAccess).success).toBe(false);
  expect(OpenApiDocument.safeParse({ ...committed, components: { schemas: { Team: "not a schema" } } }).success).toBe(false);
});
