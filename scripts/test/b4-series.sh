#!/usr/bin/env bash
# Tests of scripts/series.sh (TAP): its refusals, and one real series.sh
# run on a demo topic in a sandbox (scripts/sandbox.sh). The series checks
# have their own unit tests (checks/test/series_checks.py), b4-cover.py
# its own (scripts/test/tools.py).
set -u
S=$(cd "$(dirname "$0")/.." && pwd)
REPO=$(cd "$S/.." && pwd)
T=$(mktemp -d)
. "$S/ktap.sh"
check() { local what=$1; shift; if "$@" >>"$T/log" 2>&1; then ok "$what"; else notok "$what"; tail -3 "$T/log" | sed 's/^/# /'; fi; }
trap 'rm -rf "$T"' EXIT
BASESHA=$(awk '{print $2}' "$REPO/branches/BASE")

# --- series.sh refusals (no side effects) ---
unknown() { ! bash "$S/series.sh" no-such-topic >"$T/o" 2>&1 && grep -q "unknown topic 'no-such-topic'; topics are: " "$T/o"; }
check "series.sh refuses an unknown topic and lists the topics" unknown
check "series.sh refuses 'base'" bash -c "! bash '$S/series.sh' base >/dev/null 2>&1"
nopatch() { ! MM_TOPICS=nopatch-x bash "$S/series.sh" nopatch-x >"$T/o" 2>&1 && grep -q "no patches" "$T/o"; }
check "series.sh refuses a topic without patches" nopatch

export MM_OUT=$T/out

# --- series.sh end to end on a sandbox demo topic ---
(
	export SB_SRC=$REPO
	. "$S/sandbox.sh"
	sb_new "$T/sb" >/dev/null 2>&1 || exit 3
	sb_demo demo
	sb_worktree demo >/dev/null 2>&1 || exit 3
	R=$SB_REPO
	mv "$R/cover-letters/demo" "$T/cover"
	nocover() { ! bash "$R/scripts/series.sh" demo >"$T/o" 2>&1 && grep -q "no cover letter" "$T/o"; }
	if nocover; then echo "ok - series.sh refuses a topic without a cover letter"; else echo "not ok - series.sh refuses a topic without a cover letter"; fi
	mv "$T/cover" "$R/cover-letters/demo"
	printf '#!/bin/sh\necho "check-series: $1: FAIL (test stub)"\nexit 1\n' >"$R/scripts/check-series.sh"
	if ! bash "$R/scripts/series.sh" demo >"$T/o" 2>&1 && grep -q "check-series failed for demo" "$T/o" && [ ! -d "$R/out/series/demo/v1" ]; then
		echo "ok - series.sh refuses when check-series fails, writes nothing"
	else
		echo "not ok - series.sh refuses when check-series fails"; sed 's/^/# /' "$T/o" | tail -5
	fi
	if bash "$R/scripts/series.sh" demo --force >"$T/o" 2>&1 && [ "$(ls "$R/out/series/demo/v1"/*.eml | wc -l)" = 3 ]; then
		echo "ok - series.sh --force writes cover 0/2 + 2 patches into out/series/demo/v1/"
	else
		echo "not ok - series.sh --force writes out/series/demo/v1/"; sed 's/^/# /' "$T/o" | tail -8
	fi
	c0=$(ls "$R/out/series/demo/v1"/0000-*.eml 2>/dev/null)
	if grep -q '^Subject: \[PATCH 6.12 0/2\] mm: a demo series' "$c0" && grep -q "^base-commit: $BASESHA" "$c0" &&
		grep -q '^ 2 files changed' "$c0" && grep -q '^mm-medley developers (2):' "$c0"; then
		echo "ok - cover: prefix from cover-letters/demo, generated shortlog, diffstat and base-commit"
	else
		echo "not ok - cover letter content"; head -30 "$c0" | sed 's/^/# /'
	fi
	if grep -q -- '--- b4-submit-tracking ---' "$R/cover-letters/demo" && grep -q '"change-id": "' "$R/cover-letters/demo"; then
		echo "ok - tracking block (change-id, revision, prefixes) written at the end of cover-letters/demo"
	else
		echo "not ok - tracking block in cover-letters/demo"
	fi
	cid=$(sed -n 's/.*"change-id": "\(.*\)".*/\1/p' "$R/cover-letters/demo")
	wt=$MM_CACHE/work/demo
	[ "$(git -C "$wt" config b4.sendemail-identity)" = mm-sink ] && git -C "$wt" config sendemail.mm-sink.smtpserver | grep -q '/scripts/sendmail-local$' \
		&& echo "ok - the imported branch sends through sendmail-local (b4.sendemail-identity mm-sink)" \
		|| echo "not ok - b4.sendemail-identity is '$(git -C "$wt" config b4.sendemail-identity)'"
	# unexported work in the worktree is never thrown away
	echo "/* unexported */" >>"$wt/mm/ksm.c"
	git -C "$wt" -c user.name=t -c user.email=t@example.org commit -q -a -m "mm: unexported"
	if ! bash "$R/scripts/series.sh" demo --skip-check-series >"$T/o" 2>&1 && grep -q "has a commit not in branches/demo/" "$T/o" &&
		git -C "$wt" log -1 --format=%s | grep -q unexported; then
		echo "ok - series.sh refuses to re-import over a commit not exported to branches/"
	else
		echo "not ok - series.sh refuses to re-import over unexported commits"; sed 's/^/# /' "$T/o" | tail -3
	fi
	git -C "$wt" reset -q --hard HEAD~1
	# a fresh import restores the same change-id and revision
	bash "$R/scripts/import.sh" demo >/dev/null 2>&1
	info=$(cd "$wt" && b4 --offline-mode prep --show-info 2>/dev/null)
	if printf '%s\n' "$info" | grep -qx "change-id: $cid" && printf '%s\n' "$info" | grep -qx "revision: 1"; then
		echo "ok - re-import restores change-id $cid and revision 1 (b4 prep --show-info)"
	else
		echo "not ok - re-import restores the change-id"; printf '%s\n' "$info" | sed 's/^/# /'
	fi
	# b4 send by hand in the worktree, then make series: v2, tag kept
	(cd "$wt" && b4 --offline-mode prep --auto-to-cc && printf '\n' | MM_MAIL_SINK=$T/sink b4 send --no-sign) >"$T/o" 2>&1
	if git -C "$wt" rev-parse -q --verify refs/tags/sent/demo-v1 >/dev/null && [ "$(ls "$T/sink"/*.eml | wc -l)" = 3 ]; then
		echo "ok - b4 send by hand goes through sendmail-local (3 mails in the sink), tags sent/demo-v1"
	else
		echo "not ok - b4 send by hand"; sed 's/^/# /' "$T/o" | tail -5
	fi
	if ! bash "$R/scripts/series.sh" demo --skip-check-series >"$T/o" 2>&1 && grep -q "send by hand" "$T/o" &&
		grep -q "no 'Changes in v2:' section" "$T/o" && [ -s "$R/cover-letters/demo.sent/v1.tag" ] &&
		grep -q '"revision": 2' "$R/cover-letters/demo"; then
		echo "ok - make series after a send by hand: tracking (v2) and sent tag kept, asks for 'Changes in v2'"
	else
		echo "not ok - make series after a send by hand"; sed 's/^/# /' "$T/o" | tail -5
	fi
	/usr/bin/python3 - "$R/cover-letters/demo" <<-'PYEOF'
	import sys
	p = sys.argv[1]; s = open(p).read(); i = s.find('--- b4-submit-tracking ---')
	open(p, 'w').write(s[:i].rstrip('\n') + '\n---\nChanges in v2:\n- nothing, a test\n\n' + s[i:])
	PYEOF
	git -C "$wt" tag -d sent/demo-v1 >/dev/null
	if bash "$R/scripts/series.sh" demo --skip-check-series >"$T/o" 2>&1 && grep -q '^Subject: \[PATCH 6.12 v2 0/2\]' "$R"/out/series/demo/v2/0000-*.eml &&
		git -C "$wt" rev-parse -q --verify refs/tags/sent/demo-v1 >/dev/null &&
		# (v1 went out by hand from a plain import, v2 carries the sender's sign-off: "!" or "=")
		(cd "$wt" && b4 --offline-mode prep --compare-to v1 2>/dev/null | grep -qE '1: .* [=!] 1: '); then
		echo "ok - v2 written; sent/demo-v1 restored from cover-letters/demo.sent/; compare-to v1 works"
	else
		echo "not ok - v2 after the send by hand"; sed 's/^/# /' "$T/o" | tail -5
	fi
) >"$T/e2e" 2>>"$T/log"
e2e=$?
# (the sandbox part's results, numbered here: the subshell's own count
# would be lost)
while read -r line; do
	case $line in
	"ok - "*) ok "${line#ok - }" ;;
	"not ok - "*) notok "${line#not ok - }" ;;
	*) echo "$line" ;;
	esac
done <"$T/e2e"
# a sandbox that could not be made (exit 3) leaves no result of its own
[ $e2e = 0 ] || { notok "the end-to-end part on the demo topic stopped (exit status $e2e)"; tail -5 "$T/log" | diag; }
ktap_exit
