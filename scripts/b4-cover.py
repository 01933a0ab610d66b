#!/usr/bin/python3
"""Helpers for scripts/series.sh: the cover letter file <-> b4 tracking data.

cover-letters/<topic> is: line 1 subject (optionally with [PREFIXES]), blank
line, body written by the topic's author, then (written by series.sh only)
the b4 tracking block at the end:

    --- b4-submit-tracking ---
    # This section is used internally by b4 prep for tracking purposes.
    { ...json: series.revision, change-id, base-branch, prefixes, history }

Subcommands (all print to stdout):
  text FILE              subject without prefixes, blank, body (no block)
  prefixes FILE          extra prefixes of the subject line (e.g. "RFC 6.12"),
                         or nothing when line 1 has no [..]
  subject-revision FILE  N if the subject carries vN, else nothing
  tracking FILE          the JSON of the block in FILE (or nothing)
  commit-tracking        JSON of the b4 cover commit message read on stdin
  get KEY                read JSON on stdin, print series[KEY] (lists: space-joined)
  set-block FILE         replace/append the block of FILE with the JSON on stdin
  b4 ARGS...             run b4 with ARGS, writing an RFC series' subjects as
                         [RFC PATCH ...] (b4 0.12 always writes [PATCH RFC ...])
"""
import json
import re
import sys

MARKER = '--- b4-submit-tracking ---'
COMMENT = '# This section is used internally by b4 prep for tracking purposes.'


def read(path):
    with open(path, encoding='utf-8') as fh:
        return fh.read()


def split_block(content):
    idx = content.find(MARKER)
    if idx < 0:
        return content, None
    head = content[:idx]
    rest = content[idx + len(MARKER):]
    brace = rest.find('{')
    if brace < 0:
        return head, None
    return head, json.loads(rest[brace:])


def parse_subject(line):
    """Return (bare subject, extra prefixes, revision or None)."""
    prefixes = []
    revision = None
    s = line.strip()
    while s.startswith('['):
        m = re.match(r'^\[([^]]*)\]\s*', s)
        if not m:
            break
        for chunk in m.group(1).split():
            chunk = chunk.strip(',;')
            if re.fullmatch(r'\d{1,4}/\d{1,4}', chunk):
                continue
            if re.fullmatch(r'[vV]\d+', chunk):
                revision = int(chunk[1:])
                continue
            if chunk.lower() == 'patch':
                continue
            prefixes.append(chunk)
        s = s[m.end():]
    return s, prefixes, revision


def rfc_first(subject):
    """'[PATCH RFC 6.12 v2 1/4] x' -> '[RFC PATCH 6.12 v2 1/4] x'"""
    m = re.match(r'^\[PATCH ([^]]*)\]', subject)
    if not m or 'RFC' not in m.group(1).split():
        return subject
    rest = [t for t in m.group(1).split() if t != 'RFC']
    return '[' + ' '.join(['RFC', 'PATCH'] + rest) + ']' + subject[m.end():]


def run_b4(args):
    import b4
    import b4.command
    orig = b4.LoreSubject.get_rebuilt_subject

    def rebuilt(self, *a, **kw):
        return rfc_first(orig(self, *a, **kw))
    b4.LoreSubject.get_rebuilt_subject = rebuilt
    sys.argv = ['b4'] + args
    return b4.command.cmd()


def main():
    cmd = sys.argv[1]
    if cmd == 'b4':
        sys.exit(run_b4(sys.argv[2:]))
    if cmd in ('text', 'prefixes', 'subject-revision', 'tracking'):
        head, tracking = split_block(read(sys.argv[2]))
        lines = head.rstrip().split('\n')
        subject, prefixes, revision = parse_subject(lines[0] if lines else '')
        if cmd == 'text':
            body = '\n'.join(lines[1:]).strip('\n')
            sys.stdout.write(subject + '\n\n' + body + '\n')
        elif cmd == 'prefixes':
            if lines and lines[0].lstrip().startswith('['):
                print(' '.join(prefixes))
        elif cmd == 'subject-revision':
            if revision:
                print(revision)
        elif tracking is not None:
            print(json.dumps(tracking))
    elif cmd == 'commit-tracking':
        head, tracking = split_block(sys.stdin.read())
        if tracking is not None:
            print(json.dumps(tracking))
    elif cmd == 'get':
        data = sys.stdin.read().strip()
        if not data:
            return
        val = json.loads(data)['series'].get(sys.argv[2])
        if val is None:
            return
        if isinstance(val, list):
            print(' '.join(str(x) for x in val))
        elif isinstance(val, dict):
            print(json.dumps(val))
        else:
            print(val)
    elif cmd == 'set-block':
        path = sys.argv[2]
        tracking = json.loads(sys.stdin.read())
        head, _ = split_block(read(path))
        new = head.rstrip('\n') + '\n\n' + MARKER + '\n' + COMMENT + '\n' + json.dumps(tracking, indent=2) + '\n'
        if new != read(path):
            with open(path, 'w', encoding='utf-8') as fh:
                fh.write(new)
    else:
        sys.exit('unknown command ' + cmd)


if __name__ == '__main__':
    main()
