#!/usr/bin/env bash
# The framework examples (examples/agents) as a user runs them:
#  1. async-openai and genai responses resolved call by call, the answers in their types;
#  2. a rig agent loop over rig's scripted model: the loop goes on after H1 and H2, the
#     honest call runs, the model reads the feedback;
#  3. the rmcp server per function (toolseal's `Parameters`) and guarded whole, driven by
#     the Python MCP SDK client (PyPI mcp 2.3.0, into WORK): scripts/agents_client.py.
# Usage: check_agents.sh [WORK_DIR]; exits non-zero on any failure.
set -euo pipefail
repo=$(cd "$(dirname "$0")/.." && pwd)
work=${1:-$(mktemp -d)}
cd "$repo"
cargo build --locked -q -p agents --bins
bin="${CARGO_TARGET_DIR:-$repo/target}/debug"

out=$("$bin/openai_chat")
grep -q '^call_1 transfer_funds: H2 at /arguments/override$' <<< "$out"
grep -q '^call_2 get_balance: ran: acct-7: 100.00$' <<< "$out"
grep -q '^call_3 wipe_disk: H1 at /name$' <<< "$out"
grep -q '"role": "tool"' <<< "$out"
echo "agents: async-openai: H2 and H1 answered with tool messages, the honest call ran"

out=$("$bin/genai_chat")
grep -q '^call_1 transfer_funds: H3 at /arguments/amount$' <<< "$out"
grep -q '^call_2 get_balance: ran: acct-7: 100.00$' <<< "$out"
grep -q '^call_3 get_balanse: H1 at /name$' <<< "$out"
echo "agents: genai: H3 and H1 answered with tool responses, the honest call ran"

out=$("$bin/rig_agent")
grep -q '^c1 get_balanse (error: true): .*get_balance' <<< "$out"
grep -q '^c2 get_balance (error: true): .*currency' <<< "$out"
grep -q '^c3 get_balance (error: false): acct-7: 100.00$' <<< "$out"
grep -q '^agent: Your balance is 100.00.$' <<< "$out"
echo "agents: rig: the loop went on after H1 and H2, the model read the feedback, the honest call ran"

cd "$work"
if ! venv-client/bin/python -c 'import mcp' 2>/dev/null; then
  python3 -m venv venv-client && timeout 600 venv-client/bin/pip install -q --disable-pip-version-check mcp==2.3.0
fi
venv-client/bin/python "$repo/scripts/agents_client.py" "$bin/rmcp_bank" "$work"
