// Limits of the OData engine. They bound the work one request can ask of the database and the
// parser (recursion, statement size), so they are checked while parsing, before any SQL exists.

/** Largest $top accepted (top level and inside $expand). */
export const MAX_TOP = 1000;
/** Page size when the request gives no $top; a page cut short carries `more`. */
export const DEFAULT_TOP = 100;
/** Deepest $expand nesting: `a($expand=b($expand=c))` is depth 3. */
export const MAX_EXPAND_DEPTH = 3;
/** Most expression nodes in one $filter (or one $apply filter(...), or one nested $filter). */
export const MAX_FILTER_NODES = 100;
/** Longest value of one query option, in characters. */
export const MAX_OPTION_LENGTH = 4000;
/** Deepest parenthesis / function / lambda nesting inside one expression (keeps recursion shallow). */
export const MAX_EXPR_DEPTH = 32;
/** Largest $skip: keeps `skip + top` well inside int8 and JavaScript's safe integers. */
export const MAX_SKIP = 1_000_000_000;
/** Most digits in a number literal (fits numeric and float8 comparisons without overflow). */
export const MAX_NUMBER_DIGITS = 38;
