#!/usr/bin/env python3
"""check-layers.py SOURCE_ROOT: pmapid's layers stay layers (daemon/README.md).

Each folder of daemon/ is a layer, lowest first: util, core, kernel, model, bus, lifecycle. A file
may include a header of its own layer or of a lower one (or a shared one from include/), never one
of a higher layer (common/ is shared with the library and the tools); perf_event_open is called in the kernel layer only; core does no I/O of its own
(no log, no system call wrappers); and no source file sits outside the layers. Prints TAP, exits 1
on any breach."""
import os
import re
import sys

LAYERS = ['util', 'core', 'kernel', 'model', 'bus', 'lifecycle']
TOP_LEVEL_OK = {'meson.build', 'README.md', 'pmapid.conf'}
INCLUDE = re.compile(r'^\s*#\s*include\s+"([^"]+)"', re.M)
# Headers core may not include even though they are lower or shared: they do I/O.
CORE_FORBIDDEN = {'log.h', 'perf-syscall.h'}


def layer_files(daemon, layer):
    for root, _, names in os.walk(os.path.join(daemon, layer)):
        for name in sorted(names):
            if name.endswith(('.c', '.h')):
                yield os.path.join(root, name)


def resolve(daemon, include_dirs, path, header):
    """The layer a header is in, 'shared' for include/, or None."""
    here = os.path.join(os.path.dirname(path), header)
    if os.path.exists(here):
        rel = os.path.relpath(here, daemon)
        return rel.split(os.sep)[0]
    for layer in LAYERS:
        if os.path.exists(os.path.join(daemon, layer, header)):
            return layer
    for d in include_dirs:
        if os.path.exists(os.path.join(d, header)):
            return 'shared'
    return None


def main():
    root = sys.argv[1]
    daemon = os.path.join(root, 'daemon')
    include_dirs = [os.path.join(root, 'include'), os.path.join(root, 'include', 'internal'), os.path.join(root, 'common')]
    failures = []
    checked = 0

    for name in sorted(os.listdir(daemon)):
        if name not in LAYERS and name not in TOP_LEVEL_OK:
            failures.append('daemon/%s is outside the layers' % name)
    for rank, layer in enumerate(LAYERS):
        for path in layer_files(daemon, layer):
            rel = os.path.relpath(path, root)
            text = open(path, encoding='utf-8').read()
            checked += 1
            for header in INCLUDE.findall(text):
                where = resolve(daemon, include_dirs, path, header)
                if where is None:
                    failures.append('%s includes "%s", which is in no layer' % (rel, header))
                elif where != 'shared' and LAYERS.index(where) > rank:
                    failures.append('%s (%s) includes "%s" of the higher layer %s' % (rel, layer, header, where))
                if layer == 'core' and os.path.basename(header) in CORE_FORBIDDEN:
                    failures.append('%s (core) includes "%s": core does no I/O' % (rel, header))
            if layer != 'kernel' and re.search(r'perf_event_open\s*\(', text):
                failures.append('%s calls perf_event_open outside the kernel layer' % rel)

    print('1..1')
    if failures:
        for f in failures:
            print('# ' + f)
        print('not ok 1 - %d files in %d layers: %d breaches' % (checked, len(LAYERS), len(failures)))
        return 1
    print('ok 1 - %d files in %d layers, each including only its own layer and those below' % (checked, len(LAYERS)))
    return 0


if __name__ == '__main__':
    sys.exit(main())
