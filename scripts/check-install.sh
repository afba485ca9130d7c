#!/usr/bin/env bash
# Installs this working tree the way a person would, in a temporary copy, and proves it serves:
#   production (default): `npm run build` here, then in the copy (dist/ kept) `npm ci --omit=dev`,
#     checks that no dev tool (tsx, typescript) got installed, starts `npm start` (plain node on
#     dist/ — the prestart step finds no compiler and uses dist/ as shipped), mints a token with
#     `npm run token` and lists the MCP tools.
#   --fresh: the README's set-up on a fresh copy without dist/ or node_modules/:
#     `npm install && npm start` (the first start builds dist/), then the same checks.
# Prints install time and size, and the start-up time to /readyz. Not part of `npm test` (it
# downloads and compiles packages for minutes); the results are recorded in bench/README.md.
# Usage: scripts/check-install.sh [--fresh] [--keep]
set -euo pipefail
ROOT="$(cd "$(dirname "$0")/.." && pwd)"
MODE=production
KEEP=false
for arg in "$@"; do
  case "$arg" in
    --fresh) MODE=fresh ;;
    --keep) KEEP=true ;;
    *) echo "usage: scripts/check-install.sh [--fresh] [--keep]" >&2; exit 2 ;;
  esac
done

WORK="$(mktemp -d "${TMPDIR:-/tmp}/kobana-install-XXXXXX")"
SERVER_PID=""
cleanup() {
  if [ -n "$SERVER_PID" ]; then kill "$SERVER_PID" 2>/dev/null || true; wait "$SERVER_PID" 2>/dev/null || true; fi
  if [ "$KEEP" = true ]; then echo "kept $WORK"; else rm -rf "$WORK"; fi
}
trap cleanup EXIT

if [ "$MODE" = production ]; then
  (cd "$ROOT" && npm run -s build)
fi
# The files of the working tree a clone would have (tracked and new, not ignored), plus dist/ for production.
mkdir -p "$WORK/app" && (cd "$ROOT" && git ls-files -co --exclude-standard -z | tar --null -T - -cf - | tar -xf - -C "$WORK/app")
if [ "$MODE" = production ]; then cp -r "$ROOT/dist" "$WORK/app/dist"; fi
cd "$WORK/app"

started=$(date +%s)
if [ "$MODE" = production ]; then npm ci --omit=dev --no-audit --no-fund >"$WORK/install.log" 2>&1
else npm install --no-audit --no-fund >"$WORK/install.log" 2>&1; fi
echo "install ($MODE): $(( $(date +%s) - started )) s, node_modules $(du -sm node_modules | cut -f1) MB, $(npm ls --all --parseable 2>/dev/null | tail -n +2 | wc -l) packages"
grep -i "install-scripts" "$WORK/install.log" || echo "install: no install-scripts warnings"
if [ "$MODE" = production ]; then
  for tool in tsx typescript mocha; do
    if [ -e "node_modules/$tool" ]; then echo "FAIL: $tool was installed by --omit=dev" >&2; exit 1; fi
  done
fi

PORT=$(node -e "const s=require('net').createServer().listen(0,'127.0.0.1',()=>{console.log(s.address().port);s.close()})")
export PORT DATA_DIR="$WORK/data"
started=$(date +%s%N)
npm start >"$WORK/server.log" 2>&1 &
SERVER_PID=$!
for _ in $(seq 1 1200); do
  if curl -sf "http://127.0.0.1:$PORT/readyz" >/dev/null; then break; fi
  if ! kill -0 "$SERVER_PID" 2>/dev/null; then cat "$WORK/server.log" >&2; echo "FAIL: the server exited" >&2; exit 1; fi
  sleep 0.1
done
echo "npm start → /readyz: $(( ($(date +%s%N) - started) / 1000000 )) ms (includes npm, the prestart check$([ "$MODE" = fresh ] && echo ', the first build'), migrating and seeding)"
if ! pgrep -P "$SERVER_PID" -f "dist/src/main.js" >/dev/null && ! ps -o args= -p "$SERVER_PID" | grep -q "dist/src/main.js"; then
  echo "FAIL: npm start is not running node dist/src/main.js" >&2; exit 1
fi

TOKEN=$(npm run -s token -- --person ana@demo.test --scope "finance.all.write")
status=$(curl -s -o "$WORK/tools.json" -w '%{http_code}' "http://127.0.0.1:$PORT/mcp" \
  -H "Authorization: Bearer $TOKEN" -H 'Content-Type: application/json' -H 'MCP-Protocol-Version: 2025-06-18' \
  -d '{"jsonrpc":"2.0","id":1,"method":"tools/list"}')
tools=$(node -e "console.log(JSON.parse(require('fs').readFileSync('$WORK/tools.json','utf8')).result.tools.length)")
if [ "$status" != 200 ] || [ "$tools" -lt 1 ]; then echo "FAIL: tools/list answered $status" >&2; exit 1; fi
echo "ok: $MODE install serves; tools/list over MCP: $tools tools"
