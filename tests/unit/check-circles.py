#!/usr/bin/env python3
"""check-circles.py SOURCE_ROOT: no two source files call each other, directly or around a circle.

In each program (pmapid's daemon/, libpmapi's pmapi/, each tool's files in pmapi/utils/), a call
from one .c file to a function defined in another is an edge; a circle of edges means the two
files are one topic split by size, or a lower file that reaches up. Calls through function
pointers (ops tables, callbacks) are not edges: that is how a lower file calls up on purpose. A
file that stands in for another in some builds (heirs-none.c for heirs.c) is left out. Comments and
strings are stripped; a name is a definition where it starts a line outside static. Prints TAP,
one test per program, and each circle with the functions on its edges; exits 1 on any circle."""
import os
import re
import sys

# Files built instead of another where a feature is missing: their functions carry the same names.
ALTERNATIVES = {'daemon/kernel/heirs-none.c'}
DEFINITION = re.compile(r'^(?!static\b)[A-Za-z_][\w \*]*?\b([a-z_][a-z0-9_]*)\s*\([^;{]*?\)\s*\{', re.M)
CALL = re.compile(r'\b([a-z_][a-z0-9_]*)\s*\(')
COMMENT = re.compile(r'/\*.*?\*/|//[^\n]*', re.S)
STRING = re.compile(r'"(?:\\.|[^"\\\n])*"')


def sources(root, folder, recurse, exclude=()):
    base = os.path.join(root, folder)
    for here, dirs, names in os.walk(base):
        dirs[:] = [d for d in sorted(dirs) if recurse and d != 'bpf']
        for name in sorted(names):
            path = os.path.relpath(os.path.join(here, name), root)
            if name.endswith('.c') and path not in ALTERNATIVES and not any(e(path) for e in exclude):
                yield path


def circles(root, files):
    text, defined = {}, {}
    for f in files:
        with open(os.path.join(root, f), errors='replace') as fh:
            text[f] = STRING.sub('""', COMMENT.sub('', fh.read()))
        for m in DEFINITION.finditer(text[f]):
            if m.group(1) != 'main':
                defined.setdefault(m.group(1), f)
    edges = {f: {} for f in files}
    for f, s in text.items():
        for m in CALL.finditer(s):
            g = defined.get(m.group(1))
            if g and g != f:
                edges[f].setdefault(g, set()).add(m.group(1))
    # Tarjan's strongly connected components, iteratively.
    index, low, stack, on, found, counter = {}, {}, [], set(), [], [0]
    for start in files:
        if start in index:
            continue
        work = [(start, iter(sorted(edges[start])))]
        index[start] = low[start] = counter[0]
        counter[0] += 1
        stack.append(start)
        on.add(start)
        while work:
            v, it = work[-1]
            w = next(it, None)
            if w is not None:
                if w not in index:
                    index[w] = low[w] = counter[0]
                    counter[0] += 1
                    stack.append(w)
                    on.add(w)
                    work.append((w, iter(sorted(edges[w]))))
                elif w in on:
                    low[v] = min(low[v], index[w])
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[v])
            if low[v] == index[v]:
                comp = []
                while True:
                    w = stack.pop()
                    on.discard(w)
                    comp.append(w)
                    if w == v:
                        break
                if len(comp) > 1:
                    found.append(sorted(comp))
    return found, edges


def tool_programs(root):
    """Each tool's files: pmapi/utils/NAME.c and NAME-*.c, with the shared helpers (files of no tool)."""
    utils = list(sources(root, 'pmapi/utils', False))
    tools = sorted(os.path.basename(f)[:-2] for f in utils
                   if re.search(r'\bmain\s*\(', open(os.path.join(root, f), errors='replace').read()))
    mine = lambda f, t: os.path.basename(f) in (t + '.c',) or os.path.basename(f).startswith(t + '-')
    shared = [f for f in utils if not any(mine(f, t) for t in tools)]
    for t in tools:
        yield 'tool ' + t, [f for f in utils if mine(f, t)] + shared


def main():
    root = sys.argv[1]
    programs = [('pmapid (daemon/)', list(sources(root, 'daemon', True))),
                ('libpmapi (pmapi/)', list(sources(root, 'pmapi', False))),
                ('common/', list(sources(root, 'common', False)))]
    programs += list(tool_programs(root))
    print('1..%d' % len(programs))
    failed = False
    for n, (name, files) in enumerate(programs, 1):
        found, edges = circles(root, files)
        print('%s %d - %s: %d files, no call circle' % ('not ok' if found else 'ok', n, name, len(files)))
        for comp in found:
            failed = True
            print('# circle: ' + ' '.join(comp))
            for f in comp:
                for g, fns in sorted(edges[f].items()):
                    if g in comp:
                        print('#   %s -> %s: %s' % (f, g, ' '.join(sorted(fns))))
    return 1 if failed else 0


if __name__ == '__main__':
    sys.exit(main())
