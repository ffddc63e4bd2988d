// Query parameters the results routes share (results, themes and drivers, groups).
import { z } from "@hono/zod-openapi";

/** A positive integer in the query string, documented under its name. */
export const int = (name: string, description: string) =>
  z
    .string()
    .regex(/^\d{1,9}$/, "must be a positive integer")
    .openapi({ param: { name, in: "query" }, description });

/** The response filter object (ResponseFilter) as JSON, in the query string. */
export const FiltersParam = z
  .string()
  .max(20000)
  .optional()
  .openapi({ param: { name: "filters", in: "query" }, description: "The response filter object (ResponseFilter) as JSON" });
