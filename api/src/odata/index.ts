// The OData engine: query options -> registry-resolved AST -> one parameterised SQL statement.
export type * from "./ast.ts";
export { parseQuery } from "./parser.ts";
export { compileCollection, compileCount, compileEntity, type CompileOptions, type ScopeFn } from "./compile.ts";
export * from "./limits.ts";
