#!/usr/bin/env bash
# Tests of the send path of scripts/series.sh (TAP), ~1 min: a sandbox
# (scripts/sandbox.sh) with the demo topic and a sandbox HOME whose
# git config is "the user's": identity and sendemail.* pointing at a
# loopback SMTP server (scripts/test/fixtures/smtp-sink.py).
#  - default (sink): the sender's Signed-off-by is added to every patch,
#    the mails go to the sink only; RFC prefix and Cc from checks/send.conf
#  - SEND=smtp refuses a missing or placeholder identity and a missing
#    sendemail.smtpserver, and placeholder sign-offs in the patches
#  - SEND=smtp goes through the user's server even when the base repository
#    carries the old sendemail.smtpserver/from of the fork: all mails at the
#    server, none in the sink; SEND=reflect sends only to the sender
set -u
S=$(cd "$(dirname "$0")/.." && pwd)
REPO=$(cd "$S/.." && pwd)
T=$(mktemp -d)
. "$S/ktap.sh"
srvpid=
cleanup() { [ -n "$srvpid" ] && kill "$srvpid" 2>/dev/null; rm -rf "$T"; }
trap cleanup EXIT

export SB_SRC=$REPO
. "$S/sandbox.sh"
sb_new "$T/sb" >/dev/null 2>&1 || { notok "sandbox"; ktap_exit; }
sb_demo demo
sb_worktree demo >/dev/null 2>&1 || { notok "sandbox worktree"; ktap_exit; }
R=$SB_REPO
wt=$MM_CACHE/work/demo
printf 'demo\trfc\tcc=linux-api@vger.kernel.org\n' >>"$R/checks/send.conf"
# the demo's author signs off with a real-looking address in the smtp runs
cp -a "$R/branches/demo" "$T/demo-placeholder"
mkdir -p "$T/home"
export HOME=$T/home
unset XDG_CONFIG_HOME GIT_CONFIG_GLOBAL MM_SENDER_NAME MM_SENDER_EMAIL MM_SEND_MODE
ME="Jane Sender" MAIL=jane@sender-test.net
git config --global user.name "$ME"
git config --global user.email "$MAIL"
series() { bash "$R/scripts/series.sh" demo --skip-check-series "$@" >"$T/o" 2>&1; }
# hascc FILE ADDR: ADDR in the (unfolded) Cc: of a mail
hascc() { /usr/bin/python3 -c 'import email, email.policy, sys
m = email.message_from_binary_file(open(sys.argv[1], "rb"), policy=email.policy.default)
sys.exit(sys.argv[2] not in " ".join(str(v) for v in m.get_all("Cc", [])))' "$1" "$2"; }

# --- default: the local sink, the sender signs off ---
if series; then
	d=$R/out/series/demo/v1
	p=$(ls "$d"/000[12]-*.eml 2>/dev/null | wc -l)
	sobs=$(grep -l "^Signed-off-by: $ME <$MAIL>" "$d"/000[12]-*.eml 2>/dev/null | wc -l)
	if [ "$p" = 2 ] && [ "$sobs" = 2 ] && ! grep -q '^Signed-off-by: mm-medley developers' "$d"/000[12]-*.eml &&
		grep -q "^From: $ME <$MAIL>" "$d"/0001-*.eml; then
		ok "make series: the runner ($ME <$MAIL>) signs off both patches and takes over the placeholder alias's authorship"
	else
		notok "sender sign-off in the mails ($p patches, $sobs signed by $ME)"; diag "$T/o" | tail -5
	fi
	if grep -q '^Subject: \[RFC PATCH 6.12 0/2\]' "$d"/0000-*.eml && grep -q '^Subject: \[RFC PATCH 6.12 2/2\]' "$d"/0002-*.eml; then
		ok "an RFC topic (checks/send.conf) is written as [RFC PATCH n/m]"
	else
		notok "RFC prefix"; grep -h '^Subject' "$d"/*.eml | diag
	fi
	cc=$(for f in "$d"/*.eml; do hascc "$f" linux-api@vger.kernel.org && echo "$f"; done | wc -l)
	[ "$cc" = 3 ] && ok "every mail Cc's linux-api@vger.kernel.org (checks/send.conf)" || notok "linux-api Cc in $cc of 3 mails"
	grep -qE '^ok [0-9]+ - series-prefixes$' "$d/checks.ktap" && grep -qE '^ok [0-9]+ - series-recipients$' "$d/checks.ktap" \
		&& ok "series-prefixes and series-recipients pass the RFC series with its Cc (their result lines in checks.ktap)" || { notok "series checks on the RFC series"; diag "$d/checks.ktap"; }
	[ "$(git -C "$MM_CACHE/base" config --local --get sendemail.smtpserver)" = "" ] &&
		[ "$(git -C "$MM_CACHE/base" config --local --get b4.sendemail-identity)" = mm-sink ] &&
		git -C "$MM_CACHE/base" config --local --get sendemail.mm-sink.smtpserver | grep -q '/scripts/sendmail-local$' \
		&& ok "the base sets no sendemail.smtpserver/from; the sink is the sendemail identity mm-sink" \
		|| notok "base config: $(git -C "$MM_CACHE/base" config --local --get-regexp '^(sendemail|b4)\.' | tr '\n' ' ')"
else
	notok "series.sh demo (sink)"; diag "$T/o" | tail -8
fi
# a hand-made send in the worktree still goes to the sink
(cd "$wt" && printf '\n' | MM_MAIL_SINK=$T/handsink b4 --offline-mode send --no-sign -o "$T/hand" ) >/dev/null 2>&1
[ "$(ls "$T/hand"/*.eml 2>/dev/null | wc -l)" = 3 ] && ok "b4 send -o by hand in the worktree works (transport: the mm-sink identity)" \
	|| notok "b4 send -o by hand in the worktree"

# --- the loopback "user's" SMTP server ---
/usr/bin/python3 "$S/test/fixtures/smtp-sink.py" "$T/smtp" 2>>"$T/srv.log" &
srvpid=$!
# (until it has written its port, or has died: no bound on how long its
# start may take)
while [ ! -s "$T/smtp/port" ] && kill -0 $srvpid 2>/dev/null; do sleep 0.1; done
port=$(cat "$T/smtp/port" 2>/dev/null)
[ -n "$port" ] || { notok "loopback SMTP server did not start"; ktap_exit; }

# --- refusals of a real send ---
refuse() { # refuse WHAT GREP [series args...]
	local what=$1 pat=$2; shift 2
	local before after
	before=$(ls "$T/smtp"/*.eml 2>/dev/null | wc -l)
	if ! series "$@" && grep -q -- "$pat" "$T/o"; then
		after=$(ls "$T/smtp"/*.eml 2>/dev/null | wc -l)
		[ "$after" = "$before" ] && ok "SEND=smtp refuses $what: $(grep -m1 -- "$pat" "$T/o" | cut -c1-120)" \
			|| notok "SEND=smtp $what: refused but $((after - before)) mails reached the server"
	else
		notok "SEND=smtp refuses $what"; diag "$T/o" | tail -5
	fi
}
git config --global --unset user.email
refuse "without user.email" "user.name/user.email is not set" --send=smtp
git config --global user.email maintainers@users.noreply.a-seed.example
refuse "a placeholder identity (noreply, .example)" "refuses the placeholder identity" --send=smtp
git config --global user.email someone@example.org
refuse "an example.org identity" "refuses the placeholder identity" --send=reflect
git config --global user.email "$MAIL"
refuse "without sendemail.smtpserver in the user's config" "sendemail.smtpserver is not set" --send=smtp
git config --global sendemail.smtpserver 127.0.0.1
git config --global sendemail.smtpserverport "$port"

# --- a real send through the user's server ---
# (the demo's patches are by the fork's placeholder alias: the sender takes
# them over, signs off, and no placeholder sign-off is mailed)
# the fork's settings of before: they must not override the user's
git -C "$MM_CACHE/base" config sendemail.smtpserver "$R/scripts/sendmail-local"
git -C "$MM_CACHE/base" config sendemail.from "mm-medley developers <mm-medley@lists.example.org>"
rm -rf "$R/out/mail"
if series --send=reflect; then
	nr=$(ls "$T/smtp"/*.eml 2>/dev/null | wc -l)
	if [ "$nr" = 3 ] && [ "$(grep -c "to=<$MAIL>$" "$T/smtp/log")" = 3 ] && ! git -C "$wt" rev-parse -q --verify refs/tags/sent/demo-v1 >/dev/null &&
		hascc "$T/smtp/0001.eml" linux-api@vger.kernel.org; then
		ok "SEND=reflect: 3 mails at the user's server, each delivered to $MAIL only (To/Cc headers kept), no sent tag"
	else
		notok "SEND=reflect: $nr mails"; diag "$T/smtp/log"; diag "$T/o" | tail -5
	fi
else
	notok "SEND=reflect"; diag "$T/o" | tail -8
fi
rm -f "$T/smtp"/*.eml "$T/smtp/log"
if series --send=smtp; then
	nr=$(ls "$T/smtp"/*.eml 2>/dev/null | wc -l)
	ns=$(ls "$R/out/mail"/*.eml 2>/dev/null | wc -l)
	if [ "$nr" = 3 ] && [ "$ns" = 0 ]; then
		ok "SEND=smtp: the 3 mails arrived at the user's sendemail.smtpserver (127.0.0.1:$port), none in the sink"
	else
		notok "SEND=smtp: $nr mails at the server, $ns in the sink"; diag "$T/o" | tail -5
	fi
	grep -q "^From: $ME <$MAIL>" "$T/smtp/0001.eml" && grep -q "from=<$MAIL>" "$T/smtp/log" &&
		grep -q 'linux-api@vger.kernel.org' "$T/smtp/log" && grep -q '^Subject: \[RFC PATCH 6.12 1/2\]' "$T/smtp/0002.eml" \
		&& ok "SEND=smtp: From and envelope are the user's, linux-api is a recipient, subjects [RFC PATCH n/m]" \
		|| { notok "SEND=smtp: headers/envelope"; diag "$T/smtp/log"; grep -h '^From:\|^Subject:' "$T/smtp"/*.eml | diag; }
	grep -q "^Signed-off-by: $ME <$MAIL>" "$T/smtp/0002.eml" && ! grep -q '^Signed-off-by: .*example\.org' "$T/smtp"/*.eml &&
		[ "$(grep -c '^Originally-by: ' "$T/smtp/0002.eml")" -ge 1 ] \
		&& ok "SEND=smtp: the sender took over the placeholder's patches: their sign-off, none by the alias, credits kept" \
		|| { notok "SEND=smtp: sign-offs"; grep -h '^From:\|^Signed-off-by:\|^Originally-by:' "$T/smtp"/*.eml | diag; }
	git -C "$wt" rev-parse -q --verify refs/tags/sent/demo-v1 >/dev/null && [ -s "$R/cover-letters/demo.sent/v1.tag" ] \
		&& ok "SEND=smtp: sent/demo-v1 tagged and saved, now at v2" || notok "SEND=smtp: no sent/demo-v1 tag"
	[ -z "$(git -C "$MM_CACHE/base" config --local --get sendemail.smtpserver)" ] \
		&& ok "series.sh removed the fork's old sendemail.smtpserver/from from the base" || notok "old sendemail.smtpserver left in the base"
else
	notok "SEND=smtp"; diag "$T/o" | tail -8
fi
ktap_exit
