#!/usr/bin/env bash
# The round trip of a topic through a local mailing list (TAP on stdout):
#
#   roundtrip.sh TOPIC [--keep]      (TOPIC "demo"/"demo1": a made-up 2-/1-patch topic)
#
# Everything happens on copies in a temp dir: the repository (scripts,
# checks, branches/TOPIC, cover-letters/TOPIC*), the cache (a shared clone
# of the base) and a public-inbox list started here on 127.0.0.1:<random
# free port> and stopped at the end. The topic's real worktree, branch and
# cover letter are never touched.
#
#  1 series.sh --send (--skip-check-series: make check-series does those): b4 prep + send -o + a real b4 send through
#    sendmail-local into the list; sent/TOPIC-vN tagged and saved
#    + the series-* checks on the mails written
#  2 every mail of the series is in the archive
#  3 fresh clone of the base (sparse: the folders the topic touches), b4 am <cover msgid> from the archive
#    (b4.midmask), git am: same tree hash as the topic branch
#  4 a Reviewed-by: reply sent to the list; b4 trailers -u puts it in the
#    right patch, and only there
#  5 sent tag restored from cover-letters/TOPIC.sent after deleting it
#  6 a change to the last patch, series.sh again: vN+1 with
#    "Changes in vN+1" and b4 prep --compare-to vN gives a range-diff
#    showing the change
here=$(cd "$(dirname "$0")" && pwd)
. "$here/lib.sh"
. "$here/ktap.sh"
set +e
t=${1:?usage: roundtrip.sh TOPIC [--keep]}
keep=
[ "${2:-}" = --keep ] && keep=1
case $t in demo|demo1) demo=1 ;; *) demo= ;; esac

# A failure before the round trip starts is still one TAP result.
tapdie() { notok "roundtrip $t: $*"; ktap_plan; exit 1; }
run()    { echo "+ $*" >>"$LOG"; "$@" >>"$LOG" 2>&1; }
finish() {
	ktap_plan
	echo "# roundtrip $t: $((ktap_n - ktap_fails))/$ktap_n passed in $(( $(date +%s) - t0 )) s"
	ktap_status
	exit $?
}
tracking() { git -C "$wt" log -1 --format=%B -F --grep='--- b4-submit-tracking ---' | $PY commit-tracking; }

# A real topic needs patches and a cover letter; every topic needs the base.
check_topic_ready() {
	if [ -z "$demo" ]; then
		(check_topic "$t") 2>/dev/null || tapdie "unknown topic; topics are: $TOPICS (or demo, demo1)"
		case $t in base|medley) tapdie "roundtrip takes a topic: $TOPICS" ;; esac
		[ -n "$(ls "$REPO/branches/$t"/*.patch 2>/dev/null)" ] || tapdie "no patches in branches/$t/"
		[ -s "$REPO/cover-letters/$t" ] || tapdie "no cover letter (cover-letters/$t)"
	fi
	bash "$REPO/scripts/base.sh" >/dev/null 2>&1 || tapdie "no base: run 'make base'"
}

# The copies (scripts/sandbox.sh) in a temp dir, removed at the end unless
# --keep, and the topic's worktree there as a sparse checkout.
make_sandbox() {
	T=$(mktemp -d "${TMPDIR:-/tmp}/mm-roundtrip-$t.XXXXXX")
	SB_REAL_CACHE=$CACHE
	SB_SRC=$REPO
	. "$REPO/scripts/sandbox.sh"
	sb_new "$T" || die "could not make the sandbox in $T"
	if [ -n "$demo" ]; then sb_demo "$t"; else sb_topic "$t"; export MM_TOPICS=$t; fi
	R=$SB_REPO
	LOG=$T/roundtrip.log
	listdir=$T/list
	trap cleanup EXIT
	sb_worktree "$t" >/dev/null 2>&1 || tapdie "could not make a sparse worktree of the base in $T"
}
cleanup() {
	bash "$R/scripts/list.sh" stop "$listdir" >>"$LOG" 2>&1
	if [ -n "$keep" ]; then echo "# kept $T"; else rm -rf "$T"; fi
}

# The local list on a free loopback port, listening there only.
start_list() {
	env_out=$(bash "$R/scripts/list.sh" start "$listdir" 2>>"$LOG") || { notok "start the local list"; tail -5 "$LOG" | diag; finish; }
	eval "$env_out"
	export MM_LIST_DIR
	URL=$MM_LIST_URL
	case $URL in http://127.0.0.1:*) ;; *) notok "list not on loopback: $URL"; finish ;; esac
	echo "# list $URL, sandbox $T"
	port=${URL#http://127.0.0.1:}; port=${port%%/*}
	if command -v ss >/dev/null; then
		where=$(ss -Hltn "sport = :$port" | awk '{print $4}' | sort -u | tr '\n' ' ')
		[ "$where" = "127.0.0.1:$port " ] && ok "local list (public-inbox-httpd) listens on 127.0.0.1:$port only" \
			|| notok "local list listens on: $where"
	fi
}

# b4 of the base finds mails on the list; the series goes out as the
# project's placeholder sender.
set_b4_and_sender() {
	B4CFG=(b4.midmask="$URL/%s" b4.linkmask="$URL/%s" "b4.searchmask=$URL/?x=m&t=1&q=%s")
	base=$MM_CACHE/base
	for kv in "${B4CFG[@]}"; do git -C "$base" config "${kv%%=*}" "${kv#*=}"; done
	wt=$MM_CACHE/work/$t
	PY="/usr/bin/python3 $R/scripts/b4-cover.py"
	export MM_SENDER_NAME="mm-medley developers" MM_SENDER_EMAIL=mm-medley@lists.example.org
	ident=(-c user.name="$MM_SENDER_NAME" -c user.email="$MM_SENDER_EMAIL")
}

# 1. series + real send into the list
send_series() {
	if run bash "$R/scripts/series.sh" "$t" --force --send --skip-check-series; then
		rev=$(( $(tracking | $PY get revision) - 1 ))
		ok "series.sh $t --send: v$rev written to out/series/$t/v$rev and sent through sendmail-local"
	else
		notok "series.sh $t --send"; tail -15 "$LOG" | diag; finish
	fi
	git -C "$wt" rev-parse -q --verify "refs/tags/sent/$t-v$rev" >/dev/null && [ -s "$R/cover-letters/$t.sent/v$rev.mbox" ] \
		&& ok "sent/$t-v$rev tagged and saved in cover-letters/$t.sent/" \
		|| notok "sent/$t-v$rev tagged and saved in cover-letters/$t.sent/"
	cover_id=$(tracking | $PY get history | /usr/bin/python3 -c 'import json,sys; print(json.load(sys.stdin)["v'$rev'"][-1])' 2>/dev/null)
}

# the pre-send checks on the mails as written: series.sh ran every one of
# them (with --force it writes the mails whatever they say) and kept each
# one's result line in checks.ktap beside the mails (running them again
# here cost about 12 s of a core per topic); each is a result here
series_check_verdicts() {
	local ck name line
	ck=$R/out/series/$t/v$rev/checks.ktap
	for c in "$R"/checks/series-*; do
		[ -x "$c" ] || continue
		name=$(basename "$c")
		line=$(grep -E "^(not )?ok [0-9]+ - $name( #|$)" "$ck" 2>/dev/null) || { notok "$name # no result in $ck"; continue; }
		# its diagnostics (the "#" lines just above its result line)
		awk -v n="$name" '/^#/ { d = d $0 "\n"; next } $0 ~ "^(not )?ok [0-9]+ - " n "( #|$)" { printf "%s", d } { d = "" }' "$ck"
		case $line in
		"not ok "*) notok "${line#not ok * - }" ;;
		*" # SKIP"*) line=${line#ok * - }; skip "$name" "${line#*# SKIP }" ;;
		*) ok "${line#ok * - }" ;;
		esac
	done
}

# 2. all mails archived
all_archived() {
	missing=0 total=0
	for f in "$R"/out/mail/*.eml; do
		id=$(sed -n '/^$/q; s/^[Mm]essage-[Ii][Dd]: *<\(.*\)>.*/\1/p' "$f" | head -1)
		total=$((total + 1))
		bash "$R/scripts/list.sh" has "$id" "$listdir" 2>>"$LOG" || { missing=$((missing + 1)); echo "# not archived: $id"; }
	done
	nexp=$(ls "$R/out/series/$t/v$rev"/*.eml | wc -l)
	[ "$total" -eq "$nexp" ] && [ "$missing" -eq 0 ] && [ -n "$cover_id" ] \
		&& ok "the list archived all $total mails (cover <$cover_id>)" \
		|| notok "the list archived $((total - missing)) of $total mails, $nexp expected (cover '$cover_id')"
}

# 3. fresh clone, b4 am, git am, same tree
am_on_fresh_clone() {
	fresh=$T/fresh
	tag=v$(cat "$MM_CACHE/base-version")
	if run git clone -q --shared --no-checkout "$base" "$fresh" && run sb_sparse "$fresh" "$t"; then
		for kv in "${B4CFG[@]}"; do git -C "$fresh" config "${kv%%=*}" "${kv#*=}"; done
		mkdir -p "$T/am"
		if (cd "$fresh" && run b4 am -o "$T/am" "$cover_id") && mbx=$(ls "$T/am"/*.mbx 2>/dev/null | head -1) && [ -n "$mbx" ] \
			&& run git -C "$fresh" "${ident[@]}" am "$mbx"; then
			got=$(git -C "$fresh" rev-parse 'HEAD^{tree}')
			want=$(git -C "$wt" rev-parse "refs/heads/$t^{tree}")
			napplied=$(git -C "$fresh" rev-list --count "$tag..HEAD")
			[ "$got" = "$want" ] && ok "b4 am <cover> from the list + git am on a fresh clone: $napplied patches, tree $got = branch $t" \
				|| notok "tree after b4 am + git am is $got, branch $t has $want"
		else
			notok "b4 am $cover_id + git am in a fresh clone"; tail -10 "$LOG" | diag
		fi
	else
		notok "fresh clone of the base"
	fi
}

# a reviewer's Reviewed-by reply to patch 1, written to $T/review.eml
write_review() {
	p1=$(ls "$R"/out/mail/*.eml | while read -r f; do
		grep -qE '^Subject: \[(RFC )?PATCH[^]]* 0*1/[0-9]+\]' "$f" && echo "$f"; done | head -1)
	[ -n "$p1" ] || p1=$(ls "$R"/out/mail/*.eml | head -1)
	p1_id=$(sed -n '/^$/q; s/^[Mm]essage-[Ii][Dd]: *\(<.*>\).*/\1/p' "$p1" | head -1)
	p1_subj=$(sed -n '/^$/q; /^Subject:/{N; s/\n / /; s/^Subject: //p}' "$p1" | head -1)
	p1_subj=${p1_subj%%$'\n'*}
	rev_line="Reviewed-by: Rita Reviewer <rita.reviewer@example.org>"
	{
		echo "From: Rita Reviewer <rita.reviewer@example.org>"
		echo "To: $MM_SENDER_NAME <$MM_SENDER_EMAIL>"
		echo "Cc: mm-medley-list@localhost"
		echo "Subject: Re: $p1_subj"
		echo "Date: $(date -R)"
		echo "Message-Id: <roundtrip-review-$$-$(date +%s)@example.org>"
		echo "In-Reply-To: $p1_id"
		echo "References: <$cover_id> $p1_id"
		echo
		echo "On $(date -R), $MM_SENDER_NAME wrote:"
		sed '1,/^$/d' "$p1" | sed -n '1,6p' | sed 's/^/> /'
		echo
		echo "Looks right to me."
		echo
		echo "$rev_line"
	} >"$T/review.eml"
}

# b4 trailers -u (by change-id, else by the cover's message-id), then: in
# which patches the Reviewed-by landed
apply_trailers() {
	before=$(git -C "$wt" rev-parse HEAD)
	(cd "$wt" && run b4 trailers -u)
	if [ "$(git -C "$wt" rev-parse HEAD)" = "$before" ]; then
		echo "# b4 trailers -u (change-id search) found nothing; retrying with -F <cover msgid>" >>"$LOG"
		(cd "$wt" && run b4 trailers -u -F "$cover_id")
	fi
	start=$(git -C "$wt" log --format=%H -F --grep='--- b4-submit-tracking ---' -1)
	mapfile -t commits < <(git -C "$wt" rev-list --reverse "$start..HEAD")
	hits=()
	for i in "${!commits[@]}"; do
		git -C "$wt" log -1 --format=%B "${commits[$i]}" | grep -qxF "$rev_line" && hits+=("$((i + 1))")
	done
}

# 4. a Reviewed-by reply on patch 1, picked up by b4 trailers -u
review_to_trailers() {
	write_review
	if bash "$R/scripts/sendmail-local" --sink "$T/replies" -i -f rita.reviewer@example.org "$MM_SENDER_EMAIL" <"$T/review.eml" 2>>"$LOG"; then
		apply_trailers
		[ "${hits[*]}" = 1 ] && ok "b4 trailers -u: the Reviewed-by reply landed in patch 1 of ${#commits[@]} only" \
			|| notok "b4 trailers -u: Reviewed-by found in patch(es) '${hits[*]}', expected 1"
	else
		notok "send the Reviewed-by reply through sendmail-local"
	fi
}

# 5. the sent tag comes back from cover-letters/<topic>.sent
sent_tag_restored() {
	git -C "$wt" tag -d "sent/$t-v$rev" >>"$LOG" 2>&1
	if run bash "$R/scripts/sent-tags.sh" restore "$t" && git -C "$wt" rev-parse -q --verify "refs/tags/sent/$t-v$rev" >/dev/null \
		&& [ "$(git -C "$wt" rev-parse "sent/$t-v$rev^{tree}")" = "$(git -C "$fresh" rev-parse 'HEAD^{tree}')" ]; then
		ok "sent/$t-v$rev restored from cover-letters/$t.sent/ (same tree as sent)"
	else
		notok "restore sent/$t-v$rev from cover-letters/$t.sent/"
	fi
}

# the next revision's change: a line in the last patch's first C file (a
# changelog paragraph when it has none), exported
change_last_patch() {
	last=$(git -C "$wt" diff --name-only HEAD~1 HEAD | grep -E '\.(c|h)$' | head -1)
	if [ -n "$last" ]; then
		printf '/* roundtrip: a v%s change */\n' "$nrev" >>"$wt/$last"
		git -C "$wt" "${ident[@]}" commit -q -a --amend --no-edit
	else
		git -C "$wt" "${ident[@]}" commit -q --amend -m "$(git -C "$wt" log -1 --format=%B)" \
			-m "Roundtrip: the v$nrev changelog says this paragraph is new."
	fi
	run bash "$R/scripts/export.sh" "$t"
}

# "Changes in v<N>" and the link to the previous revision, in the cover
# letter file above its tracking block
add_changes_section() {
	/usr/bin/python3 - "$R/cover-letters/$t" "$nrev" "$rev" "$URL/$cover_id" <<-'EOF'
	import sys
	path, nrev, rev, link = sys.argv[1:]
	s = open(path).read()
	i = s.find('--- b4-submit-tracking ---')
	head, block = s[:i].rstrip('\n'), s[i:]
	head += f'\n---\nChanges in v{nrev}:\n- roundtrip: changed the last patch\n- Link to v{rev}: {link}\n\n'
	open(path, 'w').write(head + block)
	EOF
}

# the mails of v<N> (prefix, changes section) and the range-diff against
# the revision sent
check_next_revision() {
	d=$R/out/series/$t/v$nrev
	c0=$(ls "$d"/*.eml | head -1)
	if grep -qE "^Subject: \\[(RFC )?PATCH.* v${nrev}[] ]" "$c0" && grep -q "^Changes in v$nrev:" "$c0"; then
		ok "v$nrev written: $(ls "$d"/*.eml | wc -l) mails, cover has 'Changes in v$nrev'"
	else
		notok "v$nrev cover lacks the v$nrev prefix or 'Changes in v$nrev'"; grep -m3 -E '^Subject|^Changes' "$c0" | diag
	fi
	(cd "$wt" && b4 --offline-mode prep --compare-to "v$rev") >"$T/range-diff.txt" 2>>"$LOG"
	cmp -s "$T/range-diff.txt" "$d/range-diff-v$rev.txt" && ok "series.sh wrote the same range-diff to out/series/$t/v$nrev/range-diff-v$rev.txt" \
		|| notok "out/series/$t/v$nrev/range-diff-v$rev.txt missing or different"
	if grep -qE '^ *[0-9]+: +[0-9a-f]+ ! +[0-9]+: +[0-9a-f]+ ' "$T/range-diff.txt" && grep -q 'roundtrip' "$T/range-diff.txt"; then
		ok "b4 prep --compare-to v$rev: range-diff shows the changed patch ($(grep -cE '^ *[0-9]+: ' "$T/range-diff.txt") lines)"
	else
		notok "b4 prep --compare-to v$rev: no range-diff of the change"; head -20 "$T/range-diff.txt" | diag
	fi
}

# 6. a new revision: change the last patch, export, series.sh again
next_revision() {
	nrev=$((rev + 1))
	if ! (cd "$wt" && run bash "$R/scripts/export.sh" "$t"); then
		notok "export $t after trailers -u"; return
	fi
	change_last_patch
	add_changes_section
	if run bash "$R/scripts/series.sh" "$t" --force --skip-check-series; then
		check_next_revision
	else
		notok "series.sh $t for v$nrev"; tail -15 "$LOG" | diag
	fi
}

# the list stops with the test
list_stopped() {
	pid=$(cat "$listdir/httpd.pid" 2>/dev/null)
	bash "$R/scripts/list.sh" stop "$listdir" >>"$LOG" 2>&1
	if [ -n "$pid" ] && ! kill -0 "$pid" 2>/dev/null; then ok "local list stopped (pid $pid)"; else notok "local list still running (pid $pid)"; fi
}

# The steps, in order; a step that leaves nothing to test after it ends the
# run with finish.
check_topic_ready
make_sandbox
t0=$(date +%s)
start_list
set_b4_and_sender
send_series
series_check_verdicts
all_archived
am_on_fresh_clone
review_to_trailers
sent_tag_restored
next_revision
list_stopped
finish
