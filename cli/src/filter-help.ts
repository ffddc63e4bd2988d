// The --filter keys for --help, apart from the parser (filters.ts) so help loads nothing else.
export const FILTER_HELP = `Filters (--filter, repeatable; ids comma-separated):
  region=1,2          respondents of these regions
  option=22           these test options
  run=15              these survey runs
  demographic=451     system-question option ids (age group, gender, ...)
  answer=301          respondents who gave these answers; exclude=302 those who did not
  group-segment=7     project group segments
  panel=Customer|Ideally
  from=2026-01-01, to=2026-03-31   completion dates (whole days)`;
