#!/usr/bin/python3
"""The pre-send checks of a series written by scripts/series.sh.

    series-checks.py CHECK TOPIC

CHECK is one of cover, prefixes, recipients, base, tags, checkpatch, credit;
checks/series-<CHECK> calls this. The series checked is $MM_SERIES_DIR, else the highest
out/series/<topic>/v<N>/. Prints one summary line, writes the details to
out/checks/<topic>/series-<CHECK>.log, exits 0 on pass, 1 on failure, 2 when
there is nothing to check.

    series-checks.py credit-files FILE...   (checks/signoff)

runs the credit rules on patch files (git format-patch output) and prints
one line per file: "<file>\tok|FAIL\t<first problem>".

$MM_SEND_MODE (set by scripts/series.sh --send=smtp|reflect) marks a series
prepared for a real send: then a Signed-off-by with a placeholder address
fails too. checks/send.conf names the topics sent as RFC and the addresses
each topic must Cc.
"""
import email
import email.policy
import email.utils
import fnmatch
import glob
import os
import re
import subprocess
import sys

LIB_PATHS = ('REPO', 'CACHE', 'BASE', 'WORK', 'OUT')


def lib_paths():
    """The repository, cache, base, work and out folders as scripts/lib.sh
    works them out (its MM_CACHE/MM_OUT overrides included): lib.sh is the
    one place that derives them, so this asks it."""
    here = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    script = '. "$1"; printf "%s\\n" ' + ' '.join('"$%s"' % k for k in LIB_PATHS)
    out = subprocess.run(['bash', '-c', script, 'lib.sh',
                          os.path.join(here, 'scripts', 'lib.sh')],
                         check=True, capture_output=True, text=True).stdout
    return out.split('\n')[:len(LIB_PATHS)]


REPO, CACHE, BASE, WORK, OUT = lib_paths()
GETM = ['--nogit', '--nogit-fallback', '--nogit-chief-penguins', '--norolestats']


class Series:
    def __init__(self, topic):
        self.topic = topic
        d = os.environ.get('MM_SERIES_DIR')
        if not d:
            cands = []
            for p in glob.glob(os.path.join(OUT, 'series', topic, 'v*')):
                m = re.fullmatch(r'v(\d+)', os.path.basename(p))
                if m and os.path.isdir(p):
                    cands.append((int(m.group(1)), p))
            d = max(cands)[1] if cands else None
        self.dir = d
        m = re.search(r'/v(\d+)(\.new|\.rejected)?/?$', d or '')
        self.revision = int(m.group(1)) if m else None
        self.mails = []
        for f in sorted(glob.glob(os.path.join(d, '*.eml'))) if d else []:
            with open(f, 'rb') as fh:
                msg = email.message_from_binary_file(fh, policy=email.policy.default)
            self.mails.append((os.path.basename(f), msg))

    def subject(self, msg):
        return re.sub(r'\s+', ' ', str(msg.get('Subject', ''))).strip()

    def body(self, msg):
        part = msg.get_body(preferencelist=('plain',)) or msg
        return part.get_content()

    def counter(self, msg):
        m = re.match(r'^\[([^]]*)\]', self.subject(msg))
        if not m:
            return None
        c = re.search(r'(?:^|\s)(\d+)/(\d+)(?:\s|$)', m.group(1))
        return (int(c.group(1)), int(c.group(2))) if c else None

    def patches(self):
        """Mails that carry a patch (every one but a 0/N cover)."""
        out = []
        for name, msg in self.mails:
            c = self.counter(msg)
            if c and c[0] == 0:
                continue
            out.append((name, msg))
        return out

    def cover(self):
        for name, msg in self.mails:
            c = self.counter(msg)
            if c and c[0] == 0:
                return name, msg
        return self.mails[0] if len(self.mails) == 1 else (None, None)


def tree_for(topic):
    wt = os.path.join(WORK, topic)
    if os.path.exists(os.path.join(wt, 'scripts', 'get_maintainer.pl')):
        return wt
    return BASE


def message_part(body):
    """The commit message of a patch mail: up to the first '---' line."""
    lines = []
    for line in body.split('\n'):
        if line.rstrip() == '---' or line.startswith('diff --git '):
            break
        lines.append(line)
    return lines


def check_prefixes(s, log):
    errors = []
    subjects = [(n, s.subject(m)) for n, m in s.mails]
    parsed = []
    for name, subj in subjects:
        m = re.match(r'^\[([^]]*)\] (\S.*)$', subj)
        if not m:
            errors.append(f'{name}: subject has no [PATCH ...] prefix: {subj}')
            continue
        toks = m.group(1).split()
        log.append(f'{name}: {subj}')
        lead = 2 if toks[:2] == ['RFC', 'PATCH'] else 1
        if toks[:1] != ['PATCH'] and lead != 2:
            errors.append(f'{name}: prefix does not start with PATCH or RFC PATCH: [{m.group(1)}]')
        if 'RFC' in toks[lead:]:
            errors.append(f'{name}: RFC goes first, as [RFC PATCH ...]: [{m.group(1)}]')
        rev = 1
        counter = None
        extra = ['RFC'] if lead == 2 else []
        for tok in toks[lead:]:
            if re.fullmatch(r'v\d+', tok):
                rev = int(tok[1:])
            elif re.fullmatch(r'\d+/\d+', tok):
                counter = tok
            else:
                extra.append(tok)
        parsed.append((name, extra, rev, counter, toks))
    if not parsed:
        return errors + ['no mails']
    extras = {tuple(p[1]) for p in parsed}
    if len(extras) > 1:
        errors.append('prefixes differ between mails: ' + '; '.join('[' + ' '.join(e) + ']' for e in sorted(extras)))
    revs = {p[2] for p in parsed}
    if len(revs) > 1:
        errors.append(f'revisions differ between mails: {sorted(revs)}')
    if s.revision and revs != {s.revision}:
        errors.append(f'folder is v{s.revision} but subjects say v{sorted(revs)}')
    for p in parsed:
        if s.revision and s.revision > 1 and f'v{s.revision}' not in p[4]:
            errors.append(f'{p[0]}: v{s.revision} missing from the prefix')
        if p[4].count('PATCH') > 1:
            errors.append(f'{p[0]}: PATCH twice in the prefix')
        # order: PATCH, extra prefixes, vN, n/m
        tail = [t for t in p[4] if re.fullmatch(r'v\d+|\d+/\d+', t)]
        if p[4][len(p[4]) - len(tail):] != tail:
            errors.append(f'{p[0]}: vN and n/m must come last in the prefix: [{" ".join(p[4])}]')
    npatch = len(parsed) - (1 if any(p[3] and p[3].split('/')[0].strip('0') == '' for p in parsed) else 0)
    counters = [p[3] for p in parsed]
    if len(parsed) == 1:
        if counters[0] not in (None, '1/1'):
            errors.append(f'single patch numbered {counters[0]}')
    else:
        if None in counters:
            errors.append('some mails have no n/m counter')
        else:
            totals = {c.split('/')[1] for c in counters}
            if len(totals) != 1:
                errors.append(f'totals differ: {sorted(totals)}')
            # the first mail's total (the cover's): one verdict whatever
            # order the set of totals comes in
            total = int(counters[0].split('/')[1])
            nums = sorted(int(c.split('/')[0]) for c in counters)
            if nums != list(range(0, total + 1)):
                errors.append(f'numbers are {nums}, expected 0..{total} (cover 0/{total} + {total} patches)')
            width = len(str(total))
            for c in counters:
                if len(c.split('/')[0]) != width:
                    errors.append(f'counter {c} not padded to the width of {total}')
            if total != npatch:
                errors.append(f'{npatch} patches but numbered /{total}')
    # the extra prefixes the cover letter file asks for
    cl = os.path.join(REPO, 'cover-letters', s.topic)
    if os.path.exists(cl) and len(extras) == 1:
        first = open(cl, encoding='utf-8').readline().strip()
        if first.startswith('['):
            m = re.match(r'^\[([^]]*)\]', first)
            want = [t for t in m.group(1).split()
                    if t != 'PATCH' and not re.fullmatch(r'v\d+|\d+/\d+', t)]
            if policy(s.topic)['rfc'] and 'RFC' not in want:
                want.append('RFC')      # series.sh adds it (checks/send.conf)
            got = list(next(iter(extras)))
            if sorted(want) != sorted(got):
                errors.append(f'cover-letters/{s.topic} asks for [{" ".join(want)}], the mails have [{" ".join(got)}]')
    pol = policy(s.topic)
    if pol['rfc']:
        for p in parsed:
            if p[4][:2] != ['RFC', 'PATCH']:
                errors.append(f'{p[0]}: {s.topic} is an RFC series (checks/send.conf): '
                              f'the prefix must start "RFC PATCH", not [{" ".join(p[4])}]')
    log.append(f'prefix: [{" ".join(parsed[0][4])}], revision {sorted(revs)}, {len(parsed)} mails')
    return errors


def addrs(msg):
    vals = []
    for h in ('To', 'Cc'):
        vals += [str(v) for v in msg.get_all(h, [])]
    return {a.lower() for _, a in email.utils.getaddresses(vals) if a}


def tree_script(topic, name):
    """(tree, path of scripts/<name> in the topic's tree, error or None)"""
    tree = tree_for(topic)
    path = os.path.join(tree, 'scripts', name)
    return tree, path, None if os.path.exists(path) else f'no scripts/{name} in {tree}'


def check_recipients(s, log):
    errors = []
    tree, getm, missing = tree_script(s.topic, 'get_maintainer.pl')
    if missing:
        return [missing]
    for name, msg in s.patches():
        path = os.path.join(s.dir, name)
        cmd = ['perl', getm] + GETM + ['--m', '--l', '--nor', '--nos', '--nofixes', path]
        res = subprocess.run(cmd, cwd=tree, capture_output=True, text=True)
        if res.returncode != 0:
            errors.append(f'{name}: get_maintainer.pl failed: {res.stderr.strip()[:200]}')
            continue
        want = {a.lower() for _, a in email.utils.getaddresses(res.stdout.split('\n')) if a}
        have = addrs(msg)
        missing = sorted(want - have)
        log.append(f'{name}: get_maintainer.pl (maintainers, lists): {", ".join(sorted(want)) or "-"}')
        log.append(f'{name}: To/Cc: {", ".join(sorted(have)) or "-"}')
        if missing:
            errors.append(f'{name}: To/Cc lacks {", ".join(missing)}')
    for addr in policy(s.topic)['cc']:
        for name, msg in s.mails:
            if addr.lower() not in addrs(msg):
                errors.append(f'{name}: {s.topic} must Cc {addr} (checks/send.conf)')
    if not s.patches():
        errors.append('no patch mails')
    return errors


def check_base(s, log):
    errors = []
    with open(os.path.join(REPO, 'branches', 'BASE'), encoding='utf-8') as fh:
        rec = fh.read().split()
    want = rec[1] if len(rec) > 1 else None
    name, msg = s.cover()
    if not msg:
        return ['no cover letter (0/N) in the series' if len(s.mails) > 1 else 'no mails']
    body = s.body(msg)
    found = re.findall(r'^base-commit: ([0-9a-f]{40})\s*$', body, flags=re.M)
    log.append(f'{name}: base-commit lines: {found or "none"}; branches/BASE: {" ".join(rec)}')
    if not found:
        errors.append(f'{name}: no "base-commit: <40-hex sha>" line')
    elif len(set(found)) > 1:
        errors.append(f'{name}: several base-commit lines: {found}')
    elif want and found[0] != want:
        errors.append(f'{name}: base-commit {found[0][:12]} is not the recorded base {want[:12]} (branches/BASE)')
    if len(s.mails) > 1 and not re.search(r'^change-id: \S+', body, flags=re.M):
        errors.append(f'{name}: no change-id line')
    # the cover says plainly what the base is: Debian's package and its
    # version, and that base-commit is a commit of the fork's base tree
    text = re.sub(r'\s+', ' ', body)
    ver = debian_version()
    if 'linux-source-6.12' not in text:
        errors.append(f'{name}: the cover does not name the base package (Debian linux-source-6.12)')
    if ver and ver not in text:
        errors.append(f'{name}: the cover does not state the base version {ver} (linux-source-6.12)')
    if not re.search(r'base-commit\W[^.]*not [^.]*linux\.git|base-commit\W[^.]*fork', text):
        errors.append(f'{name}: the cover does not say that base-commit names a commit of the fork\'s base, not of linux.git')
    return errors


def debian_version():
    """Debian's version of the base package (6.12.118-1~deb12u1), from
    $MM_BASE_DEB_VERSION, else dpkg, else None."""
    v = os.environ.get('MM_BASE_DEB_VERSION')
    if v is not None:
        return v or None
    try:
        res = subprocess.run(['dpkg-query', '-W', '-f=${Version}', 'linux-source-6.12'],
                             capture_output=True, text=True)
    except OSError:
        return None
    return res.stdout.strip() if res.returncode == 0 and res.stdout.strip() else None


LORE_RE = re.compile(r'^https://lore\.kernel\.org/(r|all|[a-z0-9._-]+)/[^\s/<>]+@[^\s/<>]+/?$')


def check_tags(s, log):
    errors = []
    for name, msg in s.patches():
        for line in message_part(s.body(msg)):
            m = re.match(r'^(link|fixes|closes)\s*:(.*)$', line, flags=re.I)
            if not m:
                continue
            tag, val = m.group(1), m.group(2)
            log.append(f'{name}: {line}')
            canon = {'link': 'Link', 'fixes': 'Fixes', 'closes': 'Closes'}[tag.lower()]
            if not line.startswith(canon + ': ') or val != ' ' + val.strip():
                errors.append(f'{name}: write "{canon}: <value>" (one space, that case): {line}')
                continue
            val = val.strip()
            if canon in ('Link', 'Closes'):
                if not re.fullmatch(r'https?://\S+', val):
                    errors.append(f'{name}: {canon}: not a single URL: {val}')
                elif 'lore.kernel.org' in val and not LORE_RE.match(val):
                    errors.append(f'{name}: {canon}: lore URL without a message-id '
                                  f'(https://lore.kernel.org/r/<msgid>): {val}')
                elif '%40' in val or '<' in val or '>' in val:
                    errors.append(f'{name}: {canon}: message-id must be bare (no <>, no %40): {val}')
            else:
                if not re.fullmatch(r'[0-9a-f]{12,40} \("\S.*"\)', val):
                    errors.append(f'{name}: Fixes: wants 12+ hex digits and ("subject") on one line: {val}')
    if not s.patches():
        errors.append('no patch mails')
    return errors


def exceptions(topic):
    out = []
    f = os.path.join(REPO, 'checks', 'exceptions', topic)
    if os.path.exists(f):
        for line in open(f, encoding='utf-8'):
            parts = line.split(None, 2)
            if len(parts) >= 2 and not line.startswith('#'):
                out.append((parts[0], parts[1]))
    return out


def check_checkpatch(s, log):
    errors = []
    tree, cp, missing = tree_script(s.topic, 'checkpatch.pl')
    if missing:
        return [missing]
    exc = exceptions(s.topic)
    patchfiles = sorted(glob.glob(os.path.join(REPO, 'branches', s.topic, '*.patch')))
    for name, msg in s.patches():
        path = os.path.join(s.dir, name)
        res = subprocess.run(['perl', cp, '--strict', '--show-types', '--terse', '--no-summary', path],
                             cwd=tree, capture_output=True, text=True)
        c = s.counter(msg)
        idx = c[0] if c else 1
        pname = os.path.basename(patchfiles[idx - 1]) if 0 < idx <= len(patchfiles) else name
        for line in res.stdout.splitlines():
            m = re.search(r'(ERROR|WARNING|CHECK):([A-Z0-9_]+):', line)
            if not m:
                continue
            typ = m.group(2)
            if typ == 'UNKNOWN_COMMIT_ID':
                # the base is one commit without history: every upstream
                # commit a Fixes: names is "unknown" to it (series-tags
                # checks the form of Fixes: instead)
                log.append(f'{name}: ignored (base has no history): {line}')
                continue
            if typ == 'BAD_SIGN_OFF' and 'Non-standard signature: Originally-by:' in line:
                # the credit convention's trailer, which checkpatch does not list
                log.append(f'{name}: ignored (Originally-by: credit): {line}')
                continue
            if any(t == typ and (fnmatch.fnmatch(pname, g) or fnmatch.fnmatch(name, g)) for g, t in exc):
                log.append(f'{name}: excepted ({pname} {typ}): {line}')
                continue
            errors.append(f'{pname}: {line.split(":", 1)[-1].strip()}')
    if not s.patches():
        errors.append('no patch mails')
    return errors


def policy(topic):
    """checks/send.conf: '<topic> [rfc] [cc=ADDR]...' -> {'rfc': bool, 'cc': [...]}"""
    pol = {'rfc': False, 'cc': []}
    f = os.path.join(REPO, 'checks', 'send.conf')
    if os.path.exists(f):
        for line in open(f, encoding='utf-8'):
            parts = line.split('#', 1)[0].split()
            if not parts or parts[0] != topic:
                continue
            for w in parts[1:]:
                if w.lower() == 'rfc':
                    pol['rfc'] = True
                elif w.startswith('cc='):
                    pol['cc'].append(w[3:])
    return pol


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


def check_credit(s, log):
    errors = []
    for name, msg in s.patches():
        probs = credit_problems(message_part(s.body(msg)), real_send())
        log.append(f'{name}: {len(probs)} problem(s)')
        errors += [f'{name}: {p}' for p in probs]
    if not s.patches():
        errors.append('no patch mails')
    return errors


def credit_files(paths):
    """checks/signoff: the credit rules on patch files, one line each."""
    bad = 0
    for p in paths:
        with open(p, 'rb') as fh:
            msg = email.message_from_binary_file(fh, policy=email.policy.default)
        part = msg.get_body(preferencelist=('plain',)) or msg
        probs = credit_problems(message_part(part.get_content()), real_send())
        bad += bool(probs)
        print(f"{p}\t{'FAIL' if probs else 'ok'}\t{'; '.join(probs)}")
    return 1 if bad else 0


PLACEHOLDER_RE = re.compile(r'EDITME|@@[A-Z0-9_ -]+@@|\bTODO\b|\bXXX\b|\bFIXME\b|<[a-z ]*(here|fill[a-z ]*|tbd)>', re.I)


def check_cover(s, log):
    """The cover letter as mailed: a subject, a body, no placeholder left, a
    'Changes in vN' section from v2 on."""
    errors = []
    name, msg = s.cover()
    if not msg:
        return ['no cover letter (0/N) in the series']
    subj = s.subject(msg)
    m = re.match(r'^\[[^]]*\] (.+)$', subj)
    if not m or len(m.group(1).strip()) < 8:
        errors.append(f'{name}: no real subject: {subj}')
    body = s.body(msg)
    if len(s.mails) > 1:
        text = re.split(r'^---$', body, maxsplit=1, flags=re.M)[0]
    else:
        # single patch: the cover text sits under the --- of the patch
        text = '\n'.join(body.split('\n---\n')[1:])
    words = len(text.split())
    log.append(f'{name}: subject "{subj}", {words} words of cover text')
    if words < 20:
        errors.append(f'{name}: cover text has only {words} words')
    for i, line in enumerate(body.split('\n'), 1):
        if line.startswith('diff --git '):
            break
        if PLACEHOLDER_RE.search(line):
            errors.append(f'{name}: placeholder left at body line {i}: {line.strip()[:80]}')
    if s.revision and s.revision > 1 and not re.search(rf'^Changes in v{s.revision}:', body, flags=re.M):
        errors.append(f'{name}: v{s.revision} without a "Changes in v{s.revision}:" section')
    return errors


CHECKS = {
    'cover': (check_cover, 'cover letter complete (subject, body, no placeholder, changelog from v2)'),
    'prefixes': (check_prefixes, 'subject prefixes and numbering consistent'),
    'recipients': (check_recipients, "To/Cc cover get_maintainer.pl's maintainers and lists"),
    'base': (check_base, 'base-commit of the cover is the recorded base'),
    'tags': (check_tags, 'Link:/Fixes: tags well-formed'),
    'checkpatch': (check_checkpatch, 'checkpatch --strict clean on the mails'),
    'credit': (check_credit, 'authors of postings and folded fixes credited; real sign-offs for a real send'),
}


def main():
    if len(sys.argv) >= 2 and sys.argv[1] == 'credit-files':
        sys.exit(credit_files(sys.argv[2:]))
    if len(sys.argv) == 3 and sys.argv[1] == 'placeholder':
        # exit 0 when the address is a placeholder (series.sh)
        sys.exit(0 if PLACEHOLDER_ADDR_RE.search(sys.argv[2]) or '@' not in sys.argv[2] else 1)
    if len(sys.argv) != 3 or sys.argv[1] not in CHECKS:
        sys.exit('usage: series-checks.py {%s} TOPIC' % ','.join(CHECKS))
    check, topic = sys.argv[1], sys.argv[2]
    name = f'series-{check}'
    func, what = CHECKS[check]
    logdir = os.path.join(OUT, 'checks', topic)
    os.makedirs(logdir, exist_ok=True)
    logf = os.path.join(logdir, name + '.log')
    s = Series(topic)
    log = [f'# {name} {topic}: {what}', f'# series: {s.dir}']
    if not s.dir or not s.mails:
        msg = f'{name}: {topic}: SKIP no series written (make series TOPIC={topic})'
        open(logf, 'w').write('\n'.join(log + [msg]) + '\n')
        open(os.path.join(logdir, name + '.tsv'), 'w').write('series\t-\tno series written\n')
        print(msg)
        sys.exit(2)
    errors = func(s, log)
    log += [f'FAIL: {e}' for e in errors]
    if errors:
        summary = f'{name}: {topic}: FAIL {len(errors)} problem(s): {errors[0]}' + (' ...' if len(errors) > 1 else '')
    else:
        shown = re.sub(r'[.]new$', '', os.path.relpath(s.dir, REPO))
        summary = f'{name}: {topic}: PASS {what} ({len(s.mails)} mails, {shown})'
    log.append(summary)
    with open(logf, 'w', encoding='utf-8') as fh:
        fh.write('\n'.join(log) + '\n')
    # one row for the table of scripts/check-series.sh (checks/common.sh)
    with open(os.path.join(logdir, name + '.tsv'), 'w', encoding='utf-8') as fh:
        note = errors[0] if errors else what
        fh.write(f"series\t{'FAIL' if errors else 'ok'}\t{note[:100]}\n")
    print(summary)
    sys.exit(1 if errors else 0)


if __name__ == '__main__':
    main()
