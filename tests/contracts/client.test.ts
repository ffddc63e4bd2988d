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
