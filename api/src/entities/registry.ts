import type { EntitySetDef } from "./types.ts";

/** All entity sets by name, plus lookup helpers. */
export class Registry {
  readonly sets: ReadonlyMap<string, EntitySetDef>;
  constructor(defs: readonly EntitySetDef[]) {
    const m = new Map<string, EntitySetDef>();
    for (const d of defs) {
      if (m.has(d.name)) throw new Error(`entity set ${d.name} declared twice`);
      m.set(d.name, d);
    }
    this.sets = m;
  }
  get(name: string): EntitySetDef | undefined {
    return this.sets.get(name);
  }
  mustGet(name: string): EntitySetDef {
    const d = this.sets.get(name);
    if (!d) throw new Error(`unknown entity set ${name}`);
    return d;
  }
}
