#!/usr/bin/env bash
# The project's documents stand alone (issue 14): README.md, docs/ and the tools' READMEs name no
# path outside the repository (an absolute machine path such as /work/...), and every relative
# Markdown link points at a file of the repository.
set -uo pipefail
cd "$(dirname "$0")/.."
python3 - <<'PY'
import pathlib, re, sys
root = pathlib.Path('.').resolve()
files = [pathlib.Path('README.md'), *sorted(pathlib.Path('docs').glob('*.md')),
         *sorted(pathlib.Path('tools').rglob('README.md'))]
bad = []
for f in files:
    text = f.read_text(encoding='utf-8')
    for n, line in enumerate(text.splitlines(), 1):
        if re.search(r'(?<![\w.])/(work|home|tmp/nnref-work)/', line):
            bad.append(f'{f}:{n}: absolute path outside the repository: {line.strip()}')
    for m in re.finditer(r'\]\(([^)\s]+)\)', text):
        target = m.group(1).split('#')[0]
        if not target or re.match(r'[a-z]+:', target):
            continue
        p = (f.parent / target).resolve()
        if root not in p.parents and p != root or not p.exists():
            line = text.count('\n', 0, m.start()) + 1
            bad.append(f'{f}:{line}: link to a missing or outside file: {m.group(1)}')
for b in bad:
    print(b)
print(f'{len(files)} documents, {len(bad)} problems')
sys.exit(1 if bad else 0)
PY
