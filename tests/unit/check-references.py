#!/usr/bin/env python3
"""check-references.py SOURCE_ROOT: every document the tree cites is in the tree.

A comment, a test or a page that sends its reader to a document the clone does not have explains
nothing. So this scans the text files of the tree (those git tracks, and new ones it does not
ignore; without git, every file outside build*/ folders): .c .h .py .sh .md .build .in .xml .txt
and the man pages under man/. In each it finds the names of documents:
- a path ending in .md (`docs/api.md`, `../man/README.md`, `api.md`);
- a path under reference/ or seeds/, and ../shared (the folders such documents came from);
- the upper-case names of the design and style documents written without .md (the words that
  matter are in BARE_NAMES below).
A name with a folder must exist relative to the citing file's folder or to SOURCE_ROOT; a bare
file name may be any file of that name in the tree. URLs (scheme://...) are not names of the tree.
The section sign fails wherever it appears: a section is cited by its heading, in quotes
(docs/design.md, "Group accounting"), which a reader can search for. This file is the one it does
not scan: its patterns spell what they look for. Prints TAP, exits 1 on any breach."""
import os
import re
import subprocess
import sys

SUFFIXES = ('.c', '.h', '.py', '.sh', '.md', '.build', '.in', '.xml', '.txt')
SELF = 'tests/unit/check-references.py'
URL = re.compile(r'\b[a-zA-Z][a-zA-Z0-9+.-]*://\S*|\bmailto:\S*')
MD = re.compile(r'(?<![\w$*])[\w.~+/-]*\w\.md(?!\w)')
FOLDERS = re.compile(r'(?<![\w./-])(?:\.\./|\./)*(?:reference|seeds)/[\w.+/-]*[\w/]|(?<![\w.-])(?:\.\./)+shared\b')
BARE_NAMES = re.compile(r'\b(DESIGN|STYLE)\b(?!\.md)')
# What a line must hold for any of the three above to match: most lines are passed over on it.
HINT = re.compile(r'\.md|reference/|seeds/|shared|DESIGN|STYLE')
SECTION = '\u00a7'


def tree_files(root):
    """Paths relative to root: git's (tracked, and untracked but not ignored), else a walk."""
    if os.path.exists(os.path.join(root, '.git')):
        try:
            out = subprocess.run(['git', '-C', root, 'ls-files', '-z', '--cached', '--others',
                                  '--exclude-standard'], check=True, capture_output=True).stdout
            return sorted({p for p in out.decode('utf-8', 'replace').split('\0') if p})
        except (OSError, subprocess.CalledProcessError):
            pass
    files = []
    for top, dirs, names in os.walk(root):
        dirs[:] = [d for d in dirs if not d.startswith(('build', '.git'))]
        for name in names:
            files.append(os.path.relpath(os.path.join(top, name), root))
    return sorted(files)


def scanned(rel):
    return rel != SELF and (rel.endswith(SUFFIXES) or rel.startswith('man/'))


def exists(root, basenames, rel, name):
    """Whether the document name, cited in file rel, is in the tree."""
    name = name.split('#')[0]
    if '/' not in name.rstrip('/'):
        return name in basenames or os.path.exists(os.path.join(root, os.path.dirname(rel), name))
    if name.startswith('/'):
        return False
    return any(os.path.exists(os.path.normpath(os.path.join(base, name)))
               for base in (os.path.join(root, os.path.dirname(rel)), root))


def names_in(line):
    """The document names a line cites (URLs taken out first)."""
    if not HINT.search(line):
        return []
    line = URL.sub(' ', line)
    found = [m.group(0) for m in MD.finditer(line)]
    found += [m.group(0) for m in FOLDERS.finditer(line)]
    found += [m.group(1) + '.md' for m in BARE_NAMES.finditer(line)]
    return list(dict.fromkeys(found))


def main():
    root = os.path.abspath(sys.argv[1])
    files = [f for f in tree_files(root) if os.path.isfile(os.path.join(root, f))]
    basenames = {os.path.basename(f) for f in files}
    failures = []
    checked = 0

    for rel in files:
        if not scanned(rel):
            continue
        try:
            text = open(os.path.join(root, rel), encoding='utf-8').read()
        except (UnicodeDecodeError, OSError):
            continue
        checked += 1
        for n, line in enumerate(text.splitlines(), 1):
            if SECTION in line:
                failures.append('%s:%d: a section sign: cite the section by its heading, in quotes' % (rel, n))
            for name in names_in(line):
                if not exists(root, basenames, rel, name):
                    failures.append('%s:%d: %s is not in the tree' % (rel, n, name))

    print('1..1')
    if failures:
        for f in failures:
            print('# ' + f)
        print('not ok 1 - %d files: %d references to documents the tree does not have' % (checked, len(failures)))
        return 1
    print('ok 1 - %d files: every document they cite is in the tree' % checked)
    return 0


if __name__ == '__main__':
    sys.exit(main())
