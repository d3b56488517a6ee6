# shared-browser.sh, sourced by tests/run-all.sh and tests/file-times.sh: starts one Chromium
# (shared-browser.mjs) for the browser test files of a run and sets QKV_BROWSER_WS to its endpoint
# (harness.js's openBrowser() connects to it). stop_shared_browser stops it; the sourcing script
# calls it on exit (its EXIT trap).
shared_browser_endpoint=$(mktemp)
node tests/browser/shared-browser.mjs "$shared_browser_endpoint" &
shared_browser=$!
stop_shared_browser() { kill "$shared_browser" 2>/dev/null; rm -f "$shared_browser_endpoint"; }
while [ ! -s "$shared_browser_endpoint" ]; do
  kill -0 "$shared_browser" 2>/dev/null || { echo "the shared Chromium did not start" >&2; rm -f "$shared_browser_endpoint"; exit 1; }
  sleep 0.2
done
QKV_BROWSER_WS=$(cat "$shared_browser_endpoint")
