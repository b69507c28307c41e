#!/usr/bin/env bash
# End to end against the real MCP reference servers (pinned, from npm and PyPI),
# started over stdio by the `toolseal` command:
#  1. `toolseal capture --check` against the committed captures: unchanged;
#  2. a guarded `toolseal host` session with server-filesystem in a temporary
#     directory and mcp-server-git in a temporary repository: honest calls are
#     forwarded and return real results (a file written and read back), and
#     hallucinated calls are rejected before the server (the file a rejected
#     `write_file` names does not exist);
#  3. `toolseal gateway` between real clients and these servers (scripts/check_gateway.sh),
#     `toolseal import` of client configurations naming them (scripts/check_import.sh),
#     Cedar policies deciding calls to server-filesystem (scripts/check_policy.sh), the
#     study's controlled trial over it (scripts/check_trial.sh),
#     and servers that require OAuth (scripts/check_oauth.sh).
# Needs node/npm and python3 (with venv); exits non-zero on any failure.
set -euo pipefail
repo=$(cd "$(dirname "$0")/.." && pwd)
toolseal=${TOOLSEAL:-$repo/target/debug/toolseal}
[ -x "$toolseal" ] || (cd "$repo" && cargo build --locked -p toolseal-cli)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cd "$work"
npm init -y >/dev/null
npm install --no-audit --no-fund --loglevel=error @modelcontextprotocol/server-filesystem@2026.8.31 \
  @modelcontextprotocol/server-memory@2026.8.31 @modelcontextprotocol/server-everything@2026.8.31 >/dev/null
python3 -m venv venv
venv/bin/pip install -q --disable-pip-version-check mcp-server-time==2026.10.19 mcp-server-git==2026.10.19
mkdir fsroot && git init -q repo && git -C repo -c user.email=ci@example.invalid -c user.name=ci commit -q --allow-empty -m init
fs=(node node_modules/@modelcontextprotocol/server-filesystem/dist/index.js "$work/fsroot")
gitsrv=(venv/bin/mcp-server-git --repository "$work/repo")

check() {
  local name=$1; shift
  if "$toolseal" capture --timeout 120 --check "$repo/tests/registries/mcp/$name.json" -- "$@" > check.out; then
    echo "real: $name unchanged ($(head -1 check.out))"
  else
    echo "real: FAILED, $name drifted from its capture:"; cat check.out; exit 1
  fi
}
check server-filesystem "${fs[@]}"
check server-memory node node_modules/@modelcontextprotocol/server-memory/dist/index.js
check server-everything node_modules/.bin/mcp-server-everything
check mcp-server-time venv/bin/mcp-server-time
check mcp-server-git "${gitsrv[@]}"

# A guarded session with server-filesystem.
root="$work/fsroot"
cat > replies.jsonl <<JSONL
{"name":"write_file","arguments":{"path":"$root/hello.txt","content":"written through toolseal"}}
{"type":"message","content":[{"type":"tool_use","id":"toolu_1","name":"read_text_file","input":{"path":"$root/hello.txt"}},{"type":"tool_use","id":"toolu_2","name":"write_file","input":{"path":"$root/evil.txt","content":"x","mode":"0777"}},{"type":"tool_use","id":"toolu_3","name":"delete_file","input":{"path":"$root/hello.txt"}},{"type":"tool_use","id":"toolu_4","name":"read_text_file","input":{"path":"$root/hello.txt","head":"ten"}}]}
JSONL
"$toolseal" host --timeout 120 --registry "$repo/tests/registries/mcp/server-filesystem.json" -- "${fs[@]}" < replies.jsonl > host.out
python3 - "$root" host.out <<'PY'
import json, os, sys
root, out = sys.argv[1], sys.argv[2]
lines = [json.loads(l) for l in open(out)]
got = [(l.get("forwarded"), l.get("class")) for l in lines]
want = [(True, None), (True, None), (False, "H2"), (False, "H1"), (False, "H3")]
assert got == want, f"verdicts {got} != {want}"
text = json.dumps(lines[1]["result"])
assert "written through toolseal" in text, f"the read did not return the written file: {text}"
assert open(os.path.join(root, "hello.txt")).read() == "written through toolseal"
assert not os.path.exists(os.path.join(root, "evil.txt")), "a rejected write reached the server"
assert all(l["result"].get("isError") for l in lines[2:]), "rejections come back as isError results"
print("real: server-filesystem session: 2 calls forwarded with real results, 3 rejected (H2, H1, H3) and never sent; evil.txt does not exist")
PY

# A guarded session with mcp-server-git.
cat > git.jsonl <<JSONL
{"name":"git_status","arguments":{"repo_path":"$work/repo"}}
{"name":"git_status","arguments":{"repo_path":"$work/repo","verbose":true}}
{"name":"git_push","arguments":{"repo_path":"$work/repo"}}
JSONL
"$toolseal" host --timeout 120 --registry "$repo/tests/registries/mcp/mcp-server-git.json" -- "${gitsrv[@]}" < git.jsonl > git.out
python3 - git.out <<'PY'
import json, sys
lines = [json.loads(l) for l in open(sys.argv[1])]
got = [(l.get("forwarded"), l.get("class")) for l in lines]
assert got == [(True, None), (False, "H2"), (False, "H1")], got
assert "branch" in json.dumps(lines[0]["result"]).lower(), lines[0]
print("real: mcp-server-git session: git_status forwarded (real status back), an undeclared key (H2) and an unknown tool (H1) rejected")
PY
# A merged session: three real servers under one manifest, each call routed to one of them.
cat > toolseal.toml <<TOML
tiers = ["first-party", "vetted"]

[[servers]]
name = "filesystem"
tier = "first-party"
registry = "$repo/tests/registries/mcp/server-filesystem.json"
command = ["node", "$work/node_modules/@modelcontextprotocol/server-filesystem/dist/index.js", "$root"]

[[servers]]
name = "git"
tier = "vetted"
registry = "$repo/tests/registries/mcp/mcp-server-git.json"
command = ["$work/venv/bin/mcp-server-git", "--repository", "$work/repo"]

[[servers]]
name = "time"
tier = "vetted"
registry = "$repo/tests/registries/mcp/mcp-server-time.json"
command = ["$work/venv/bin/mcp-server-time"]
TOML
cat > merged.jsonl <<JSONL
{"name":"list_directory","arguments":{"path":"$root"}}
{"name":"git__git_status","arguments":{"repo_path":"$work/repo"}}
{"output":[{"type":"mcp_call","id":"mcp_1","server_label":"time","name":"get_current_time","arguments":"{\"timezone\":\"UTC\"}"},{"type":"mcp_call","id":"mcp_2","server_label":"github","name":"create_issue","arguments":"{}"}]}
{"name":"time__convert_time","arguments":{"source_timezone":"UTC","time":"25:99"}}
JSONL
"$toolseal" host --timeout 120 --manifest toolseal.toml < merged.jsonl > merged.out
python3 - merged.out <<'PY'
import json, sys
lines = [json.loads(l) for l in open(sys.argv[1])]
got = [(l.get("forwarded"), l.get("server"), l.get("class")) for l in lines]
want = [(True, "filesystem", None), (True, "git", None), (True, "time", None), (False, "github", "M1"), (False, "time", "H2")]
assert got == want, got
assert "hello.txt" in json.dumps(lines[0]["result"]), lines[0]
assert all(l["result"].get("isError") for l in lines if not l["forwarded"])
print("real: merged session over filesystem, git and time: 3 calls routed and answered, an unknown server (M1) and a missing argument (H2) rejected")
PY
# `toolseal gateway` between real clients (Python SDK, MCP Inspector) and these servers.
TOOLSEAL="$toolseal" bash "$repo/scripts/check_gateway.sh" "$work"
# `toolseal import` of a Claude Code and a VS Code configuration naming server-memory and
# mcp-server-time, then the Python SDK client through the gateway it wrote.
TOOLSEAL="$toolseal" bash "$repo/scripts/check_import.sh" "$work"
# Cedar policies (examples/policies) in front of server-filesystem, the Python SDK client
# with and without an elicitation handler.
TOOLSEAL="$toolseal" bash "$repo/scripts/check_policy.sh" "$work"
# The study's controlled trial: H1–H5 and honest calls to server-filesystem behind no
# defense, a schema-less Cedar gate, the gateway without policies and with them.
TOOLSEAL="$toolseal" bash "$repo/scripts/check_trial.sh" "$work" 100
# Upstream OAuth: `toolseal login`, `approve` and the gateway against two protected PyPI mcp
# servers and npm oauth2-mock-server (authorization code with PKCE, refresh, client credentials).
bash "$repo/scripts/check_oauth.sh" "$toolseal" "$work"
echo "real: passed"
