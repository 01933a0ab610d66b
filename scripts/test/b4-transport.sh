#!/usr/bin/env bash
# Tests of scripts/sendmail-local and scripts/list.sh (TAP). ~10 s.
set -u
S=$(cd "$(dirname "$0")/.." && pwd)
T=$(mktemp -d)
. "$S/ktap.sh"
check() { local what=$1; shift; if "$@" >>"$T/log" 2>&1; then ok "$what"; else notok "$what"; fi; }
trap 'bash "$S/list.sh" stop "$T/list" >/dev/null 2>&1; rm -rf "$T"' EXIT

msg() {
	printf 'From: A <a@example.org>\nTo: b@example.org\nSubject: %s\nDate: %s\nMessage-Id: <%s>\n\nbody of %s\n' \
		"$2" "$(date -R)" "$1" "$1"
}
refused() { # expect exit 78 and the word "refused"
	local rc
	msg x@y test | "$S/sendmail-local" "$@" >"$T/out" 2>&1
	rc=$?
	[ $rc -eq 78 ] && grep -q refused "$T/out"
}

check "sendmail-local refuses an SMTP server option (-S smtp.example.org)" refused --sink "$T/s" -S smtp.example.org b@example.org
check "sendmail-local refuses a host:port sink" refused --sink smtp.example.org:587 b@example.org
check "sendmail-local refuses an smtp:// sink" refused --sink smtp://mail.example.org b@example.org
check "sendmail-local refuses a network host as recipient" refused --sink "$T/s" mail.kernel.org
check "sendmail-local refuses a network list endpoint" refused --sink "$T/s" --list 10.0.0.1 b@example.org
check "sendmail-local refuses MM_MAIL_SINK=host:25" env MM_MAIL_SINK=relay.example.org:25 bash -c "msg() { :; }; printf 'Subject: x\n\nx\n' | '$S/sendmail-local' b@example.org 2>&1 | grep -q refused; [ \${PIPESTATUS[1]} -eq 78 ]"
usage_rc() { msg x@y t | "$S/sendmail-local" --sink "$T/s" "$@" >/dev/null 2>&1; [ $? -eq 64 ]; }
check "sendmail-local: no recipient is a usage error (64)" usage_rc -i -f a@example.org
delivered() {
	msg one@example.org "one" | "$S/sendmail-local" --sink "$T/s" -i -f a@example.org b@example.org c@example.org &&
	ls "$T/s"/*.eml | grep -q 'one@example.org' && grep -q 'to=b@example.org,c@example.org msgid=<one@example.org>' "$T/s/log"
}
check "sendmail-local (b4's call: -i -f FROM RCPT...) writes the mail into the sink and logs it" delivered

# the list
if out=$(bash "$S/list.sh" start "$T/list" 2>>"$T/log"); then
	eval "$out"
	case $MM_LIST_URL in http://127.0.0.1:[0-9]*/all) ok "list.sh start: $MM_LIST_URL" ;; *) notok "list.sh start gave '$MM_LIST_URL'" ;; esac
	port=${MM_LIST_URL#http://127.0.0.1:}; port=${port%%/*}
	if command -v ss >/dev/null; then
		lst=$(ss -Hltn "sport = :$port" | awk '{print $4}')
		[ "$lst" = "127.0.0.1:$port" ] && ok "httpd listens on loopback only ($lst)" || notok "httpd listens on '$lst'"
	fi
	to_list() {
		msg two@example.org "two" | "$S/sendmail-local" --sink "$T/s" --list "$T/list" -i -f a@example.org b@example.org &&
		bash "$S/list.sh" has two@example.org "$T/list"
	}
	check "sendmail-local --list delivers into the archive, served over HTTP" to_list
	check "the archive does not serve a message never sent" bash -c "! bash '$S/list.sh' has nothere@example.org '$T/list'"
	pid=$(cat "$T/list/httpd.pid")
	bash "$S/list.sh" stop "$T/list" >>"$T/log" 2>&1
	# until the httpd is gone (list.sh stop sends SIGTERM, then SIGKILL
	# after 5 s; the exit itself may lag on a loaded machine): a bound of
	# 60 s against a hang, not a fixed 0.3 s
	for _i in $(seq 1 300); do kill -0 "$pid" 2>/dev/null || break; sleep 0.2; done
	kill -0 "$pid" 2>/dev/null && notok "list.sh stop left pid $pid running" || ok "list.sh stop ends the httpd it started"
else
	notok "list.sh start"; sed 's/^/# /' "$T/log" | tail -5
fi
ktap_exit
