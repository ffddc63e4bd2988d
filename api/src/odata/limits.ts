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
/**
 * Most any()/all() lambdas nested inside one another (each walks a to-many navigation for every
 * row of the one outside it): `a/any(x: x/b/all(y: ...))` is 2. Three nested lambdas over the
 * larger sets ran for minutes (issue 19).
 */
export const MAX_LAMBDA_NESTING = 2;
/**
 * Most rows an $expand tree may produce: the page's rows plus, for every to-many expansion, the
 * product of the $top values along its path (an expansion without $top counts as DEFAULT_TOP).
 * `Projects?$top=1000&$expand=a($top=1000;$expand=b($top=1000))` would be 10^9.
 */
export const MAX_EXPAND_ROWS = 10_000_000;
/**
 * A read that may produce this many rows (the bound above, before any SQL runs) is weighed costly:
 * it runs in the gate's small costly lane (db/gate.ts), never ahead of anyone's cheap calls. The web
 * app's reads stay below it (a page of 100 with an expansion of 100 each is 10,100); the issue's
 * flood (`Projects?$top=9&$expand=projectSurveySessions($top=1000;$expand=responses($top=1000))`,
 * 9,009,009 rows) is far above.
 */
export const COSTLY_ROWS = 100_000;
