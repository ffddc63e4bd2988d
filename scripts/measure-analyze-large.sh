#!/bin/bash
# scripts/measure-analyze-large.sh ROWS...: each `ideally analyze` command on the files of
# scripts/gen-analyze-large.ts (.tmp/{psm,turf,rake,compare}-ROWS.csv) under /usr/bin/time -v,
# one at a time; prints the maximum resident set size and the wall time of each
# (docs/performance.md "ideally analyze on large files"). Output JSON goes to .tmp/out-*.json.
cd "$(dirname "$0")/.." || exit 1
D=.tmp
for n in "$@"; do
  for cmd in psm turf rake compare; do
    case $cmd in
      psm) args="psm $D/psm-$n.csv --too-cheap too_cheap --cheap cheap --expensive expensive --too-expensive too_expensive --pi-cheap pi_cheap --pi-expensive pi_expensive --weight w --json" ;;
      turf) args="turf $D/turf-$n.csv --items item_1,item_2,item_3,item_4,item_5,item_6,item_7,item_8,item_9,item_10 --k 3 --weight w --json" ;;
      rake) args="rake $D/rake-$n.csv --target sex=Female:0.51,Male:0.49 --target age=18-24:0.12,25-34:0.18,35-44:0.2,45-54:0.2,55+:0.3 --target region=North:0.25,South:0.3,East:0.25,West:0.2 --json" ;;
      compare) args="compare $D/compare-$n.csv --value value --top 1,2 --group option --weight w --strata market --respondent respondent --json" ;;
    esac
    # shellcheck disable=SC2086
    /usr/bin/time -v bun run cli/src/main.ts analyze $args > "$D/out-$cmd-$n.json" 2> "$D/time-$cmd-$n.txt"
    echo "$cmd $n exit=$? $(grep -E 'Maximum resident|Elapsed' "$D/time-$cmd-$n.txt" | sed 's/^[[:space:]]*//' | tr '\n' ' ')"
  done
done
