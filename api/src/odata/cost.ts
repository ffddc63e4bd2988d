// The cost budget of a parsed query, checked before any SQL exists: how deeply any()/all()
// lambdas nest (each one walks a to-many navigation per row of the one outside it) and how many
// rows an $expand tree may produce. A query over budget is a 400 that says what to change; the
// statement timeout (db/tx.ts) bounds whatever the budget lets through.
import { odataError } from "../errors.ts";
import type { Expr, ODataQuery } from "./ast.ts";
import { COSTLY_ROWS, DEFAULT_TOP, MAX_EXPAND_ROWS, MAX_LAMBDA_NESTING } from "./limits.ts";

/** The deepest nesting of lambdas in an expression. */
export function lambdaNesting(e: Expr | undefined | null): number {
  if (!e) return 0;
  switch (e.kind) {
    case "lambda":
      return 1 + lambdaNesting(e.body);
    case "compare":
    case "and":
    case "or":
      return Math.max(lambdaNesting(e.left), lambdaNesting(e.right));
    case "not":
      return lambdaNesting(e.operand);
    case "in":
      return lambdaNesting(e.operand);
    case "call":
      return Math.max(0, ...e.args.map(lambdaNesting));
    default:
      return 0;
  }
}

function checkLambdas(e: Expr | undefined, option: string): void {
  const n = lambdaNesting(e);
  if (n > MAX_LAMBDA_NESTING) {
    throw odataError(
      `${n} any()/all() lambdas are nested inside one another; at most ${MAX_LAMBDA_NESTING} may be: split the condition, or filter from the set the inner navigation starts at`,
      option,
    );
  }
}

/** Rows the expansions below a level produce, `rows` being that level's row count. */
function expandRows(q: ODataQuery, rows: number, path: string, worst: { rows: number; path: string }): number {
  let total = 0;
  for (const item of q.expand) {
    checkLambdas(item.query.filter, `$filter of expanded '${path}${item.name}'`);
    if (item.countOnly) continue;
    const per = item.step.nav.kind === "many" ? (item.query.top ?? DEFAULT_TOP) : 1;
    const here = rows * per;
    if (item.step.nav.kind === "many" && here > worst.rows) Object.assign(worst, { rows: here, path: path + item.name });
    total += (item.step.nav.kind === "many" ? here : 0) + expandRows(item.query, here, `${path}${item.name}/`, worst);
  }
  return total;
}

/**
 * The most rows a query may produce: its page's rows plus, for every to-many expansion, the product
 * of the $top values along its path (one without $top counts as DEFAULT_TOP). The budget below
 * refuses a query over MAX_EXPAND_ROWS; the gate's costly lane takes one over COSTLY_ROWS
 * (entities/service.ts). Checks the lambdas of the expansions' filters on the way.
 */
export function rowsBound(q: ODataQuery): { rows: number; worst: { rows: number; path: string } } {
  const top = q.top ?? DEFAULT_TOP;
  const worst = { rows: 0, path: "" };
  return { rows: top + expandRows(q, top, "", worst), worst };
}

/** Refuses a query over the budget with a 400 naming the limit and what to lower. */
export function checkQueryCost(q: ODataQuery): void {
  checkLambdas(q.filter, "$filter");
  for (const f of q.apply?.filters ?? []) checkLambdas(f, "$apply");
  const { rows, worst } = rowsBound(q);
  if (rows > MAX_EXPAND_ROWS) {
    throw odataError(
      `the $expand tree may produce ${rows.toLocaleString("en-US")} rows, more than ${MAX_EXPAND_ROWS.toLocaleString("en-US")} ($top multiplied along each to-many expansion; one without $top counts as ${DEFAULT_TOP}); the largest is '${worst.path}' at ${worst.rows.toLocaleString("en-US")}: give it or its parents a smaller $top`,
      "$expand",
    );
  }
}

/**
 * Whether a read is weighed costly before it runs, and so takes a slot of the gate's costly lane
 * (db/gate.ts): it may produce COSTLY_ROWS rows or more, or its filter nests lambdas as deeply as
 * the budget allows (each walks a to-many navigation per row of the one outside it).
 */
export function weighedCostly(q: ODataQuery): boolean {
  return rowsBound(q).rows >= COSTLY_ROWS || lambdaNesting(q.filter) >= MAX_LAMBDA_NESTING;
}
