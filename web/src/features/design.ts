// The test design's name, with what it means and costs (SPEC 3's splitCellQuota; DOMAIN.md; the cost
// formula of docs/credits.md: each test option beyond the first adds 25% to a run, in either design).
export function designName(splitCellQuota: boolean): string {
  return splitCellQuota ? "Monadic (split cells)" : "Sequential monadic";
}

export function designText(splitCellQuota: boolean): string {
  return splitCellQuota
    ? "Monadic (split cells): each respondent sees one test option, and the completes are split evenly between the options (fewer per option, no order effects). Each option beyond the first adds 25% to the cost."
    : "Sequential monadic: each respondent rates every test option, one after another in a random order, so every option is rated by all completes and options are compared within respondent. Each option beyond the first adds 25% to the cost.";
}

/** splitCellQuota of a project read without $select (the field is there; the page's type may not name it). */
export function isSplitCell(project: object): boolean {
  return "splitCellQuota" in project && project.splitCellQuota === true;
}
