// SPEC 4's project status codes by name, for people reading a table (scripts get the code).
export const STATUS_NAMES: Record<number, string> = {
  0: "Draft",
  50: "Awaiting Approval",
  100: "Submitted",
  200: "Reviewing Questions",
  300: "Awaiting Survey",
  400: "Processing results",
  800: "Completed Wave",
  900: "Complete",
  950: "Demo",
};
export const statusName = (code: number | null | undefined) => (code == null ? "–" : (STATUS_NAMES[code] ?? String(code)));
