// The quota targets and problems, and shares in hundredths: what the one-question quotas
// (quotas.ts) and the crossed cells (crossed.ts) both read, here so neither imports the other.

export interface QuotaTarget {
  /** s{systemQuestionId} or q{questionId}: the group. */
  groupKey: string;
  groupName: string;
  /** The region the target applies in (null: every region of the project). */
  regionId: number | null;
  /** The option's own region (demographic options of one region), null otherwise. */
  optionRegionId: number | null;
  optionId: number;
  /** The answer's words (for explanations). */
  optionLabel: string;
  quotaPercent: number | null;
  onlyThese: boolean;
}

export interface QuotaProblem {
  groupKey: string;
  groupName: string;
  regionId: number;
  message: string;
}

/** Percentages in hundredths (numeric(5,2)), so 33.33 + 66.67 is exactly 100. */
export const hundredths = (x: number) => Math.round(x * 100);
export const pct = (h: number) => `${(h / 100).toString()}%`;
