#!/usr/bin/env bash
# The gateway's hop in one run (cli/benches/hop.rs): the latency a request adds —
# tools/call, prompts/get, resources/read of the standard-library test server
# (tests/servers/tiny_mcp.py) — straight over stdio, through `toolseal gateway` over
# stdio and over Streamable HTTP (2025-06-18 sessions and 2026-07-28 requests), and
# through the HTTP peers installable here: PyPI mcp-proxy and fastmcp's proxy.
# A raw JSON-RPC client (one keep-alive connection over HTTP); rounds interleave the
# targets. Usage: scripts/bench_hop.sh [CALLS] [ROUNDS]   (defaults 2000 and 3)
set -euo pipefail
repo=$(cd "$(dirname "$0")/.." && pwd)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
python3 -m venv "$work/proxy" && "$work/proxy/bin/pip" install -q --disable-pip-version-check mcp-proxy==0.13.0
python3 -m venv "$work/fastmcp" && "$work/fastmcp/bin/pip" install -q --disable-pip-version-check fastmcp==4.1.6
cd "$repo"
cargo bench --locked -p toolseal-cli --bench hop -- --calls "${1:-2000}" --rounds "${2:-3}" \
  --peer "mcp-proxy=$work/proxy/bin/mcp-proxy --port {port} --host 127.0.0.1 --pass-environment -- {server}" \
  --peer "fastmcp-proxy=$work/fastmcp/bin/python $repo/scripts/fastmcp_proxy.py {port} {server}"
