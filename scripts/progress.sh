# shellcheck shell=bash
# Progress with an estimate of the time left, from earlier recorded runs.
# Sourced (after lib.sh). Records are the files make check writes in
# $CACHE/check-runs/*.tsv (and bench.sh in $CACHE/bench-runs/*.tsv), one
# line per step: "step<TAB>passed<TAB>failed<TAB>seconds<TAB>...", "#"
# lines are comments; the first says "..., warm start" or "cold start".
#
#   eta_estimate STEP [DIR [STATE]]  seconds STEP took: the median of its
#        last 5 passing records (DIR: check-runs), of runs that started
#        STATE (warm|cold) when there are such; nothing when none.
#   eta_total [DIR [STATE]]         the same for a whole make check that
#        passed (its "# total" line)
#   eta_fmt SECS                     "45s", "3m05s", "1h02m"
#   progress_line ELAPSED EST [DONE TOTAL [UNIT]]
#        "  123s  45/1204 objects  ~2m10s left": from the counts when both
#        are known (the rate so far), else from EST; "over the estimate"
#        once EST is passed; nothing about time left without either.
#   progress_watch PID LABEL EST [COUNT_FN TOTAL UNIT] [DETAIL_FN]
#        until PID ends: on a terminal the line above, rewritten every 2 s
#        (\r); otherwise (CI logs, files) one line a minute
#        (PROGRESS_EVERY seconds). COUNT_FN prints DONE, DETAIL_FN a
#        short text to append.

# the files of DIR (sorted by name: by time), those of runs that started
# STATE when there are such
_eta_files() {
	local dir=$1 state=$2 files f same=
	files=$(ls "$dir"/*.tsv 2>/dev/null | sort) || true
	if [ -n "$state" ]; then
		# (not head | grep -q: under pipefail, head's SIGPIPE would read as no)
		for f in $files; do
			case $(sed -n 1p "$f") in *", $state start"*) same="$same $f" ;; esac
		done
		[ -n "$same" ] && files=$same
	fi
	echo $files
}
# the median of the last 5 numbers on stdin, nothing when none
_eta_median() {
	awk '{ v[n++] = $1 }
		END {
			if (!n) exit
			k = n > 5 ? 5 : n
			for (i = 0; i < k; i++) w[i] = v[n - k + i]
			for (i = 1; i < k; i++) for (j = i; j > 0 && w[j - 1] > w[j]; j--) { t = w[j]; w[j] = w[j - 1]; w[j - 1] = t }
			printf "%d\n", k % 2 ? w[int(k / 2)] : (w[k / 2 - 1] + w[k / 2]) / 2
		}'
}

eta_estimate() {
	local files
	files=$(_eta_files "${2:-$CACHE/check-runs}" "${3:-}")
	[ -n "$files" ] || return 0
	# shellcheck disable=SC2086
	awk -F'\t' -v s="$1" '$1 == s && $3 == "0" && $4 ~ /^[0-9]+$/ { print $4 }' $files | _eta_median
}

# eta_total [DIR [STATE]]: a whole make check's seconds (its "# total Ns:
# N passed, 0 failed" line), as eta_estimate does for a step.
eta_total() {
	local files
	files=$(_eta_files "${1:-$CACHE/check-runs}" "${2:-}")
	[ -n "$files" ] || return 0
	# shellcheck disable=SC2086
	sed -n 's/^# total \([0-9]*\)s: .*, 0 failed.*/\1/p' $files | _eta_median
}

eta_fmt() {
	local s=$1
	if [ "$s" -lt 60 ]; then printf '%ds' "$s"
	elif [ "$s" -lt 3600 ]; then printf '%dm%02ds' $((s / 60)) $((s % 60))
	else printf '%dh%02dm' $((s / 3600)) $((s % 3600 / 60)); fi
}

progress_line() {
	local el=$1 est=${2:-} done=${3:-} total=${4:-} unit=${5:-} left='' line
	line=$(printf '  %5s' "$(eta_fmt "$el")")
	[ -n "$done" ] && line="$line  $done${total:+/$total}${unit:+ $unit}"
	if [ -n "$done" ] && [ -n "$total" ] && [ "$done" -gt 0 ] && [ "$total" -gt 0 ]; then
		if [ "$done" -ge "$total" ]; then left=0; else left=$(( el * (total - done) / done )); fi
	elif [ -n "$est" ]; then
		if [ "$el" -le "$est" ]; then left=$(( est - el ))
		else line="$line  $(eta_fmt $(( el - est ))) over the estimate ($(eta_fmt "$est"))"; fi
	fi
	[ -n "$left" ] && line="$line  ~$(eta_fmt "$left") left"
	printf '%s\n' "$line"
}

progress_watch() {
	local pid=$1 label=$2 est=${3:-} count=${4:-} total=${5:-} unit=${6:-} detail=${7:-}
	local start last=0 now line d tty=
	start=$(date +%s)
	[ -t 2 ] && [ -z "${CI:-}" ] && tty=1
	while kill -0 "$pid" 2>/dev/null; do
		now=$(date +%s)
		if [ -n "$tty" ] || [ $((now - last)) -ge "${PROGRESS_EVERY:-60}" ]; then
			d=
			[ -z "$count" ] || d=$($count 2>/dev/null || true)
			[ -z "$count" ] || [ -n "$d" ] || d=0
			line="$label$(progress_line $((now - start)) "$est" "$d" "${count:+$total}" "$unit")"
			# (a COUNT_FN or DETAIL_FN that fails must not end a set -e caller)
			[ -z "$detail" ] || line="$line  $( { $detail 2>/dev/null || true; } | cut -c1-50)"
			if [ -n "$tty" ]; then printf '\r%s\033[K' "$line" >&2
			elif [ $((now - start)) -gt 0 ]; then printf '%s\n' "$line" >&2; fi
			last=$now
		fi
		sleep "${PROGRESS_TICK:-2}"
	done
	[ -n "$tty" ] && printf '\n' >&2
	return 0
}
