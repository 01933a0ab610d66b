# shellcheck shell=bash
# Kernel builds on other machines: sourced by build.sh (after lib.sh).
#   distcc_setup: when DISTCC_HOSTS names build hosts (distcc's syntax:
#   "host[:port][/slots][,opts] @sshhost[/slots] localhost/N --randomize"),
#   ask each, with a short timeout (DISTCC_PROBE_SECS, default 2), whether
#   it answers: a TCP connection to distccd's port (3632 by default), or
#   for @host an ssh login. The hosts that answer become DISTCC_HOSTS (so
#   no compile waits on one that is down) and ccache hands its misses to
#   distcc (CCACHE_PREFIX=distcc); DISTCC_JOBS is then the sum of their
#   slots (distcc's default: 4 a remote host, 2 for localhost). When none
#   answers, DISTCC_HOSTS is unset and the build stays local.
#   Prints what it decided on stderr.

# _distcc_slots HOST-SPEC: the slots a host spec allows
_distcc_slots() {
	local h=${1%%,*} d=4
	case $h in localhost*) d=2 ;; esac
	case $h in */*) echo "${h##*/}" ;; *) echo $d ;; esac
}

# _distcc_answers HOST-SPEC: whether it takes compiles now
_distcc_answers() {
	local h=${1%%,*} secs=${DISTCC_PROBE_SECS:-2} port=3632
	h=${h%%/*}
	case $h in
	localhost) return 0 ;; # runs the compiler here, no daemon
	@*) timeout "$secs" ssh -o BatchMode=yes -o ConnectTimeout="$secs" "${h#@}" true >/dev/null 2>&1; return ;;
	esac
	h=${h#*@}
	case $h in *:*) port=${h##*:}; h=${h%%:*} ;; esac
	timeout "$secs" bash -c 'exec 3<>"/dev/tcp/$0/$1"' "$h" "$port" 2>/dev/null
}

distcc_setup() {
	local spec up=() opts=() slots=0
	[ -n "${DISTCC_HOSTS:-}" ] || return 0
	for spec in $DISTCC_HOSTS; do
		case $spec in
		--*) opts+=("$spec"); continue ;;
		esac
		if _distcc_answers "$spec"; then
			up+=("$spec"); slots=$(( slots + $(_distcc_slots "$spec") ))
		else
			say "build: distcc host $spec does not answer; left out"
		fi
	done
	if [ ${#up[@]} = 0 ]; then
		say "build: none of the distcc hosts ($DISTCC_HOSTS) answers; building locally"
		unset DISTCC_HOSTS DISTCC_JOBS
		return 0
	fi
	command -v distcc >/dev/null || { say "build: distcc is not installed (make deps); building locally"; unset DISTCC_HOSTS DISTCC_JOBS; return 0; }
	export DISTCC_HOSTS="${opts[*]}${opts:+ }${up[*]}" CCACHE_PREFIX=distcc DISTCC_JOBS=$slots
	say "build: through distcc on ${up[*]} ($slots slots)"
}
