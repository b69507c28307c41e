#!/usr/bin/env bash
# Re-captures tests/registries/mcp/*.json from the MCP reference servers, at the
# pinned versions, over stdio. Needs node/npm and python3; installs into a temp dir.
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
out="$here/tests/registries/mcp"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cd "$work"
npm init -y >/dev/null
npm install --no-audit --no-fund --prefix new @modelcontextprotocol/server-filesystem@2026.8.31 \
  @modelcontextprotocol/server-memory@2026.8.31 @modelcontextprotocol/server-everything@2026.8.31 \
  @modelcontextprotocol/server-sequential-thinking@2026.8.31 >/dev/null
npm install --no-audit --no-fund --prefix old @modelcontextprotocol/server-filesystem@2025.8.21 \
  @modelcontextprotocol/server-github@2025.4.8 >/dev/null
python3 -m venv venv
venv/bin/pip install -q mcp-server-time==2026.10.19 mcp-server-fetch==2026.10.24 mcp-server-git==2026.10.19
mkdir fsroot && git init -q repo && git -C repo -c user.email=ci@example.invalid -c user.name=ci commit -q --allow-empty -m init
cap() { python3 "$here/scripts/capture_mcp.py" "$out/$1.json" -- "${@:2}"; }
cap server-filesystem node new/node_modules/@modelcontextprotocol/server-filesystem/dist/index.js "$work/fsroot"
cap server-filesystem-2025.8.21 node old/node_modules/@modelcontextprotocol/server-filesystem/dist/index.js "$work/fsroot"
cap server-memory node new/node_modules/@modelcontextprotocol/server-memory/dist/index.js
cap server-everything new/node_modules/.bin/mcp-server-everything
cap server-sequential-thinking new/node_modules/.bin/mcp-server-sequential-thinking
cap server-github node old/node_modules/@modelcontextprotocol/server-github/dist/index.js
cap mcp-server-time venv/bin/mcp-server-time
cap mcp-server-fetch venv/bin/mcp-server-fetch
cap mcp-server-git venv/bin/mcp-server-git --repository "$work/repo"
