#!/usr/bin/env bash
# The project states facts about itself as it is now; its history lives in
# git. This test (TAP) fails on words that tell how the tree got here -
# "session N", "used to", "earlier run", "earlier measurements" - in the
# README files, the cover letters (they go to the lists) and the comments
# and texts of scripts/, checks/, guest/, the Makefile and .ci/. The
# series in branches/ are kernel patches and are left to checkpatch and
# review.
set -u
REPO=$(cd "$(dirname "$0")/../.." && pwd)
cd "$REPO" || exit 1
. scripts/ktap.sh
echo "TAP version 13"
# "is used to", "be used to" etc. describe a use, not a past.
pattern='\bsessions?\b|\bused to\b|\bearlier (runs?|sessions?|measurements?)\b'
allow='(is|are|was|were|be|been|being|get|gets) used to|session leader'
files=$(git ls-files -- README.md '*/README.md' cover-letters scripts checks guest Makefile .ci |
	grep -v -e '^scripts/test/history.sh$' -e '^scripts/test/fixtures/')
hits=$(printf '%s\n' "$files" | xargs -d '\n' grep -n -i -E -I "$pattern" 2>/dev/null |
	grep -v -i -E "$allow" || true)
if [ -z "$hits" ]; then
	ok "no build-history words in README, cover letters, scripts, checks, guest, Makefile, .ci"
else
	notok "build-history words in the tree ($(printf '%s\n' "$hits" | wc -l) lines)"
	printf '%s\n' "$hits" | diag
fi
# The test itself can fail: a file that says "session" and a number is caught.
T=$(mktemp -d); trap 'rm -rf "$T"' EXIT
printf 'measured in %s 3\nit used to fail\nthis is used to build\nEarlier measurements:\n' session >"$T/x"
got=$(grep -i -E "$pattern" "$T/x" | grep -v -i -E "$allow" | wc -l)
if [ "$got" = 3 ]; then
	ok "the detector catches a session number, 'used to fail', 'Earlier measurements', not 'is used to build'"
else
	notok "the detector found $got of 3 planted lines"
fi
ktap_exit
