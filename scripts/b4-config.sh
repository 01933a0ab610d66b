#!/usr/bin/env bash
# The b4 settings of the base repository (and so of every topic worktree):
# the local transport as a named sendemail identity, "mm-sink"
# (sendemail.mm-sink.smtpserver = scripts/sendmail-local; without a
# transport b4 0.12 picks the kernel.org web endpoint in a kernel tree),
# chosen by b4.sendemail-identity; no patatt signing; cover letters kept in
# an empty commit; To/Cc from scripts/get_maintainer.pl.
# Nothing here sets sendemail.smtpserver, sendemail.from or any other
# plain sendemail.* key: those stay the user's (global git config), and
# `series.sh --send=smtp` uses them by clearing b4.sendemail-identity for
# that one b4 run. Keys an older version of this script wrote there are
# removed. Idempotent; series.sh runs it.
. "$(dirname "$0")/lib.sh"
[ -d "$BASE/.git" ] || die "no base repository at $BASE: run 'make base'"
# Written only where the value differs: a set base is then only read, and
# readers never contend for .git/config.lock.
c() {
	case $1 in
	--unset-all) git -C "$BASE" config --local --get-all "$2" >/dev/null || return 0 ;;
	*) [ "$(git -C "$BASE" config --local --get "$1" 2>/dev/null)" != "$2" ] || return 0 ;;
	esac
	git -C "$BASE" config --local "$@"
}
for k in smtpserver smtpserverport smtpencryption smtpuser from envelopesender; do
	c --unset-all "sendemail.$k" 2>/dev/null || true
done
c sendemail.mm-sink.smtpserver "$REPO/scripts/sendmail-local"
c b4.sendemail-identity mm-sink
c b4.send-no-patatt-sign yes
c b4.prep-cover-strategy commit
c b4.send-auto-to-cmd "scripts/get_maintainer.pl --nogit --nogit-fallback --nogit-chief-penguins --norolestats --nol"
c b4.send-auto-cc-cmd "scripts/get_maintainer.pl --nogit --nogit-fallback --nogit-chief-penguins --norolestats --nom"
