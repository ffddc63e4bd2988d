// The contract reaches the handlers (issue 34): a route declared through the project's own helper,
// addRoute (api/src/openapi.ts), types its handler's input from the route's request schemas and
// checks its answer against the response declared for that status. The `@ts-expect-error` lines
// below are the proof: `bun run typecheck` fails when any of them stops being an error, that is,
// when a wrong request type or a wrong response body compiles again. The runtime tests check the
// same routes answer as declared.
import { describe, expect, test } from "bun:test";
import { OpenAPIHono, z } from "@hono/zod-openapi";
import type { AppEnv } from "../../api/src/app-types.ts";
import { access } from "../../api/src/access/policy.ts";
import { addRoute, errors } from "../../api/src/openapi.ts";

const Body = z.object({ name: z.string(), size: z.number().int() });
const Answer = z.object({ id: z.number().int(), name: z.string() });
const Query = z.object({ q: z.string().optional() });

const route = {
  access: access.anonymous,
  method: "post",
  path: "/probe/{key}",
  request: {
    params: z.object({ key: z.string() }),
    query: Query,
    body: { required: true, content: { "application/json": { schema: Body } } },
  },
  responses: {
    200: { description: "The thing", content: { "application/json": { schema: Answer } } },
    204: { description: "Nothing" },
    404: errors[404],
  },
} as const;

function app() {
  return new OpenAPIHono<AppEnv>();
}

describe("addRoute types a handler by its route", () => {
  test("a handler that reads its typed input and answers the declared body compiles and answers", async () => {
    const a = app();
    addRoute(a, route, async (c) => {
      const body = c.req.valid("json");
      const key: string = c.req.valid("param").key;
      const q: string | undefined = c.req.valid("query").q;
      if (body.size === 0) return c.body(null, 204);
      return c.json({ id: Number(key) + body.size, name: `${body.name}${q ?? ""}` }, 200);
    });
    const res = await a.request("/probe/40?q=!", { method: "POST", body: JSON.stringify({ name: "x", size: 2 }), headers: { "content-type": "application/json" } });
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ id: 42, name: "x!" });
    const none = await a.request("/probe/1", { method: "POST", body: JSON.stringify({ name: "x", size: 0 }), headers: { "content-type": "application/json" } });
    expect(none.status).toBe(204);
  });

  test("a wrong request type does not compile", async () => {
    const a = app();
    addRoute(a, route, async (c) => {
      const body = c.req.valid("json");
      // @ts-expect-error `size` is a number in the route's body schema, not a string
      const size: string = body.size;
      // @ts-expect-error the body schema has no `colour`
      const colour = body.colour;
      // @ts-expect-error the route declares no header schema
      c.req.valid("header");
      return c.json({ id: size.length + (colour ? 1 : 0), name: body.name }, 200);
    });
    const res = await a.request("/probe/1", { method: "POST", body: JSON.stringify({ name: "x", size: "2" }), headers: { "content-type": "application/json" } });
    expect(res.status, "the same schema refuses it at run time").toBe(400);
  });

  test("a wrong response body, status or format does not compile", () => {
    const a = app();
    // @ts-expect-error `name` is missing from the 200 answer
    addRoute(a, route, async (c) => c.json({ id: 1 }, 200));
    // @ts-expect-error `id` is a string, not an integer
    addRoute(a, { ...route, path: "/probe2/{key}" }, async (c) => c.json({ id: "1", name: "x" }, 200));
    // @ts-expect-error 201 is not a declared status
    addRoute(a, { ...route, path: "/probe3/{key}" }, async (c) => c.json({ id: 1, name: "x" }, 201));
    // @ts-expect-error the 200 answer is JSON: a text body is not it
    addRoute(a, { ...route, path: "/probe4/{key}" }, async (c) => c.text("1", 200));
    // @ts-expect-error an untyped Response is not one of the declared answers
    addRoute(a, { ...route, path: "/probe5/{key}" }, async () => new Response("{}", { status: 200 }));
    expect(a.openAPIRegistry.definitions.length, "each was still registered (the types are the check)").toBe(5);
  });
});
