#!/usr/bin/env bash
# The demo page in headless Chromium against a real `chaintag serve`: the page loads, submits
# "The old man saw the dog." with kbest 3 and chunk:NP=1..2, and must render the chunks as
# brackets (NP VP NP), three analyses with probabilities best first, the analysis chosen by
# select=2 shown, and the request beside the result; an empty text must show the server's 400.
# Writes the DOM and a screenshot to OUT_DIR. Exit 77 (skipped) when Chromium is not installed.
# Usage: tests/serve/browser_test.sh CHAINTAG_BINARY OUT_DIR
set -euo pipefail
binary=$1
out=$2
chromium=$(command -v chromium || command -v chromium-browser || true)
if [ -z "$chromium" ]; then
  echo "browser_test: SKIPPED: chromium is not installed (tools/test.sh installs it)" >&2
  exit 77
fi
mkdir -p "$out"
rm -f "$out"/page.html "$out"/page.png "$out"/error.html

# shellcheck source=../../tools/lib/start-serve.sh
source "$(dirname "$0")/../../tools/lib/start-serve.sh"
serve_workdir
start_serve "$binary" || { echo "browser_test: FAILED" >&2; exit 1; }

# No network but the loopback server: QUIC, background and component traffic off, a fresh profile.
browse() {
  local profile
  profile=$(mktemp -d "$work/profile.XXXXXX")
  timeout 90 "$chromium" --headless --no-sandbox --disable-gpu --disable-quic --no-first-run \
    --disable-background-networking --disable-component-update --disable-sync \
    --disable-default-apps --disable-extensions --user-data-dir="$profile" \
    --virtual-time-budget=15000 --window-size=1280,1000 "$@" 2>>"$work/chromium.err"
}
url="http://127.0.0.1:$port/?text=The%20old%20man%20saw%20the%20dog.&kbest=3&count=chunk:NP=1..2&auto=1&select=2"
browse --dump-dom "$url" >"$out/page.html"
browse --screenshot="$out/page.png" "$url" >/dev/null
browse --dump-dom "http://127.0.0.1:$port/?text=&auto=1" >"$out/error.html"

python3 - "$out/page.html" "$out/error.html" "$out/page.png" <<'EOF'
import html.parser
import re
import struct
import sys

class Dom(html.parser.HTMLParser):
    """Elements as (tag, attrs, text) with the text of their subtree."""
    def __init__(self):
        super().__init__()
        self.stack, self.elements = [], []
    def handle_starttag(self, tag, attrs):
        e = {"tag": tag, "attrs": dict(attrs), "text": ""}
        self.elements.append(e)
        if tag not in ("meta", "input", "br", "link", "img"):
            self.stack.append(e)
    def handle_endtag(self, tag):
        while self.stack:
            if self.stack.pop()["tag"] == tag:
                break
    def handle_data(self, data):
        for e in self.stack:
            e["text"] += data

def parse(path):
    d = Dom()
    d.feed(open(path, encoding="utf-8").read())
    return d.elements

def classes(e):
    return e["attrs"].get("class", "").split()

failures = []
def check(ok, what):
    print(("ok   " if ok else "FAIL ") + what)
    if not ok:
        failures.append(what)

page = parse(sys.argv[1])
body = [e for e in page if e["tag"] == "body"][0]
check(body["attrs"].get("data-ready") == "1", "the page submitted its request and rendered")
chunks = [e for e in page if "chunk" in classes(e)]
types = [c["attrs"]["data-type"] for c in chunks]
check(types == ["NP", "VP", "NP"], f"chunks drawn as brackets: {types} == ['NP', 'VP', 'NP']")
check(all("[" in c["text"] and "]" in c["text"] for c in chunks), "every chunk has its brackets")
spans = [(c["attrs"]["data-begin"], c["attrs"]["data-end"]) for c in chunks]
check(spans == [("0", "2"), ("3", "4"), ("4", "6")],
      f"analysis 2 shown: chunks [The old] [saw] [the dog] ({spans})")
tokens = [e for e in page if "token" in classes(e)]
check(len(tokens) == 7, f"7 tokens rendered ({len(tokens)})")
pos = [e["text"] for e in page if "pos" in classes(e)]
check(pos[:4] == ["DT", "JJ", "NN", "VBD"], f"POS tags under the tokens: {pos}")
analyses = [e for e in page if "analysis" in classes(e) and e["tag"] == "li"]
check(len(analyses) == 3, f"three analyses listed ({len(analyses)})")
probs = [float(a["attrs"]["data-probability"]) for a in analyses]
check(probs == sorted(probs, reverse=True) and 0 < sum(probs) <= 1.000001,
      f"probabilities best first, summing to at most 1: {probs}")
check([a["attrs"]["data-rank"] for a in analyses if "selected" in classes(a)] == ["2"],
      "select=2 switched the display to the second analysis")
nps = [len(re.findall(r"\[NP ", a["text"])) for a in analyses]
check(all(1 <= n <= 2 for n in nps), f"every analysis has 1 to 2 NP chunks: {nps}")
request = [e for e in page if e["attrs"].get("id") == "request"][0]["text"]
check('"kbest": 3' in request and '"chunk:NP":[1,2]' in request,
      "the request sent is shown beside the result")
timing = [e for e in page if e["attrs"].get("id") == "timing"][0]["text"]
check(timing.startswith("HTTP 200"), f"the answer's status is shown ({timing!r})")

error = parse(sys.argv[2])
shown = [e["text"] for e in error if e["attrs"].get("id") == "error"]
check(len(shown) == 1 and "HTTP 400" in shown[0] and "no sentences found" in shown[0],
      f"an empty text shows the server's 400 error: {shown}")

png = open(sys.argv[3], "rb").read()
ok = png[:8] == b"\x89PNG\r\n\x1a\n" and len(png) > 20000
width, height = struct.unpack(">II", png[16:24]) if ok else (0, 0)
check(ok and (width, height) == (1280, 1000),
      f"screenshot {sys.argv[3]}: {len(png)} bytes, {width}x{height}")
sys.exit(1 if failures else 0)
EOF

kill -TERM "$server_pid"
status=0
wait "$server_pid" || status=$?
server_pid=
if [ "$status" -ne 0 ]; then
  echo "browser_test: the server exited with $status after SIGTERM" >&2
  exit 1
fi
echo "browser_test: passed; DOM and screenshot in $out"
