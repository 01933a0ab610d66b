#!/usr/bin/python3
"""The credit rules (the credit convention of every topic), on the commit
message of a patch: a Link: to a posting needs an Originally-by: for its
author, a folded upstream fix is named as <12+ hex hash> ("subject"), and a
series prepared for a real send ($MM_SEND_MODE smtp|reflect, set by
scripts/series.sh) has no Signed-off-by with a placeholder address.
Used by checks/series-credit (on the mails) and, as a command:

    credit.py files FILE...     (checks/signoff) the rules on patch files
                                (git format-patch output), one line each:
                                "<file>\tok|FAIL\t<problems>"; exit 1 if any failed
    credit.py placeholder ADDR  (scripts/series.sh) exit 0 when ADDR is a
                                placeholder address, not a person's
"""
import email
import email.policy
import email.utils
import os
import re
import sys

sys.dont_write_bytecode = True  # (no __pycache__ in checks/)
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from serieslib import message_part  # noqa: E402

# A Link: to a posting on a list archive (lore, lkml, marc, patchwork).
POSTING_RE = re.compile(r'^https?://(lore\.kernel\.org|lkml\.kernel\.org|(www\.)?lkml\.org|marc\.info|'
                        r'patchwork\.kernel\.org|msgid\.link|lore\.[a-z0-9.-]+)/', re.I)
# Addresses that are not a person's: RFC 2606/6761 names, noreply.
PLACEHOLDER_ADDR_RE = re.compile(r'@(.*\.)?example\.(org|com|net)$|\.(example|invalid|test|localhost)$|'
                                 r'@localhost$|no-?reply', re.I)
HASH_SUBJ_RE = re.compile(r'\b[0-9a-f]{12,40}\b \("[^"]+"\)')
FOLD_RE = re.compile(r'\b(fold(s|ed|ing)?|squash(es|ed|ing)?|incorporat(es|ed|ing))\b', re.I)
INCLUDE_RE = re.compile(r'\binclud(es|ed|ing)\b[^.]*\b(upstream|mainline)\b[^.]*\bfix|'
                        r'\binclud(es|ed|ing)\b[^.]*\bfix(es)?\b[^.]*\b(upstream|mainline)\b', re.I)
FIX_RE = re.compile(r'\bfix(es|ed)?\b', re.I)
NOT_FOLDED_RE = re.compile(r'\bnot (folded|included|squashed)\b|\bleft out\b', re.I)


def changelog_units(lines):
    """Paragraphs and bullet items of a changelog (trailers dropped), each
    as (text, is_bullet)."""
    units, cur, bullet = [], [], False
    for line in lines:
        if re.match(r'^[A-Za-z-]+: \S', line) and not line.startswith(' '):
            if re.match(r'^(Signed-off-by|Originally-by|Link|Fixes|Cc|Reviewed-by|Acked-by|Tested-by|'
                        r'Reported-by|Suggested-by|Co-developed-by|Closes):', line):
                continue
        b = re.match(r'^\s*[-*] \S', line)
        if not line.strip() or b:
            if cur:
                units.append((' '.join(cur), bullet))
            cur, bullet = ([line.strip()] if b else []), bool(b)
            continue
        cur.append(line.strip())
    if cur:
        units.append((' '.join(cur), bullet))
    return units


def credit_problems(lines, real_send):
    """The credit rules on the commit message lines of one patch."""
    errors = []
    trailers = [ln for ln in lines if re.match(r'^[A-Za-z-]+: ', ln)]
    links = [ln.split(':', 1)[1].strip() for ln in trailers if ln.startswith('Link: ')]
    orig = [ln for ln in trailers if ln.startswith('Originally-by: ')]
    for o in orig:
        if not re.fullmatch(r'Originally-by: \S[^<>]* <[^<>@\s]+@[^<>@\s]+>', o):
            errors.append(f'malformed "{o}" (want Originally-by: Name <address>)')
    posts = [u for u in links if POSTING_RE.match(u)]
    if posts and not orig:
        errors.append(f'Link: to a posting ({posts[0]}) but no Originally-by: crediting its author')
    context = False
    for text, is_bullet in changelog_units(lines):
        if not is_bullet:
            context = False
        claims = (FOLD_RE.search(text) and FIX_RE.search(text)) or INCLUDE_RE.search(text)
        if NOT_FOLDED_RE.search(text):
            claims, context = None, False
        elif claims and text.rstrip().endswith(':'):
            context = True      # the items below name the fixes
            continue
        if (claims or (is_bullet and context)) and not HASH_SUBJ_RE.search(text):
            errors.append('folds in a fix without naming it as <12+ hex hash> ("subject"): ' + text[:90])
    if real_send:
        for ln in trailers:
            if ln.startswith('Signed-off-by: '):
                addr = email.utils.parseaddr(ln.split(':', 1)[1])[1]
                if not addr or PLACEHOLDER_ADDR_RE.search(addr):
                    errors.append(f'{ln}: a placeholder address cannot sign off a series sent for real '
                                  '(the DCO needs a person\'s address)')
    return errors


def real_send():
    return os.environ.get('MM_SEND_MODE', '') in ('smtp', 'reflect')


def credit_files(paths):
    """checks/signoff: the rules on patch files, one line each."""
    bad = 0
    for p in paths:
        with open(p, 'rb') as fh:
            msg = email.message_from_binary_file(fh, policy=email.policy.default)
        part = msg.get_body(preferencelist=('plain',)) or msg
        probs = credit_problems(message_part(part.get_content()), real_send())
        bad += bool(probs)
        print(f"{p}\t{'FAIL' if probs else 'ok'}\t{'; '.join(probs)}")
    return 1 if bad else 0


def is_placeholder(addr):
    return bool(PLACEHOLDER_ADDR_RE.search(addr)) or '@' not in addr


if __name__ == '__main__':
    if len(sys.argv) >= 2 and sys.argv[1] == 'files':
        sys.exit(credit_files(sys.argv[2:]))
    if len(sys.argv) == 3 and sys.argv[1] == 'placeholder':
        sys.exit(0 if is_placeholder(sys.argv[2]) else 1)
    sys.exit('usage: credit.py files FILE... | credit.py placeholder ADDRESS')
