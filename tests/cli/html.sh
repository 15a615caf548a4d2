#!/usr/bin/env bash
# `check --html`: the page renders in a real headless browser (Debian's chromium) and the DOM it
# produced has the summary, the per-operator table, one histogram per operator with the expected
# bar counts, and the failing cases. Exit 77 (CTest skip) only when chromium is not installed.
source "$(dirname "$0")/common.sh"
browser=$(command -v chromium || command -v chromium-browser || true)
[ -n "$browser" ] || { echo "chromium is not installed (tools/setup.sh installs it): skipped"; exit 77; }

"$nnref" check known.json --actual actual_known.json --html "$tmp/page.html" \
  --report "$tmp/r.json" >/dev/null
[ -s "$tmp/page.html" ] || fail "no page written"
# Self-contained: no external scripts, styles, images or links.
grep -Eq '<(link|img|iframe)|src=|href=|@import|url\(' "$tmp/page.html" && fail "the page loads something"
"$browser" --headless --no-sandbox --disable-gpu --disable-background-networking \
  --user-data-dir="$tmp/profile" --dump-dom "file://$tmp/page.html" >"$tmp/dom.html" 2>"$tmp/err" ||
  fail "chromium failed: $(tail -5 "$tmp/err")"
python3 - "$tmp/dom.html" "$tmp/r.json" <<'PY' || fail "DOM check"
import json, math, sys
from html.parser import HTMLParser
report = json.load(open(sys.argv[2]))
class Dom(HTMLParser):
    def __init__(self):
        super().__init__()
        self.stack, self.rows, self.svgs, self.bars, self.cases = [], [], [], {}, []
        self.rendered, self.table, self.text = None, None, ""
    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        if tag == "table":
            self.table = a.get("id")
        if tag == "tr" and self.table == "operators" and "data-op" in a:
            self.rows.append(a["data-op"])
        if tag == "svg" and "hist" in a.get("class", ""):
            self.svgs.append(a["data-op"])
            self.bars[a["data-op"]] = {}
        if tag == "rect" and a.get("class") == "bar":
            self.bars[self.svgs[-1]][int(a["data-bin"])] = int(a["data-count"])
        if tag == "div" and a.get("class", "").startswith("case "):
            self.cases.append(a["data-name"])
        if tag == "p" and a.get("id") == "rendered":
            self.rendered = ""
            self.text = "rendered"
    def handle_data(self, data):
        if self.text == "rendered":
            self.rendered += data
    def handle_endtag(self, tag):
        if tag == "p":
            self.text = ""
d = Dom()
d.feed(open(sys.argv[1]).read())
ops = sorted(report["operators"])
assert d.rows == ops, (d.rows, ops)
assert d.svgs == ops, (d.svgs, ops)
failing = [c["name"] for c in report["cases"] if c["verdict"] in ("fail", "error")]
assert d.cases == failing, (d.cases, failing)
# Written by the page's own script when the browser ran it.
want = "rendered: %d plots, %d operators, %d failing cases" % (len(ops), len(ops), len(failing))
assert d.rendered == want, (d.rendered, want)
# sub: d = [1, -3, 0] against [1, 3, 0]: two elements 0 ULP apart, one 2 * bits(3.0f) apart,
# in bin floor(log2(u)) + 1.
import struct
u = 2 * struct.unpack("<I", struct.pack("<f", 3.0))[0]
b = int(math.floor(math.log2(u))) + 1
bars = {k: v for k, v in d.bars["sub"].items() if v}
assert bars == {0: 2, b: 1}, (bars, b)
PY
echo "html checks passed"
