// The outline of the published OpenAPI document (openapi.json): a zod schema and its type. It is the
// type `tsc` gives `import doc from "@ideally/contracts/openapi.json"` (openapi-json.d.ts, named by
// the "types" condition of package.json's exports; Bun still loads the JSON itself), instead of the
// type of the 53,000-line literal, which cost the type gate about 100,000 types and 200,000
// instantiations for readers that only walk paths and schemas (docs/decisions/0132). The
// generator parses every document it writes with this schema (scripts/generate-contract.ts), and
// tests/contracts/client.test.ts parses the committed one, so the outline cannot drift from the file.
import { z } from "zod";

/** A JSON Schema of the document (components.schemas, a request body's schema). */
export const JsonSchema = z.record(z.string(), z.unknown());

/** An operation of the document, as far as its readers go. */
export const Operation = z.looseObject({
  operationId: z.string(),
  summary: z.string().optional(),
  description: z.string().optional(),
  tags: z.array(z.string()).optional(),
  "x-access": z.string(),
  requestBody: z
    .looseObject({
      required: z.boolean().optional(),
      content: z.record(z.string(), z.looseObject({ schema: JsonSchema.optional() })),
    })
    .optional(),
  responses: z.record(z.string(), z.unknown()),
});

/** The document: its version, every path's operations by method, and the component schemas. */
export const OpenApiDocument = z.looseObject({
  openapi: z.string(),
  info: z.looseObject({ title: z.string(), version: z.string() }),
  paths: z.record(z.string(), z.partialRecord(z.enum(["get", "put", "post", "delete", "patch", "options", "head", "trace"]), Operation)),
  components: z.looseObject({ schemas: z.record(z.string(), JsonSchema) }),
});
export type OpenApiDocument = z.output<typeof OpenApiDocument>;
