#!/usr/bin/env bash
# Tests of scripts/series.sh and checks/series-* (TAP). ~1 min: one real
# series.sh run on a demo topic in a sandbox (scripts/sandbox.sh).
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

# --- the cover letter file <-> b4 tracking data ---
PY="/usr/bin/python3 $S/b4-cover.py"
printf '[RFC PATCH 6.12 v3 0/4] mm: a subject\n\nBody line.\n' >"$T/cl"
[ "$($PY prefixes "$T/cl")" = "RFC 6.12" ] && [ "$($PY subject-revision "$T/cl")" = 3 ] &&
	[ "$($PY text "$T/cl" | head -1)" = "mm: a subject" ] \
	&& ok "cover-letters: '[RFC PATCH 6.12 v3 0/4] subject' gives prefixes 'RFC 6.12', revision 3, bare subject" \
	|| notok "cover-letters subject parsing"
echo '{"series": {"revision": 2, "change-id": "20261203-x-0123", "prefixes": ["6.12"]}}' | $PY set-block "$T/cl"
echo '{"series": {"revision": 3, "change-id": "20261203-x-0123", "prefixes": ["6.12"]}}' | $PY set-block "$T/cl"
[ "$(grep -c -- '--- b4-submit-tracking ---' "$T/cl")" = 1 ] && [ "$($PY tracking "$T/cl" | $PY get revision)" = 3 ] &&
	[ "$($PY text "$T/cl" | tail -1)" = "Body line." ] \
	&& ok "cover-letters: the tracking block is replaced at the end, the body kept" \
	|| notok "cover-letters: tracking block replacement"

# --- the series checks on hand-made mails ---
# mail NAME SUBJECT TO CC BODY-TAGS [EXTRA-LINE]
mail() {
	local f=$1 subj=$2 to=$3 cc=$4 tags=$5 extra=${6:-/* a comment */}
	{
		echo "From: mm-medley developers <mm-medley@lists.example.org>"
		echo "Subject: $subj"
		echo "Date: Thu, 03 Dec 2026 08:00:00 +0000"
		echo "Message-Id: <$(basename "$f" .eml)-test@lists.example.org>"
		[ -n "$to" ] && echo "To: $to"
		[ -n "$cc" ] && echo "Cc: $cc"
		echo
		echo "Explain the change in a few words for the test."
		echo
		[ -n "$tags" ] && printf '%s\n' "$tags"
		echo "${SOB:-Signed-off-by: mm-medley developers <mm-medley@lists.example.org>}"
		echo "---"
		echo " mm/ksm.c | 1 +"
		echo " 1 file changed, 1 insertion(+)"
		echo
		echo "diff --git a/mm/ksm.c b/mm/ksm.c"
		echo "index 0123456789ab..0123456789ac 100644"
		echo "--- a/mm/ksm.c"
		echo "+++ b/mm/ksm.c"
		echo "@@ -40,6 +40,7 @@"
		echo " #include <linux/oom.h>"
		echo " #include <linux/numa.h>"
		echo " #include <linux/pagewalk.h>"
		echo "+$extra"
		echo " "
		echo " #include <asm/tlbflush.h>"
		echo " #include \"internal.h\""
		echo "-- "
		echo "2.39.5"
	} >"$f"
}
cover() {
	local f=$1 subj=$2 base=${3:-$BASESHA}
	{
		echo "From: mm-medley developers <mm-medley@lists.example.org>"
		echo "Subject: $subj"
		echo "Message-Id: <cover-test@lists.example.org>"
		echo "To: Andrew Morton <akpm@linux-foundation.org>"
		echo
		echo "Cover text of the test series: it says what the two patches do, why,"
		echo "how it was measured, and what changed against the upstream posting."
		echo
		echo "Base: Debian 12's linux-source-6.12 package, version $DEBV, unpacked"
		echo "and committed as one commit. The base-commit below names that commit"
		echo "of the fork's base tree, not a commit of linux.git."
		echo "---"
		echo "Changes in v2:"
		echo "- the test changed nothing"
		echo
		echo "---"
		echo "base-commit: $base"
		echo "change-id: 20261203-test-0123456789ab"
	} >"$f"
}
TO="Andrew Morton <akpm@linux-foundation.org>"
CC="linux-mm@kvack.org, linux-kernel@vger.kernel.org"
LINK="Originally-by: Some One <someone@example.org>
Link: https://lore.kernel.org/r/20250101.1234-1-someone@example.org"
DEBV=6.12.118-1~deb12u1
export MM_BASE_DEB_VERSION=$DEBV
FIX='Fixes: 0123456789ab ("mm: an upstream commit")'
good() {
	rm -rf "$1"; mkdir -p "$1"
	cover "$1/0000-c.eml" "[PATCH 6.12 v2 0/2] mm: test series"
	mail "$1/0001-a.eml" "[PATCH 6.12 v2 1/2] mm/ksm: one" "$TO" "$CC" "$LINK"
	mail "$1/0002-b.eml" "[PATCH 6.12 v2 2/2] mm/ksm: two" "$TO" "$CC" "$FIX"
}
export MM_OUT=$T/out
runc() { # runc CHECK DIR -> exit status of checks/series-CHECK on DIR
	MM_SERIES_DIR=$2 "$REPO/checks/series-$1" t-test >"$T/o" 2>&1
}
D=$T/series/v2
good "$D"
for c in cover prefixes recipients base tags checkpatch credit; do
	if runc "$c" "$D"; then ok "series-$c passes a good series"; else notok "series-$c passes a good series"; sed 's/^/# /' "$T/o"; fi
done
[ -s "$MM_OUT/checks/t-test/series-tags.log" ] && ok "series checks write out/checks/<topic>/<name>.log" || notok "no log in out/checks/t-test/"
bad() { # bad CHECK WHAT: expects a failure of CHECK on $D
	if runc "$1" "$D"; then notok "series-$1 fails on $2"; else ok "series-$1 fails on $2: $(cut -c1-110 "$T/o")"; fi
	good "$D"
}
mail "$D/0002-b.eml" "[PATCH RFC 6.12 v2 2/2] mm/ksm: two" "$TO" "$CC" ""; bad prefixes "mixed prefixes"
mail "$D/0002-b.eml" "[PATCH 6.12 v2 1/2] mm/ksm: two" "$TO" "$CC" ""; bad prefixes "a number used twice"
mail "$D/0002-b.eml" "[PATCH 6.12 2/2] mm/ksm: two" "$TO" "$CC" ""; bad prefixes "a patch without v2"
mail "$D/0002-b.eml" "[PATCH 6.12 v2 2/3] mm/ksm: two" "$TO" "$CC" ""; bad prefixes "a wrong total"
mail "$D/0002-b.eml" "[PATCH 6.12 v2 2/3] mm/ksm: two" "$TO" "$CC" ""
PYTHONHASHSEED=0 runc prefixes "$D"; mv "$T/o" "$T/o0"; PYTHONHASHSEED=1 runc prefixes "$D"
cmp -s "$T/o0" "$T/o" && ok "series-prefixes: one verdict on a wrong total whatever PYTHONHASHSEED: $(cut -c1-70 "$T/o")" \
	|| { notok "series-prefixes: the verdict on a wrong total depends on PYTHONHASHSEED"; diag "$T/o0" "$T/o"; }
good "$D"
mail "$D/0001-a.eml" "[PATCH 6.12 v2 1/2] mm/ksm: one" "$TO" "linux-kernel@vger.kernel.org" ""; bad recipients "linux-mm missing from Cc"
mail "$D/0001-a.eml" "[PATCH 6.12 v2 1/2] mm/ksm: one" "" "$CC" ""; bad recipients "the maintainer missing"
sed -i 's/^Cover text of the test series:/EDITME: &/' "$D/0000-c.eml"; bad cover "an EDITME left in the cover"
sed -i 's/^how it was measured.*/@@RESULTS@@/' "$D/0000-c.eml"; bad cover "a @@RESULTS@@ placeholder"
sed -i '/^Changes in v2:/d' "$D/0000-c.eml"; bad cover "v2 without 'Changes in v2'"
cover "$D/0000-c.eml" "[PATCH 6.12 v2 0/2] mm: test series" 0123456789abcdef0123456789abcdef01234567; bad base "a foreign base-commit"
sed -i '/^base-commit/d' "$D/0000-c.eml"; bad base "no base-commit"
mail "$D/0001-a.eml" "[PATCH 6.12 v2 1/2] mm/ksm: one" "$TO" "$CC" 'Fixes: 0123abc ("mm: short")'; bad tags "a Fixes: with 7 hex digits"
mail "$D/0001-a.eml" "[PATCH 6.12 v2 1/2] mm/ksm: one" "$TO" "$CC" 'Fixes: 0123456789ab mm: no quotes'; bad tags "a Fixes: without (\"subject\")"
mail "$D/0001-a.eml" "[PATCH 6.12 v2 1/2] mm/ksm: one" "$TO" "$CC" 'Link: https://lore.kernel.org/linux-mm/'; bad tags "a lore Link: without message-id"
mail "$D/0001-a.eml" "[PATCH 6.12 v2 1/2] mm/ksm: one" "$TO" "$CC" 'link:https://lore.kernel.org/r/a@b'; bad tags "a malformed link: tag"
mail "$D/0001-a.eml" "[PATCH 6.12 v2 1/2] mm/ksm: one" "$TO" "$CC" "" \
	"static int a_rather_long_name_for_a_test_variable_that_goes_on_and_on_and_on = 1; /* well beyond the limit */"
bad checkpatch "a line over the column limit"
sed -i '/^Base: Debian/,/linux.git\.$/d' "$D/0000-c.eml"; bad base "a cover that does not state its base"
sed -i 's/version 6.12.118-1~deb12u1/version 6.12.99/' "$D/0000-c.eml"; bad base "a cover with another Debian version"
sed -i 's/, not a commit of linux.git//; s/of the fork.s base tree/of some tree/' "$D/0000-c.eml"; bad base "a cover that does not say what base-commit names"

# --- credit (checks/series-credit on mails, checks/signoff's rules on patch files) ---
ORIG_LINK="Originally-by: Jane Doe <jane@kernel-dev.net>
Link: https://lore.kernel.org/r/20250313210647.1314586-2-jane@kernel-dev.net"
FOLD_OK="Folds in 38448181459e (\"mm: vmscan: restore high-cpu watermark safety in
kswapd\") by Jane Doe <jane@kernel-dev.net>.

$ORIG_LINK"
mail "$D/0001-a.eml" "[PATCH 6.12 v2 1/2] mm/ksm: one" "$TO" "$CC" "$FOLD_OK"
runc credit "$D" && ok "series-credit passes Originally-by + Link and a folded fix named by hash and (\"subject\") over two lines" \
	|| { notok "series-credit passes a credited patch"; sed 's/^/# /' "$T/o"; }
good "$D"
mail "$D/0001-a.eml" "[PATCH 6.12 v2 1/2] mm/ksm: one" "$TO" "$CC" "Link: https://lore.kernel.org/r/20250313210647.1314586-2-jane@kernel-dev.net"
bad credit "a Link: to a lore posting without Originally-by"
mail "$D/0001-a.eml" "[PATCH 6.12 v2 1/2] mm/ksm: one" "$TO" "$CC" "Link: https://lkml.kernel.org/r/20250313210647.1314586-2-jane@kernel-dev.net"
bad credit "a Link: to an lkml posting without Originally-by"
mail "$D/0001-a.eml" "[PATCH 6.12 v2 1/2] mm/ksm: one" "$TO" "$CC" "This folds in the upstream fix for the retry loop.

$ORIG_LINK"
bad credit "'folds in the upstream fix' without a hash"
mail "$D/0001-a.eml" "[PATCH 6.12 v2 1/2] mm/ksm: one" "$TO" "$CC" "Includes the upstream fix \"mm: fix the retry loop\" by Jane Doe.

$ORIG_LINK"
bad credit "'includes the upstream fix' with a subject but no hash"
mail "$D/0001-a.eml" "[PATCH 6.12 v2 1/2] mm/ksm: one" "$TO" "$CC" "Fixes folded in:
- 38448181459e (\"mm: vmscan: restore high-cpu watermark safety in kswapd\")
- the order-0 fallback of kswapd, a1f0220f3319

$ORIG_LINK"
bad credit "a list of folded fixes where one lacks (\"subject\")"
mail "$D/0001-a.eml" "[PATCH 6.12 v2 1/2] mm/ksm: one" "$TO" "$CC" "Not folded in: the later fix of the refcount, which needs 6.14.

$ORIG_LINK"
runc credit "$D" && ok "series-credit: 'Not folded in: ... fix' needs no hash" || { notok "series-credit on 'Not folded in'"; sed 's/^/# /' "$T/o"; }
good "$D"
runc credit "$D" && ok "series-credit: placeholder sign-offs pass when the series is not for a real send" || notok "series-credit without MM_SEND_MODE"
for m in smtp reflect; do
	if MM_SEND_MODE=$m runc credit "$D"; then notok "series-credit (MM_SEND_MODE=$m) fails a sign-off by mm-medley@lists.example.org"
	else ok "series-credit (MM_SEND_MODE=$m) fails a sign-off by mm-medley@lists.example.org: $(cut -c1-90 "$T/o")"; fi
done
for a in "a@users.noreply.github.com" "x@host.invalid" "m@users.noreply.a-seed-1.example" "j@example.com"; do
	SOB="Signed-off-by: A Person <$a>" mail "$D/0001-a.eml" "[PATCH 6.12 v2 1/2] mm/ksm: one" "$TO" "$CC" "$ORIG_LINK"
	SOB="Signed-off-by: A Person <$a>" mail "$D/0002-b.eml" "[PATCH 6.12 v2 2/2] mm/ksm: two" "$TO" "$CC" ""
	if MM_SEND_MODE=smtp runc credit "$D"; then notok "series-credit (real send) fails the sign-off <$a>"; else ok "series-credit (real send) fails the sign-off <$a>"; fi
done
SOB="Signed-off-by: Jane Doe <jane@kernel-dev.net>" mail "$D/0001-a.eml" "[PATCH 6.12 v2 1/2] mm/ksm: one" "$TO" "$CC" "$ORIG_LINK"
SOB="Signed-off-by: Jane Doe <jane@kernel-dev.net>" mail "$D/0002-b.eml" "[PATCH 6.12 v2 2/2] mm/ksm: two" "$TO" "$CC" ""
MM_SEND_MODE=smtp runc credit "$D" && ok "series-credit (real send) passes a person's sign-off" || { notok "series-credit (real send) on a person's sign-off"; sed 's/^/# /' "$T/o"; }
good "$D"
# the same rules on patch files (checks/signoff): the fixtures in scripts/test/fixtures/credit/
FX=$S/test/fixtures/credit
for f in "$FX"/good-*.patch; do
	r=$(/usr/bin/python3 "$REPO/checks/credit.py" files "$f" | cut -f2-)
	[ "${r%%$'\t'*}" = ok ] && ok "signoff credit rules pass $(basename "$f")" || notok "signoff credit rules on $(basename "$f"): $r"
done
for f in "$FX"/bad-*.patch; do
	r=$(/usr/bin/python3 "$REPO/checks/credit.py" files "$f" | cut -f2-)
	why=${r#*$'\t'}
	[ "${r%%$'\t'*}" = FAIL ] && ok "signoff credit rules fail $(basename "$f"): ${why:0:110}" || notok "signoff credit rules pass $(basename "$f")"
done
r=$(MM_SEND_MODE=smtp /usr/bin/python3 "$REPO/checks/credit.py" files "$FX/good-ported.patch" | cut -f2)
[ "$r" = FAIL ] && ok "signoff credit rules fail good-ported.patch's placeholder sign-off for a real send" || notok "placeholder sign-off of good-ported.patch passes a real send"

# --- RFC prefix and the Cc of checks/send.conf (sksm: rfc, cc=linux-api) ---
rfc() {
	rm -rf "$1"; mkdir -p "$1"
	cover "$1/0000-c.eml" "[RFC PATCH 6.12 v2 0/2] mm: test series"
	sed -i 's/^To: .*/&\nCc: linux-api@vger.kernel.org/' "$1/0000-c.eml"
	mail "$1/0001-a.eml" "[RFC PATCH 6.12 v2 1/2] mm/ksm: one" "$TO" "$CC, linux-api@vger.kernel.org" "$LINK"
	mail "$1/0002-b.eml" "[RFC PATCH 6.12 v2 2/2] mm/ksm: two" "$TO" "$CC, linux-api@vger.kernel.org" "$FIX"
}
runs() { MM_SERIES_DIR=$2 "$REPO/checks/series-$1" sksm >"$T/o" 2>&1; }
rfc "$D"
for c in prefixes recipients; do
	runs "$c" "$D" && ok "series-$c passes sksm as [RFC PATCH 6.12 v2 n/2] with Cc linux-api" || { notok "series-$c on a good sksm series"; sed 's/^/# /' "$T/o"; }
done
badrfc() { if runs "$1" "$D"; then notok "series-$1 fails sksm with $2"; else ok "series-$1 fails sksm with $2: $(cut -c1-100 "$T/o")"; fi; rfc "$D"; }
for f in "$D"/*.eml; do sed -i 's/^Subject: \[RFC PATCH /Subject: [PATCH /' "$f"; done; badrfc prefixes "no RFC"
for f in "$D"/*.eml; do sed -i 's/^Subject: \[RFC PATCH /Subject: [PATCH RFC /' "$f"; done; badrfc prefixes "[PATCH RFC ...] (RFC not first)"
for f in "$D"/*.eml; do sed -i 's/, linux-api@vger.kernel.org//; /^Cc: linux-api@vger.kernel.org$/d' "$f"; done; badrfc recipients "no Cc to linux-api"
good "$D"

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
while read -r line; do
	case $line in
	"ok - "*) ok "${line#ok - }" ;;
	"not ok - "*) notok "${line#not ok - }" ;;
	*) echo "$line" ;;
	esac
done <"$T/e2e"
ktap_exit
