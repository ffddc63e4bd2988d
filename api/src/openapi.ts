// Shared pieces of the OpenAPI document: the error shape and the common error responses.
import { z } from "@hono/zod-openapi";

export const ErrorBody = z
  .object({
    typename: z.string().describe("Error class, e.g. ValidationError, NotFound, AuthFailureDto"),
    message: z.string(),
    detail: z.string().optional(),
    errors: z.array(z.object({ path: z.string(), message: z.string() })).optional(),
  })
  .openapi("Error");

export const errorResponse = (description: string) => ({
  description,
  content: { "application/json": { schema: ErrorBody } },
  headers: z.object({ "x-error-trace-id": z.string().describe("Trace id to quote to support") }),
});

export const commonErrors = {
  400: errorResponse("Bad request: invalid query option or body"),
  401: errorResponse("Not signed in"),
  403: errorResponse("Not allowed"),
};
