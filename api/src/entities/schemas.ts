// zod schemas derived from the registry: the entity shape (responses, with expandable navigation
// properties as $refs), the POST body and the PATCH body. Built once per registry and cached.
import { z } from "@hono/zod-openapi";
import type { EntitySetDef, FieldDef } from "./types.ts";
import type { Registry } from "./registry.ts";

/**
 * A field's value: its own schema when it has one, else built from its declaration; `read`
 * publishes a json field's documented shape (answers), else any JSON (bodies).
 */
function valueSchema(fd: FieldDef, read = false): z.ZodType {
  let s = fd.schema ?? builtSchema(fd, read);
  if (fd.description) s = s.describe(fd.description);
  return fd.nullable ? s.nullable() : s;
}

/** A field's value from its registry declaration (type, limits, enumeration). */
function builtSchema(fd: FieldDef, read: boolean): z.ZodType {
  let s: z.ZodType;
  switch (fd.type) {
    case "int":
    case "bigint":
      s = fd.enumValues ? z.union(fd.enumValues.map((v) => z.literal(v as number)) as [z.ZodLiteral<number>, z.ZodLiteral<number>]) : z.number().int();
      if (fd.min !== undefined && s instanceof z.ZodNumber) s = s.min(fd.min);
      if (fd.max !== undefined && s instanceof z.ZodNumber) s = s.max(fd.max);
      break;
    case "number":
      s = z.number();
      break;
    case "string": {
      if (fd.enumValues) s = z.enum(fd.enumValues.map(String) as [string, ...string[]]);
      else s = fd.maxLength ? z.string().max(fd.maxLength) : z.string();
      break;
    }
    case "boolean":
      s = z.boolean();
      break;
    case "datetime":
      s = z.iso.datetime({ offset: true });
      break;
    case "date":
      s = z.iso.date();
      break;
    case "uuid":
      s = z.uuid();
      break;
    case "json":
      s = read && fd.shape ? fd.shape : z.any();
      break;
  }
  return s;
}

export interface SetSchemas {
  entity: z.ZodType;
  /** A strict object of the set's writable fields: its output a record of them. */
  create: z.ZodType<Record<string, unknown>>;
  update: z.ZodType<Record<string, unknown>>;
  collection: z.ZodType;
}

const cache = new WeakMap<Registry, Map<string, SetSchemas>>();

export function schemasFor(reg: Registry, set: EntitySetDef): SetSchemas {
  let m = cache.get(reg);
  if (!m) {
    m = buildAll(reg);
    cache.set(reg, m);
  }
  return m.get(set.name)!;
}

function buildAll(reg: Registry): Map<string, SetSchemas> {
  const out = new Map<string, SetSchemas>();
  const entities = new Map<string, z.ZodType>();
  for (const set of reg.sets.values()) {
    const shape: Record<string, z.ZodType> = {};
    for (const [name, fd] of Object.entries(set.fields)) shape[name] = valueSchema(fd, true).optional();
    // Navigation properties appear only when expanded; getters make the cycles lazy ($refs).
    for (const [name, nd] of Object.entries(set.nav)) {
      Object.defineProperty(shape, name, {
        enumerable: true,
        get: () => {
          const target = entities.get(nd.target)!;
          // A to-one navigation is null when there is no related row: a union with null, not
          // target.nullable(), which would publish the registered row schema itself as nullable
          // (and every collection's rows as `Row | null`).
          return (nd.kind === "one" ? z.union([target, z.null()]) : z.array(target)).optional();
        },
      });
      if (nd.kind === "many") shape[`${name}@odata.count`] = z.number().int().optional();
    }
    entities.set(set.name, z.object(shape).openapi(set.name, { description: set.description }));
  }
  for (const set of reg.sets.values()) {
    const create: Record<string, z.ZodType> = {};
    const update: Record<string, z.ZodType> = {};
    for (const [name, fd] of Object.entries(set.fields)) {
      if (fd.readOnly) continue;
      const v = valueSchema(fd);
      create[name] = fd.required ? v : v.optional();
      if (fd.updatable) update[name] = v.optional();
    }
    // SPEC 7's rename sends the key in the body too (`projectName, id`): allowed, and it must be
    // the URL's key (the service checks); it never changes a row's key.
    const keyField = set.fields[set.key];
    if (keyField && !(set.key in update)) update[set.key] = valueSchema(keyField).optional().describe("The key, repeated: must equal the key in the URL");
    const entity = entities.get(set.name)!;
    out.set(set.name, {
      entity,
      create: z.strictObject(create).openapi(`${set.name}Create`),
      update: z.strictObject(update).openapi(`${set.name}Update`),
      collection: z
        .object({
          "@odata.count": z.number().int().optional(),
          "@odata.nextLink": z.string().optional(),
          value: z.array(entity),
        })
        .openapi(`${set.name}Collection`),
    });
  }
  return out;
}
