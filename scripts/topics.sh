#!/usr/bin/env bash
# List the topics with their patch counts and cover-letter subjects.
. "$(dirname "$0")/lib.sh"
for t in $TOPICS; do
	n=$(ls "$REPO/branches/$t"/*.patch 2>/dev/null | wc -l)
	subj=$(head -1 "$REPO/cover-letters/$t" 2>/dev/null || echo "(no cover letter)")
	printf '%-16s %2d patches  %s\n' "$t" "$n" "$subj"
done
printf '%-16s %s\n' base "the unpatched tree ($(cat "$CACHE/base-version" 2>/dev/null || echo 'not made yet'))" medley "all topics merged (scripts/medley.sh, branches/medley-order)"
