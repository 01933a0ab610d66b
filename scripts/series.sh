#!/usr/bin/env bash
# make series TOPIC=t: write the topic as a mailing-list series with b4 0.12.
#
#   series.sh TOPIC [--force] [--send[=sink|smtp|reflect]] [--no-import] [--skip-check-series]
#
# 1. import the topic (scripts/import.sh: base + branches/t; the b4 cover
#    commit is recreated from the tracking block of cover-letters/t and the
#    sent/t-vN tags from cover-letters/t.sent/), or enroll it the first time
#    (b4 prep --enroll <recorded base tag>);
# 2. install cover-letters/t as the cover letter (subject, body; the
#    [PREFIXES] of line 1 or the tracking data give b4's prefixes, vN in the
#    subject forces the revision), b4 prep --auto-to-cc;
# 3. scripts/check-series.sh t (refuse unless --force), then b4 send -o into
#    out/series/t/v<N>/ (cover 0/N + N patches, .eml; from v2 on also
#    range-diff-v<N-1>.txt, b4 prep --compare-to) and the series-* checks
#    of checks/ on those files (refuse unless --force);
# 4. write the tracking block back at the end of cover-letters/t.
# --skip-check-series (roundtrip.sh) does not run check-series (builds).
# The sender is the person running it: git config user.name/user.email
# ($MM_SENDER_NAME/$MM_SENDER_EMAIL override); every patch that lacks the
# sender's Signed-off-by gets it (in the topic's worktree, before b4).
# RFC topics (checks/send.conf) get [RFC PATCH ...]; the Cc's that file
# names are added to every mail.
# --send (= --send=sink, make series SEND=1) also sends it through
# scripts/sendmail-local (local sink out/mail/ and, if one runs, the local
# list of scripts/list.sh): b4 tags sent/t-vN and moves to vN+1; the tag is
# saved in cover-letters/t.sent/.
# --send=smtp (make series SEND=smtp) sends it for real through the user's
# own sendemail.* settings (global git config; the fork sets none), and
# --send=reflect sends it only to the sender, through the same server
# (b4 send --reflect: no tag, no new revision). Both refuse a missing or
# placeholder identity or a missing sendemail.smtpserver, and make the
# credit checks also fail placeholder sign-offs ($MM_SEND_MODE).
. "$(dirname "$0")/lib.sh"
. "$REPO/scripts/ktap.sh"
PY="/usr/bin/python3 $REPO/scripts/b4-cover.py"
MARK='--- b4-submit-tracking ---'

# Options and the topic.
parse_args() {
	force='' send='' noimport='' nocheck=''
	args=()
	for a in "$@"; do
		case $a in
		--force) force=1 ;;
		--send|--send=1|--send=yes|--send=sink|--send=local) send=sink ;;
		--send=smtp|--send=reflect) send=${a#--send=} ;;
		--send=*) die "unknown send mode '${a#--send=}' (sink: the local sink, the default; smtp: your sendemail.* server; reflect: to yourself through it)" ;;
		--no-import) noimport=1 ;;
		--skip-check-series) nocheck=1 ;;
		-h|--help) sed -n '2,/^\. /p' "$0" | sed '$d; s/^# \{0,1\}//'; exit 0 ;;
		-*) die "unknown option $a (series.sh TOPIC [--force] [--send] [--no-import])" ;;
		*) args+=("$a") ;;
		esac
	done
	[ ${#args[@]} -eq 1 ] || die "usage: series.sh TOPIC [--force] [--send]; topics are: $TOPICS"
	t=${args[0]}
	check_topic "$t"
	case $t in base|medley) die "series takes a topic, one of: $TOPICS" ;; esac
}

# The sender: the person running this (git config outside the base tree);
# a real send refuses a placeholder identity or no mail server of its own.
set_sender() {
	SENDER_NAME=${MM_SENDER_NAME:-$(git -C "$REPO" config --get user.name 2>/dev/null || true)}
	SENDER_EMAIL=${MM_SENDER_EMAIL:-$(git -C "$REPO" config --get user.email 2>/dev/null || true)}
	placeholder() { /usr/bin/python3 "$REPO/checks/credit.py" placeholder "$1"; }
	case $send in
	smtp|reflect)
		how="set your own: git config --global user.name 'Your Name'; git config --global user.email you@your.domain"
		[ -n "$SENDER_NAME" ] && [ -n "$SENDER_EMAIL" ] \
			|| die "a real send (SEND=$send) signs off and sends as you, but git config user.name/user.email is not set; $how"
		placeholder "$SENDER_EMAIL" \
			&& die "a real send (SEND=$send) refuses the placeholder identity '$SENDER_NAME <$SENDER_EMAIL>' (example.*, *.example, *.invalid, noreply): the DCO needs a person's address; $how"
		usmtp=$(git config --global --get sendemail.smtpserver 2>/dev/null || git config --system --get sendemail.smtpserver 2>/dev/null || true)
		[ -n "$usmtp" ] || die "a real send (SEND=$send) goes through your own mail server, but sendemail.smtpserver is not set in your git config (git config --global sendemail.smtpserver smtp.your.domain, plus smtpserverport, smtpencryption, smtpuser as your provider needs; see 'git help send-email')"
		export MM_SEND_MODE=$send
		;;
	*)
		unset MM_SEND_MODE
		if [ -z "$SENDER_NAME" ] || [ -z "$SENDER_EMAIL" ]; then
			say "series: warning: git config user.name/user.email not set; writing the series as 'mm-medley developers <mm-medley@lists.example.org>' without a sender's sign-off"
			SENDER_NAME="mm-medley developers" SENDER_EMAIL=mm-medley@lists.example.org nosob=1
		fi
		;;
	esac
	SENDER="$SENDER_NAME <$SENDER_EMAIL>"
}

# b4 (and the git it runs) as the sender, through the local sink unless a
# key below says otherwise, extra config given as KEY=VALUE before "--":
# b4run [k=v...] -- b4-args...  (b4 through b4-cover.py: [RFC PATCH ...])
b4run() {
	local kv=() i=5
	while [ "$1" != -- ]; do kv+=("$1"); shift; done
	shift
	local env=(GIT_CONFIG_COUNT=$((5 + ${#kv[@]}))
		GIT_CONFIG_KEY_0=user.name "GIT_CONFIG_VALUE_0=$SENDER_NAME"
		GIT_CONFIG_KEY_1=user.email "GIT_CONFIG_VALUE_1=$SENDER_EMAIL"
		GIT_CONFIG_KEY_2=sendemail.mm-sink.smtpserver "GIT_CONFIG_VALUE_2=$REPO/scripts/sendmail-local"
		GIT_CONFIG_KEY_3=sendemail.mm-sink.from "GIT_CONFIG_VALUE_3=$SENDER"
		GIT_CONFIG_KEY_4=b4.sendemail-identity GIT_CONFIG_VALUE_4=mm-sink)
	for x in "${kv[@]+"${kv[@]}"}"; do
		env+=("GIT_CONFIG_KEY_$i=${x%%=*}" "GIT_CONFIG_VALUE_$i=${x#*=}")
		i=$((i + 1))
	done
	env "${env[@]}" $PY b4 "$@"
}
B4=(b4run -- --offline-mode)

# Cc's of checks/send.conf, as b4 send options; the topic's patches and
# cover letter file, which must exist.
read_topic_inputs() {
	ccopts=()
	for a in $(awk -v t="$t" '!/^#/ && $1 == t { for (i = 2; i <= NF; i++) if ($i ~ /^cc=/) print substr($i, 4) }' "$REPO/checks/send.conf" 2>/dev/null); do
		ccopts+=(--cc "$a")
	done
	cl=$REPO/cover-letters/$t
	shopt -s nullglob
	patches=("$REPO/branches/$t"/*.patch)
	[ ${#patches[@]} -gt 0 ] || die "$t has no patches in branches/$t/ yet"
	[ -s "$cl" ] || die "no cover letter: write cover-letters/$t (line 1 subject, blank line, body)"
	[ "$(sed -n 2p "$cl")" = "" ] || die "cover-letters/$t: line 2 must be blank (line 1 subject, blank, body)"
}

# import.sh resets the worktree: never lose work that is not in branches/
# yet (skipped with --no-import or --force).
refuse_unexported_work() {
	if [ -z "$noimport" ] && [ -z "$force" ] && [ -e "$wt/.git" ]; then
		[ -z "$(git -C "$wt" status --porcelain --untracked-files=no)" ] \
			|| die "$wt has uncommitted changes; commit and 'make export TOPIC=$t' first (or --force)"
		if git -C "$wt" rev-parse -q --verify "refs/heads/$t" >/dev/null; then
			known=$(cat "${patches[@]}" | git patch-id --stable | cut -d' ' -f1 | sort -u)
			for c in $(git -C "$wt" rev-list --no-merges "$(base_tag)..refs/heads/$t"); do
				pid=$(git -C "$wt" show "$c" | git patch-id --stable | cut -d' ' -f1)
				[ -z "$pid" ] && continue   # empty commit (the b4 cover)
				grep -qx "$pid" <<<"$known" || die "branch $t in $wt has a commit not in branches/$t/ ($(git -C "$wt" log -1 --format='%h %s' "$c")); 'make export TOPIC=$t' first (or --force)"
			done
		fi
	fi
}

# A b4 send done by hand in the worktree (b4 tagged sent/t-vN and moved the
# cover to vN+1): keep that in the repository before import.sh recreates
# the cover commit from cover-letters/t.
keep_send_by_hand() {
	if [ -z "$noimport" ] && [ -e "$wt/.git" ] && git -C "$wt" rev-parse -q --verify "refs/heads/$t" >/dev/null; then
		wtc=$(git -C "$wt" log --format=%H -F --grep="$MARK" --max-count=1 "$(base_tag)..refs/heads/$t")
		if [ -n "$wtc" ]; then
			wtrack=$(git -C "$wt" log -1 --format=%B "$wtc" | $PY commit-tracking)
			wrev=$(printf '%s' "$wtrack" | $PY get revision)
			frev=$($PY tracking "$cl" | $PY get revision)
			if [ -n "$wrev" ] && [ "$wrev" -gt "${frev:-0}" ] && [ -n "$(printf '%s' "$wtrack" | $PY get history)" ]; then
				say "series: $t: the worktree is at v$wrev after a send by hand; saving its tracking data and sent tags"
				bash "$REPO/scripts/sent-tags.sh" save "$t"
				printf '%s' "$wtrack" | $PY set-block "$cl"
			fi
		fi
	fi
}

# 1. import (or reuse the worktree as it is with --no-import)
import_topic() {
	if [ -z "$noimport" ]; then
		bash "$REPO/scripts/import.sh" "$t"
	fi
	wt=$WORK/$t
	[ -e "$wt/.git" ] || die "no worktree $wt: run 'make import TOPIC=$t'"
	cd "$wt" || exit 1
	[ "$(git symbolic-ref -q --short HEAD)" = "$t" ] || die "$wt is not on branch $t"
	tag=$(base_tag)
	# sent/t-vN tags of earlier sends (import.sh may have done it already)
	bash "$REPO/scripts/sent-tags.sh" restore "$t"
	# Local transport, no signing, project identity: for b4 run here and by
	# hand (repository config, shared by every topic worktree of this base).
	bash "$REPO/scripts/b4-config.sh"
}

cover_commit() { git log --format=%H -F --grep="$MARK" --max-count=1 "$tag..HEAD"; }
tracking() { git log -1 --format=%B "$(cover_commit)" | $PY commit-tracking; }

# 2. enroll on the recorded base when the file has no tracking block yet
enroll() {
	if [ -z "$(cover_commit)" ]; then
		say "series: $t: enrolling with b4 prep --enroll $tag"
		"${B4[@]}" prep -e "$tag" >"$CACHE/series-$t.log" 2>&1 || { cat "$CACHE/series-$t.log" >&2; die "b4 prep --enroll failed"; }
	fi
	[ -n "$(cover_commit)" ] || die "no b4 cover commit after enrolling $t"
	[ "$(git rev-parse "$(cover_commit)~1")" = "$(git rev-parse "$tag^{commit}")" ] \
		|| die "the b4 cover commit of $t is not on the recorded base $tag"
}

# The sender signs off: every patch without "Signed-off-by: <sender>" gets
# it at the end of its trailers. The commits are rewritten with their own
# author, committer and dates (the tree, and so the patch-id, is the same).
signoff_all() {
	local sob="Signed-off-by: $SENDER" parent c new added=0 an ae drop real=0 took=0
	# A sender with a real address takes over the patches whose author is
	# a placeholder (the fork's group alias is nobody the DCO knows): the
	# sender becomes their author and the placeholder's sign-off goes; the
	# original authors stay credited by their Originally-by: trailers.
	/usr/bin/python3 "$REPO/checks/credit.py" placeholder "$SENDER_EMAIL" || real=1
	parent=$(cover_commit)
	for c in $(git rev-list --reverse "$parent..HEAD"); do
		an=$(git log -1 --format=%an "$c") ae=$(git log -1 --format=%ae "$c") drop=
		if [ $real = 1 ] && /usr/bin/python3 "$REPO/checks/credit.py" placeholder "$ae"; then
			drop="Signed-off-by: $an <$ae>" an=$SENDER_NAME ae=$SENDER_EMAIL took=$((took + 1))
		elif git log -1 --format=%B "$c" | grep -qxF "$sob" && [ "$(git rev-parse "$c^")" = "$parent" ]; then
			parent=$c; continue
		fi
		new=$(git log -1 --format=%B "$c" |
			{ if [ -n "$drop" ]; then grep -v -x -F "$drop" || true; else cat; fi; } |
			git interpret-trailers --if-exists addIfDifferent --trailer "$sob" |
			GIT_AUTHOR_NAME=$an GIT_AUTHOR_EMAIL=$ae \
			GIT_AUTHOR_DATE=$(git log -1 --format=%ad --date=raw "$c") \
			GIT_COMMITTER_NAME=$(git log -1 --format=%cn "$c") GIT_COMMITTER_EMAIL=$(git log -1 --format=%ce "$c") \
			GIT_COMMITTER_DATE=$(git log -1 --format=%cd --date=raw "$c") \
			git commit-tree "$c^{tree}" -p "$parent") || die "could not add the sign-off to $(git log -1 --format='%h %s' "$c")"
		git log -1 --format=%B "$c" | grep -qxF "$sob" || added=$((added + 1))
		parent=$new
	done
	if [ "$parent" != "$(git rev-parse HEAD)" ]; then
		git update-ref -m "series.sh: Signed-off-by: $SENDER" "refs/heads/$t" "$parent" "$(git rev-parse HEAD)" || die "could not update branch $t"
		git reset -q --hard "$parent"
	fi
	say "series: $t: signed off by $SENDER ($added patches had no such sign-off$([ $took = 0 ] || echo "; $took taken over from a placeholder author"))"
}

# prefixes: [..] of line 1 win, else the tracking data, else "6.12"; an RFC
# topic (checks/send.conf) is RFC whatever the cover letter says; vN in the
# subject forces the revision
set_prefixes_and_revision() {
	if [ "$(sed -n 1p "$cl" | cut -c1)" = "[" ]; then
		prefixes=$($PY prefixes "$cl")
	else
		prefixes=$($PY tracking "$cl" | $PY get prefixes)
		[ -n "$($PY tracking "$cl")" ] || prefixes=6.12
	fi
	if awk -v t="$t" '!/^#/ && $1 == t { for (i = 2; i <= NF; i++) if (tolower($i) == "rfc") f = 1 } END { exit !f }' "$REPO/checks/send.conf" 2>/dev/null &&
		! grep -qw RFC <<<"$prefixes"; then
		prefixes="RFC${prefixes:+ $prefixes}"
	fi
	if [ "$(tracking | $PY get prefixes)" != "$prefixes" ]; then
		# shellcheck disable=SC2086
		"${B4[@]}" prep --set-prefixes ${prefixes:-""} >>"$CACHE/series-$t.log" 2>&1 || die "b4 prep --set-prefixes failed"
	fi
	srev=$($PY subject-revision "$cl")
	if [ -n "$srev" ] && [ "$srev" != "$(tracking | $PY get revision)" ]; then
		"${B4[@]}" prep --force-revision "$srev" >>"$CACHE/series-$t.log" 2>&1 || die "b4 prep --force-revision failed"
	fi
	rev=$(tracking | $PY get revision)
}

# cover text: subject without prefixes, body; b4 adds shortlog, diffstat,
# base-commit and change-id when it writes the mails.
install_cover() {
	text=$(mktemp); trap 'rm -f "$text"' EXIT
	$PY text "$cl" >"$text"
	if [ "$rev" -gt 1 ] && ! grep -qi "^Changes in v$rev" "$text"; then
		prev=$((rev - 1))
		link=$(tracking | $PY get history | /usr/bin/python3 -c 'import json,sys
d=sys.stdin.read().strip(); h=json.loads(d) if d else {}
print((h.get("v'$prev'") or ["(link to v'$prev')"])[-1])')
		msg="cover-letters/$t is for v$rev but has no 'Changes in v$rev:' section; add one at the end of the body, e.g.:
---
Changes in v$rev:
- <what changed, patch by patch>
- Link to v$prev: https://lore.kernel.org/r/$link"
		[ -n "$force" ] || die "$msg"
		say "series: warning (--force): $msg"
	fi
	cp "$text" "$text.new"
	b4run core.editor="cp $text.new" -- --offline-mode prep --edit-cover >>"$CACHE/series-$t.log" 2>&1 || die "b4 prep --edit-cover failed"
	rm -f "$text.new"
	"${B4[@]}" prep --auto-to-cc >>"$CACHE/series-$t.log" 2>&1 || { tail -20 "$CACHE/series-$t.log" >&2; die "b4 prep --auto-to-cc failed"; }
}

# 3. checks, then the series as mails
run_check_series() {
	if [ -n "$nocheck" ]; then
		say "series: check-series skipped (--skip-check-series); the series-* checks still run"
		return
	fi
	if ! bash "$REPO/scripts/check-series.sh" "$t"; then
		[ -n "$force" ] || die "check-series failed for $t: not writing the series (use --force to override)"
		say "series: check-series failed for $t; going on because of --force"
	fi
	cd "$wt" || exit 1
}

write_mails() {
	dest=$OUT/series/$t/v$rev
	new=$dest.new
	rm -rf "$new" "$dest.rejected"
	mkdir -p "$new"
	"${B4[@]}" send --no-sign "${ccopts[@]+"${ccopts[@]}"}" -o "$new" >>"$CACHE/series-$t.log" 2>&1 || { tail -20 "$CACHE/series-$t.log" >&2; die "b4 send -o failed"; }
	n=$(ls "$new"/*.eml 2>/dev/null | wc -l)
	[ "$n" -gt 0 ] || die "b4 send -o wrote nothing into $new"
	# from v2 on: the range-diff against the previous revision as sent
	if [ "$rev" -gt 1 ] && git rev-parse -q --verify "refs/tags/sent/$t-v$((rev - 1))" >/dev/null; then
		"${B4[@]}" prep --compare-to "v$((rev - 1))" >"$new/range-diff-v$((rev - 1)).txt" 2>>"$CACHE/series-$t.log" \
			|| say "series: warning: b4 prep --compare-to v$((rev - 1)) failed"
	fi
}

# Each check's result line (ktap_take: its diagnostics, its line numbered
# here) goes to checks.ktap beside the mails: what was checked on exactly
# these mails; the round trip reads it. Only a pass lets the series
# through: a check that could not run (skip) did not pass either.
run_series_checks() {
	local c name rc st out body
	failed=
	out=$(mktemp) body=$(mktemp)
	for c in "$REPO"/checks/series-*; do
		[ -x "$c" ] || continue
		name=$(basename "$c")
		rc=0; MM_SERIES_DIR=$new "$c" "$t" > "$out" || rc=$?
		st=0; ktap_take "$name" "$rc" "$out" > "$out.took" || st=$?
		cat "$out.took"; cat "$out.took" >> "$body"
		[ "$st" = 0 ] || failed="$failed $name"
	done
	{ echo "KTAP version 1"; ktap_plan; cat "$body"; } > "$new/checks.ktap"
	rm -f "$out" "$out.took" "$body"
	if [ -n "$failed" ] && [ -z "$force" ]; then
		mv "$new" "$dest.rejected"
		die "series checks failed for $t:$failed (mails kept in $dest.rejected; logs in $OUT/checks/$t/; --force to override)"
	fi
	rm -rf "$dest"
	mv "$new" "$dest"
	[ -z "$failed" ] || say "series: checks failed:$failed (written anyway because of --force)"
}

# 4. tracking block back into the cover letter file (only that block)
save_tracking() {
	tracking | $PY set-block "$cl"
}

# --send: through the sink and list, the user's server, or to the sender
# only (reflect); a real send tags sent/t-vN and saves the tag.
send_series() {
	if [ "$send" = reflect ]; then
		say "series: $t: sending v$rev to $SENDER_EMAIL only (b4 send --reflect) through $usmtp"
		printf '\n' | b4run b4.sendemail-identity= -- send --no-sign --reflect "${ccopts[@]+"${ccopts[@]}"}" \
			>>"$CACHE/series-$t.log" 2>&1 || { tail -20 "$CACHE/series-$t.log" >&2; die "b4 send --reflect failed"; }
		say "series: $t: v$rev reflected to $SENDER_EMAIL (no tag, revision unchanged)"
	elif [ -n "$send" ]; then
		listdir=${MM_LIST_DIR:-}
		if [ -z "$listdir" ] && [ -f "$CACHE/list/httpd.pid" ]; then listdir=$CACHE/list; fi
		if [ "$send" = smtp ]; then
			say "series: $t: sending v$rev through your sendemail.smtpserver $usmtp"
			kv=(b4.sendemail-identity=)
		else
			say "series: $t: sending v$rev through sendmail-local (sink $OUT/mail${listdir:+, list $listdir})"
			kv=()
		fi
		printf '\n' | MM_MAIL_SINK=$OUT/mail MM_LIST_DIR=$listdir b4run "${kv[@]+"${kv[@]}"}" -- send --no-sign "${ccopts[@]+"${ccopts[@]}"}" \
			>>"$CACHE/series-$t.log" 2>&1 || { tail -20 "$CACHE/series-$t.log" >&2; die "b4 send failed"; }
		git rev-parse -q --verify "refs/tags/sent/$t-v$rev" >/dev/null || die "b4 send did not tag sent/$t-v$rev"
		bash "$REPO/scripts/sent-tags.sh" save "$t"
		tracking | $PY set-block "$cl"
		say "series: $t: sent v$rev (tag sent/$t-v$rev saved in cover-letters/$t.sent/); now at v$(tracking | $PY get revision)"
	fi
}

# The steps, in order (each dies on what it refuses).
parse_args "$@"
set_sender
read_topic_inputs
t0=$(date +%s)
wt=$WORK/$t
refuse_unexported_work
keep_send_by_hand
import_topic
enroll
[ -n "${nosob:-}" ] || signoff_all
set_prefixes_and_revision
install_cover
run_check_series
write_mails
run_series_checks
save_tracking
send_series
say "series: $t v$rev: $n mails in ${dest#"$REPO"/} ($(( $(date +%s) - t0 )) s)"
