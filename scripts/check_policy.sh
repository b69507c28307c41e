#!/usr/bin/env bash
# Cedar policies in `toolseal gateway`, with the real filesystem server and the Python
# MCP SDK client (called by scripts/check_real_servers.sh with its work directory, where
# the server and the client are installed):
#  1. `toolseal policy check` on examples/policies: the policies hold (exit 0); the same
#     with a misspelled argument: refused with its file, line and column (exit 1);
#  2. the example's gateway in front of the real server, the Python SDK client calling
#     through it: allowed, denied (H4, the policy's @id and @reason) and confirmed calls,
#     with an elicitation handler that accepts, declines, or is absent; the server's disk
#     holds only what was allowed or confirmed (scripts/gateway_clients.py `policy`);
#  3. the latency of one honest call through the gateway with the policies and without (printed).
set -euo pipefail
repo=$(cd "$(dirname "$0")/.." && pwd)
toolseal=${TOOLSEAL:-$repo/target/debug/toolseal}
work=${1:?usage: check_policy.sh WORK_DIR (prepared by check_real_servers.sh)}
cd "$work"
if ! venv-client/bin/python -c 'import mcp' 2>/dev/null; then
  python3 -m venv venv-client && timeout 600 venv-client/bin/pip install -q --disable-pip-version-check mcp==2.3.0
fi
"$toolseal" policy check --manifest "$repo/examples/policies/toolseal.toml" | sed 's/^/policy: /'
demo="$work/policy-demo"
rm -rf "$demo" policy && mkdir -p "$demo/out" policy/policies
sed "s#/tmp/toolseal-demo#$demo#g" "$repo/examples/policies/policies/files.cedar" > policy/policies/files.cedar
sed -e "s#/tmp/toolseal-demo#$demo#g" -e "s#../../tests/registries#$repo/tests/registries#" \
  -e "s#^command = .*#command = [\"node\", \"$work/node_modules/@modelcontextprotocol/server-filesystem/dist/index.js\", \"$demo\"]#" \
  "$repo/examples/policies/toolseal.toml" > policy/toolseal.toml
sed 's/context.input.path like "\*secret\*"/context.input.pth like "*secret*"/' policy/policies/files.cedar > policy/typo.cedar
sed '/^policies = /d' policy/toolseal.toml > policy/bare.toml
if "$toolseal" policy check --manifest policy/bare.toml --policy policy/typo.cedar > typo.out 2>&1; then
  echo "policy: FAILED a misspelled argument was not refused"; cat typo.out; exit 1
fi
grep -q "typo.cedar:7:10: tools .* declare no argument \`pth\`; did you mean \`path\`?" typo.out || { echo "policy: FAILED the refusal does not name the place and the argument:"; cat typo.out; exit 1; }
sed "s#^#policy: refused: #; s#$work/##" typo.out
venv-client/bin/python "$repo/scripts/gateway_clients.py" policy "$toolseal gateway --manifest $work/policy/toolseal.toml" "$demo"
# The latency of one honest call through the gateway with the example's policies and without
# (the same gateway and server, the Python SDK client over stdio; printed, not asserted).
for manifest in toolseal bare; do
  venv-client/bin/python "$repo/scripts/gateway_clients.py" latency "$manifest" "$toolseal gateway --manifest $work/policy/$manifest.toml" 300 list_allowed_directories '{}'
done > policy-latency.jsonl
python3 - policy-latency.jsonl <<'PY'
import json, sys
rows = {r["name"]: r for r in map(json.loads, open(sys.argv[1]))}
with_, without = rows["toolseal"], rows["bare"]
print(f"policy: latency of one honest list_allowed_directories through the gateway (ms, p50/p99): with the 4 policies {with_['p50_ms']}/{with_['p99_ms']}, without {without['p50_ms']}/{without['p99_ms']}; p50 with/without {with_['p50_ms'] / without['p50_ms']:.2f}x")
PY
echo "policy: passed"
