#!/usr/bin/env bash
# `toolseal import` on real client configurations, then a real client through the
# gateway it wrote (called by scripts/check_real_servers.sh with its work directory;
# runs alone too):
#  1. a Claude Code `.mcp.json` naming npm server-memory (its MEMORY_FILE_PATH a
#     `${VAR}` reference) and a VS Code `.vscode/mcp.json` (a comment, trailing commas)
#     naming PyPI mcp-server-time with a token written into its `env` (a canary, which
#     the server ignores), imported by `$TOOLSEAL import ... --out DIR`: each server
#     pinned (its tools those of the committed capture), DIR/toolseal.toml written with
#     the reference kept, the configurations rewritten to start the gateway (backups
#     kept), the canary in DIR/secrets.env (mode 600) only: in no pin, no manifest, no
#     rewritten configuration and no output; and a Claude Desktop configuration naming npm
#     server-brave-search with its BRAVE_API_KEY written in (a second canary): a server
#     that refuses to start without its key, so its pin and its listing through the
#     gateway show the key reached it from secrets.env;
#  2. the Python MCP SDK client (PyPI `mcp`) through `toolseal gateway --manifest
#     DIR/toolseal.toml` over stdio: the three servers' tools listed, one honest call to each
#     of memory and time
#     answered by it (the memory lands in the file the reference names), an undeclared
#     key rejected; the canary in none of its output or the gateway's.
# Usage: check_import.sh [WORK_DIR]. WORK_DIR is check_real_servers.sh's (node_modules,
# venv, venv-client); what it lacks is installed there, pinned as in check_real_servers.sh
# and check_gateway.sh, so with no argument it installs the two servers and the client
# into a temporary directory. Each step is bounded (`timeout`). Prints
# `import: N passed, M failed`; exits non-zero on any failure.
set -euo pipefail
repo=$(cd "$(dirname "$0")/.." && pwd)
toolseal=${TOOLSEAL:-$repo/target/debug/toolseal}
[ -x "$toolseal" ] || (cd "$repo" && cargo build --locked -p toolseal-cli)
if [ $# -gt 0 ]; then
  work=$(cd "$1" && pwd)
else
  work=$(mktemp -d)
  trap 'rm -rf "$work"' EXIT
fi
cd "$work"
memory_js="$work/node_modules/@modelcontextprotocol/server-memory/dist/index.js"
brave_js="$work/node_modules/@modelcontextprotocol/server-brave-search/dist/index.js"
if [ ! -f "$memory_js" ] || [ ! -f "$brave_js" ]; then
  [ -f package.json ] || npm init -y >/dev/null
  timeout 600 npm install --no-audit --no-fund --loglevel=error @modelcontextprotocol/server-memory@2026.8.31 @modelcontextprotocol/server-brave-search@0.6.2 >/dev/null
fi
if [ ! -x venv/bin/mcp-server-time ]; then
  python3 -m venv venv && timeout 600 venv/bin/pip install -q --disable-pip-version-check mcp-server-time==2026.10.19
fi
if ! venv-client/bin/python -c 'import mcp' 2>/dev/null; then
  python3 -m venv venv-client && timeout 600 venv-client/bin/pip install -q --disable-pip-version-check mcp==2.3.0
fi

passed=0 failed=0
ok() { passed=$((passed + 1)); echo "import: ok $1"; }
failed() { failed=$((failed + 1)); echo "import: FAILED $1"; }
check() {  # check WHAT COMMAND...
  local what=$1; shift
  if "$@"; then ok "$what"; else failed "$what"; fi
}

imp="$work/import"
rm -rf "$imp"
mkdir -p "$imp/project/.vscode"
canary="canary-import-$$-$RANDOM$RANDOM"
brave_key="BSAcanary$$x$RANDOM$RANDOM"
export IMPORT_MEMORY_FILE="$imp/memory.jsonl"
cat > "$imp/project/.mcp.json" <<JSON
{
  "mcpServers": {
    "memory": {
      "type": "stdio",
      "command": "node",
      "args": ["$memory_js"],
      "env": {"MEMORY_FILE_PATH": "\${IMPORT_MEMORY_FILE}"}
    }
  }
}
JSON
cat > "$imp/project/.vscode/mcp.json" <<JSON
// VS Code's MCP servers: JSON with comments.
{
  "servers": {
    "time": {
      "type": "stdio",
      "command": "$work/venv/bin/mcp-server-time",
      "env": {"TIME_API_TOKEN": "$canary"}, // a token written into the file: the server ignores it
    },
  },
}
JSON
cat > "$imp/project/claude_desktop_config.json" <<JSON
{
  "mcpServers": {
    "brave": {
      "command": "node",
      "args": ["$brave_js"],
      "env": {"BRAVE_API_KEY": "$brave_key"}
    }
  }
}
JSON
check "npm server-brave-search refuses to start without its BRAVE_API_KEY" bash -c '! env -u BRAVE_API_KEY timeout 20 node "$1" < /dev/null > /dev/null 2>&1' _ "$brave_js"
out="$imp/gateway"

# 1. The import.
rc=0
(cd "$imp/project" && timeout 300 "$toolseal" import .mcp.json .vscode/mcp.json claude_desktop_config.json --out "$out" --timeout 120) > "$imp/import.out" 2> "$imp/import.err" || rc=$?
check "\`toolseal import .mcp.json .vscode/mcp.json claude_desktop_config.json --out DIR\` exits 0 (exit $rc)" [ "$rc" -eq 0 ]
[ "$rc" -eq 0 ] || sed 's/^/  | /' "$imp/import.err"
for name in memory time brave; do
  check "DIR/pins/$name.json written" test -s "$out/pins/$name.json"
done
for name in memory time brave; do
  check "DIR/toolseal.toml names $name" grep -qF "name = \"$name\"" "$out/toolseal.toml"
done
check "DIR/toolseal.toml keeps \${IMPORT_MEMORY_FILE} a reference" grep -qF '"MEMORY_FILE_PATH" = "${IMPORT_MEMORY_FILE}"' "$out/toolseal.toml"
check "DIR/secrets.env holds the written tokens, mode 600" \
  bash -c '[ "$(stat -c %a "$1")" = 600 ] && grep -qF "$2" "$1" && grep -qF "$3" "$1"' _ "$out/secrets.env" "$canary" "$brave_key"
no_canary() {
  local file
  for file in "$@"; do
    if grep -qF -e "$canary" -e "$brave_key" "$file"; then echo "  | a canary is in $file"; return 1; fi
  done
}
check "the canary is in no pin, manifest, rewritten configuration or import output" \
  no_canary "$out/toolseal.toml" "$out"/pins/*.json "$imp/import.out" "$imp/import.err" "$imp/project/.mcp.json" "$imp/project/.vscode/mcp.json" "$imp/project/claude_desktop_config.json"
check "each pin lists the tools of the committed capture" python3 - "$out/pins" "$repo/tests/registries/mcp" <<'PY'
import json, sys
pins, committed = sys.argv[1], sys.argv[2]
# What a registry holds of a tool (a listing may carry more, e.g. `execution`).
parts = ("name", "title", "description", "inputSchema", "outputSchema", "annotations")
tools = lambda path: [{k: t.get(k) for k in parts} for t in json.load(open(path))["tools"]]
for name, capture in [("memory", "server-memory"), ("time", "mcp-server-time")]:
    pinned, recorded = tools(f"{pins}/{name}.json"), tools(f"{committed}/{capture}.json")
    if pinned != recorded:
        differ = [p["name"] for p, r in zip(pinned, recorded) if p != r]
        print(f"  | {name}: {[t['name'] for t in pinned]} vs {[t['name'] for t in recorded]}; differing: {differ}")
        sys.exit(1)
PY
check "the configurations start the gateway in place of the servers, backups kept" python3 - "$imp/project" "$toolseal" "$out/toolseal.toml" <<'PY'
import json, os, sys
project, toolseal, manifest = sys.argv[1:]
gateway = {"command": toolseal, "args": ["gateway", "--manifest", manifest]}
for path, key, moved in [(".mcp.json", "mcpServers", "memory"), (".vscode/mcp.json", "servers", "time"), ("claude_desktop_config.json", "mcpServers", "brave")]:
    config = json.load(open(os.path.join(project, path)))
    entry = {k: v for k, v in config[key]["toolseal"].items() if k in gateway}
    if entry != gateway or moved in config[key] or not os.path.exists(os.path.join(project, path + ".toolseal-backup")):
        sys.exit(f"  | {path}: {config}")
PY

# 2. The Python SDK client through the imported gateway, over stdio.
calls='{"brave": null, "time": ["get_current_time", {"timezone": "UTC"}], "memory": ["create_entities", {"entities": [{"name": "toolseal-import-check", "entityType": "check", "observations": ["through the imported gateway"]}]}]}'
rc=0
timeout 300 venv-client/bin/python "$repo/scripts/gateway_clients.py" imported "$toolseal gateway --timeout 120 --manifest $out/toolseal.toml" "$calls" \
  > "$imp/client.out" 2> "$imp/client.err" || rc=$?
cat "$imp/client.out"
passed=$((passed + $(grep -c '^import: ok' "$imp/client.out" || true)))
failed=$((failed + $(grep -c '^import: FAILED' "$imp/client.out" || true)))
check "the Python SDK client session exits 0 (exit $rc)" [ "$rc" -eq 0 ]
[ "$rc" -eq 0 ] || tail -20 "$imp/client.err" | sed 's/^/  | /'
check "the memory server wrote to the file \${IMPORT_MEMORY_FILE} names" grep -qF toolseal-import-check "$IMPORT_MEMORY_FILE"
check "the canary is in none of the client's or the gateway's output" no_canary "$imp/client.out" "$imp/client.err"

echo "import: $passed passed, $failed failed"
[ "$failed" -eq 0 ]
