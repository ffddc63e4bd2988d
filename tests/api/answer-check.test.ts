// Answers checked against the published document (issue 34, api/src/ops/answer-check.ts): the
// suite's apps and servers run with the check on, so an answer outside the contract fails the test
// that caused it. Here a handler that lies at run time (its body comes from JSON.parse, which the
// compiler cannot see into) is caught, as are an undeclared status and a wrong media type; answers
// that fit, the shared errors and the server-wide statuses pass.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { z } from "@hono/zod-openapi";
import { access } from "../../api/src/access/policy.ts";
import { addRoute, commonErrors, errors } from "../../api/src/openapi.ts";
import { ApiError } from "../../api/src/errors.ts";
import type { App } from "../../api/src/app-types.ts";
import { createTestDb, type TestDb } from "../helpers/db.ts";
import { call, testApp } from "../helpers/app.ts";

const Thing = z.object({ id: z.number().int(), name: z.string() });
let tdb: TestDb;
let app: App;

beforeAll(async () => {
  tdb = await createTestDb();
  app = testApp(tdb.db);
  const declared = { tags: ["Probe"], responses: { 200: { description: "A thing", content: { "application/json": { schema: Thing } } }, ...commonErrors, 404: errors[404] } };
  const probe = (path: string, body: string, status: 200 = 200) =>
    addRoute(app, { ...declared, access: access.signedIn, method: "get", path, operationId: `Probe_${path.replaceAll("/", "_")}` }, (c) => c.json(JSON.parse(body), status));
  probe("/api/v1/ProbeRight", '{"id":1,"name":"x"}');
  probe("/api/v1/ProbeWrongType", '{"id":"1","name":"x"}');
  probe("/api/v1/ProbeMissing", '{"id":1}');
  addRoute(app, { ...declared, access: access.signedIn, method: "get", path: "/api/v1/ProbeNotFound/{key}", operationId: "Probe_NotFound" }, () => {
    throw new ApiError("NotFound", "No such thing");
  });
  addRoute(app, { ...declared, access: access.signedIn, method: "get", path: "/api/v1/ProbeConflict", operationId: "Probe_Conflict" }, () => {
    throw new ApiError("Conflict", "Not declared here");
  });
  addRoute(app, { ...declared, access: access.signedIn, method: "get", path: "/api/v1/ProbeBusy", operationId: "Probe_Busy" }, () => {
    throw new ApiError("ServiceUnavailable", "Try again");
  });
  addRoute(
    app,
    {
      tags: ["Probe"],
      access: access.signedIn,
      method: "get",
      path: "/api/v1/ProbeCsv",
      operationId: "Probe_Csv",
      responses: { 200: { description: "CSV", content: { "text/csv": { schema: z.string() } } } },
    },
    (c) => c.body("a,b\n", 200, { "content-type": JSON.parse('"application/json"') }),
  );
});
afterAll(async () => {
  await tdb?.drop();
});

describe("every answer is checked against its operation in the document", () => {
  test("an answer that fits passes untouched", async () => {
    const r = await call(app, "acmeUser", 1003, "GET", "/api/v1/ProbeRight");
    expect(r.status).toBe(200);
    expect(r.body).toEqual({ id: 1, name: "x" });
  });

  test("a body of the wrong type or missing a property becomes a 500 naming the field", async () => {
    const wrong = await call(app, "acmeUser", 1003, "GET", "/api/v1/ProbeWrongType");
    expect(wrong.status).toBe(500);
    expect(wrong.body).toMatchObject({ typename: "ContractViolation" });
    expect((wrong.body as { message: string }).message).toContain("status 200 of GET /api/v1/ProbeWrongType: id:");
    const missing = await call(app, "acmeUser", 1003, "GET", "/api/v1/ProbeMissing");
    expect(missing.status).toBe(500);
    expect((missing.body as { message: string }).message).toContain("status 200 of GET /api/v1/ProbeMissing: name:");
  });

  test("a declared error passes; an undeclared 409 does not; a 503 is server-wide", async () => {
    const nf = await call(app, "acmeUser", 1003, "GET", "/api/v1/ProbeNotFound/7");
    expect(nf.status).toBe(404);
    expect(nf.body).toMatchObject({ typename: "NotFound", message: "No such thing" });
    const conflict = await call(app, "acmeUser", 1003, "GET", "/api/v1/ProbeConflict");
    expect(conflict.status).toBe(500);
    expect((conflict.body as { message: string }).message).toContain("status 409 is not declared for GET /api/v1/ProbeConflict (declared: 200, 400, 401, 403, 404)");
    const busy = await call(app, "acmeUser", 1003, "GET", "/api/v1/ProbeBusy");
    expect(busy.status).toBe(503);
  });

  test("an answer in another media type than declared is caught", async () => {
    const r = await call(app, "acmeUser", 1003, "GET", "/api/v1/ProbeCsv");
    expect(r.status).toBe(500);
    expect((r.body as { message: string }).message).toContain("status 200 of GET /api/v1/ProbeCsv answered application/json, declared text/csv");
  });

  test("signed out, the shared 401 passes", async () => {
    const r = await call(app, null, 1003, "GET", "/api/v1/ProbeRight");
    expect(r.status).toBe(401);
    expect(r.body).toMatchObject({ typename: "Unauthorized" });
  });
});
