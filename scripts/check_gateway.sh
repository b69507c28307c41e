#!/usr/bin/env bash
# `toolseal gateway` between real MCP clients and the real reference servers
# (called by scripts/check_real_servers.sh with its work directory, where the
# servers are installed: node_modules and venv):
#  1. the Python MCP SDK client (PyPI `mcp`) over stdio and Streamable HTTP, in both
#     protocol generations (initialize/sessions and 2026-07-28): honest calls answered by
#     the servers, hallucinations (H1-H3, M1-M3, oversized) rejected before any server,
#     progress relayed, a cancelled call leaving the session serving, server-everything's
#     elicitation and sampling answered by the client (in input rounds at 2026-07-28);
#  2. the MCP Inspector in CLI mode (npm) over HTTP: tools, and server-everything's prompts and
#     resources straight and through the gateway, answered alike, made-up ones refused;
#  3. load: 8 HTTP clients x 500 calls, half hallucinated, every call answered once with
#     the right verdict, one audit record each, no hallucinated write on disk;
#  4. `--check` against the pins, and the latency of one honest call: straight to the
#     server, through the gateway (stdio, HTTP), through PyPI mcp-proxy and fastmcp's proxy
#     (HTTP) — printed, not asserted (speed belongs in benchmarks).
set -euo pipefail
repo=$(cd "$(dirname "$0")/.." && pwd)
toolseal=${TOOLSEAL:-$repo/target/debug/toolseal}
work=${1:?usage: check_gateway.sh WORK_DIR (prepared by check_real_servers.sh)}
cd "$work"
npm install --no-audit --no-fund --loglevel=error @modelcontextprotocol/inspector@2.12.0 >/dev/null
python3 -m venv venv-client && venv-client/bin/pip install -q --disable-pip-version-check mcp==2.3.0 fastmcp==4.1.6 h2==4.3.0
python3 -m venv venv-proxy && venv-proxy/bin/pip install -q --disable-pip-version-check mcp-proxy==0.13.0
mkdir -p gw-a gw-b gw-load
git init -q gw-repo && git -C gw-repo -c user.email=ci@example.invalid -c user.name=ci commit -q --allow-empty -m init
export GATEWAY_REPO="$work/gw-repo"
cat > gateway.toml <<TOML
# Two filesystem servers in different tiers (flat names: M3), two time servers in one tier (M2).
tiers = ["first-party", "vetted", "community"]

[[servers]]
name = "fs-a"
tier = "first-party"
registry = "$repo/tests/registries/mcp/server-filesystem.json"
command = ["node", "$work/node_modules/@modelcontextprotocol/server-filesystem/dist/index.js", "$work/gw-a", "$work/gw-load"]

[[servers]]
name = "fs-b"
tier = "community"
registry = "$repo/tests/registries/mcp/server-filesystem.json"
command = ["node", "$work/node_modules/@modelcontextprotocol/server-filesystem/dist/index.js", "$work/gw-b"]

[[servers]]
name = "time-a"
tier = "vetted"
registry = "$repo/tests/registries/mcp/mcp-server-time.json"
command = ["$work/venv/bin/mcp-server-time"]

[[servers]]
name = "time-b"
tier = "vetted"
registry = "$repo/tests/registries/mcp/mcp-server-time.json"
command = ["$work/venv/bin/mcp-server-time"]

[[servers]]
name = "git"
tier = "vetted"
registry = "$repo/tests/registries/mcp/mcp-server-git.json"
command = ["$work/venv/bin/mcp-server-git", "--repository", "$work/gw-repo"]

[[servers]]
name = "memory"
tier = "first-party"
registry = "$repo/tests/registries/mcp/server-memory.json"
command = ["node", "$work/node_modules/@modelcontextprotocol/server-memory/dist/index.js"]

[[servers]]
name = "everything"
tier = "vetted"
registry = "$work/pins/everything.json"
command = ["$work/node_modules/.bin/mcp-server-everything"]
TOML
clients=(venv-client/bin/python "$repo/scripts/gateway_clients.py")

# server-everything lists two more tools (trigger-elicitation-request, trigger-sampling-request) to a client that
# can be asked and can sample, as the gateway can (it relays both): its pin is the gateway's view, made by
# `approve` (its first pin), and it differs from the committed plain-client capture by those tools alone.
rm -rf pins && "$toolseal" approve everything --timeout 120 --manifest gateway.toml 2> approve.err || { echo "gateway: FAILED approve:"; cat approve.err; exit 1; }
venv-client/bin/python - "$work/pins/everything.json" "$repo/tests/registries/mcp/server-everything.json" <<'PY'
import json, sys
gateway, plain = ({t["name"] for t in json.load(open(p))["tools"]} for p in sys.argv[1:])
relayed = {"trigger-elicitation-request", "trigger-sampling-request"}
assert gateway - plain == relayed and plain <= gateway, (sorted(gateway - plain), sorted(plain - gateway))
print(f"gateway: approve pinned server-everything as the gateway sees it: {len(gateway)} tools, the plain capture's {len(plain)} and {', '.join(sorted(relayed))}")
PY

"$toolseal" gateway --check --timeout 120 --manifest gateway.toml > check.out || { echo "gateway: FAILED --check:"; cat check.out; exit 1; }
echo "gateway: --check: $(grep -c 'matches its pin' check.out) servers match their pins"

for mode in legacy 2026-07-28; do
  "${clients[@]}" session "$toolseal gateway --timeout 120 --manifest $work/gateway.toml --audit $work/audit-stdio.jsonl" "$mode" "$work/gw-a"
done
# server-everything's prompts, resources, templates and completions, straight and through the gateway.
"${clients[@]}" offered "$work/node_modules/.bin/mcp-server-everything" "$toolseal gateway --timeout 120 --manifest $work/gateway.toml" everything__

# Streamable HTTP on a free loopback port.
serve_http() {  # serve_http LOG ARGS... ; sets $url and $pid
  local log=$1; shift
  "$@" 2> "$log" &
  pid=$!
  for _ in $(seq 600); do
    url=$(grep -o 'http://[0-9.:]*/mcp' "$log" | head -1 || true)
    [ -n "$url" ] && return 0
    kill -0 "$pid" 2>/dev/null || { echo "gateway: FAILED to serve:"; cat "$log"; exit 1; }
    sleep 0.1
  done
  echo "gateway: FAILED no address after 60 s"; cat "$log"; exit 1
}
serve_http gateway-http.err "$toolseal" gateway --timeout 120 --manifest gateway.toml --http 127.0.0.1:0 --audit audit-http.jsonl
gateway_pid=$pid gateway_url=$url
trap 'kill $gateway_pid 2>/dev/null || true' EXIT
for mode in legacy 2026-07-28; do
  "${clients[@]}" session "$gateway_url" "$mode" "$work/gw-a"
done
"${clients[@]}" offered "$work/node_modules/.bin/mcp-server-everything" "$gateway_url" everything__

# The MCP Inspector, CLI mode.
inspector=(node_modules/.bin/mcp-inspector --cli "$gateway_url" --transport http)
"${inspector[@]}" --method tools/list > inspector-list.json
"${inspector[@]}" --method tools/call --tool-name time-a__get_current_time --tool-arg timezone=UTC > inspector-ok.json
"${inspector[@]}" --method tools/call --tool-name time-a__get_current_time --tool-arg timezone=UTC --tool-arg zzz=1 > inspector-h2.json || true
venv-client/bin/python - <<'PY'
import json
tools = json.load(open("inspector-list.json"))["tools"]
ok = json.load(open("inspector-ok.json"))
h2 = json.load(open("inspector-h2.json"))
assert len(tools) > 60 and all("__" in t["name"] for t in tools), len(tools)
assert not ok.get("isError") and "UTC" in json.dumps(ok), ok
# get_current_time declares an outputSchema: the Feedback comes as a second text block, not structuredContent.
assert h2.get("isError") and "structuredContent" not in h2 and json.loads(h2["content"][1]["text"])["class"] == "H2", h2
print(f"gateway: MCP Inspector CLI over HTTP: {len(tools)} qualified tools, an honest call answered, an undeclared key (H2) rejected")
PY

# The Inspector CLI, straight to server-everything (stdio) and through the gateway (HTTP): every
# prompts/resources list, get and read gives the same answer both ways (names qualified through the
# gateway); what the model or client makes up — a prompt no server lists, an undeclared prompt
# argument, a URI no server lists — the gateway refuses, classified, where the server alone answers or errs.
straight_inspector=(node_modules/.bin/mcp-inspector --cli node_modules/.bin/mcp-server-everything)
mkdir -p inspector
for side in straight gateway; do
  if [ "$side" = straight ]; then run=("${straight_inspector[@]}") p=""; else run=("${inspector[@]}") p="everything__"; fi
  "${run[@]}" --method prompts/list > "inspector/$side-prompts.json"
  "${run[@]}" --method prompts/get --prompt-name "${p}simple-prompt" > "inspector/$side-simple.json"
  "${run[@]}" --method prompts/get --prompt-name "${p}args-prompt" --prompt-args city=Paris state=CA > "inspector/$side-args.json"
  "${run[@]}" --method resources/list > "inspector/$side-resources.json"
  "${run[@]}" --method resources/templates/list > "inspector/$side-templates.json"
  "${run[@]}" --method resources/read --uri demo://resource/static/document/architecture.md > "inspector/$side-read.json"
  "${run[@]}" --method resources/read --uri demo://resource/dynamic/text/1 > "inspector/$side-template-read.json"
  "${run[@]}" --method prompts/get --prompt-name "${p}no-such-prompt" > /dev/null 2> "inspector/$side-h1.err" || true
  "${run[@]}" --method prompts/get --prompt-name "${p}args-prompt" --prompt-args city=Paris country=FR > "inspector/$side-h2.json" 2> "inspector/$side-h2.err" || true
  "${run[@]}" --method resources/read --uri demo://resource/static/document/secrets.md > /dev/null 2> "inspector/$side-m1.err" || true
done
venv-client/bin/python - <<'PY'
import json, re
load = lambda side, what: json.load(open(f"inspector/{side}-{what}.json"))
# A clock time in a dynamic resource says when it was made: not compared.
same = lambda what: re.sub(r"\b\d{1,2}:\d{2}:\d{2}( [AP]M)?", "<time>", json.dumps(load("straight", what))) == re.sub(r"\b\d{1,2}:\d{2}:\d{2}( [AP]M)?", "<time>", json.dumps(load("gateway", what)))
prompts = {p["name"]: p for p in load("straight", "prompts")["prompts"]}
through = {p["name"][len("everything__"):]: {**p, "name": p["name"][len("everything__"):]} for p in load("gateway", "prompts")["prompts"] if p["name"].startswith("everything__")}
assert prompts == through, (sorted(prompts), sorted(through))
for what in ["simple", "args", "read", "template-read"]:
    assert same(what), what
# The gateway lists every connected server's resources: server-everything's are among them, unchanged.
for what, key in [("resources", "resources"), ("templates", "resourceTemplates")]:
    listed = load("gateway", what)[key]
    assert all(r in listed for r in load("straight", what)[key]), what
def error(side, what):
    lines = [l for l in open(f"inspector/{side}-{what}.err") if l.startswith("{")]
    return json.loads(lines[-1])["error"]["message"] if lines else None
assert error("gateway", "h1").startswith("M1 at /params/name"), error("gateway", "h1")
assert error("gateway", "h2").startswith("H2 at /params/arguments/country"), error("gateway", "h2")
assert error("gateway", "m1").startswith("M1 at /params/uri"), error("gateway", "m1")
assert "not found" in (error("straight", "h1") or ""), error("straight", "h1")
straight_h2 = load("straight", "h2")  # the server alone ignores the undeclared argument and answers
assert "Paris" in json.dumps(straight_h2), straight_h2
print(f"gateway: MCP Inspector CLI, straight and through the gateway: {len(prompts)} prompts, {len(load('straight', 'resources')['resources'])} resources, "
      f"{len(load('straight', 'templates')['resourceTemplates'])} templates listed alike, gets and reads answered alike; a made-up prompt (M1), "
      "an undeclared prompt argument (H2, which the server alone ignores) and an unlisted URI (M1) refused by the gateway")
PY

before=$(wc -l < audit-http.jsonl)
"${clients[@]}" load "$gateway_url" "$work/gw-load" 8 500
venv-client/bin/python - "$before" <<'PY'
import json, sys
records = [json.loads(l) for l in open("audit-http.jsonl")][int(sys.argv[1]):]
executed = sum(r["ending"] == "executed" for r in records)
assert len(records) == 4000, len(records)
assert executed == 2000, executed
print(f"gateway: load audit: {len(records)} records, {executed} executed, {len(records) - executed} rejected before any server")
PY

# Latency of one honest call (printed, not asserted): the same mcp-server-time straight, through the gateway, through mcp-proxy.
cat > time.toml <<TOML
tiers = ["vetted"]
[[servers]]
name = "time"
tier = "vetted"
registry = "$repo/tests/registries/mcp/mcp-server-time.json"
command = ["$work/venv/bin/mcp-server-time"]
TOML
serve_http time-http.err "$toolseal" gateway --manifest time.toml --http 127.0.0.1:0
time_pid=$pid time_url=$url
pids=("$gateway_pid" "$time_pid")
trap 'kill "${pids[@]}" 2>/dev/null || true' EXIT
# start_peers TAG COMMAND: PyPI mcp-proxy and fastmcp's create_proxy serving COMMAND over Streamable HTTP;
# sets $proxy_url and $fastmcp_url once both listen.
free_port() { venv-client/bin/python -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'; }
start_peers() {
  local tag=$1 command=$2 port fport
  port=$(free_port) fport=$(free_port)
  venv-proxy/bin/mcp-proxy --port "$port" --host 127.0.0.1 -- "$command" > "proxy-$tag.log" 2>&1 &
  pids+=($!)
  venv-client/bin/python "$repo/scripts/fastmcp_proxy.py" "$fport" "$command" > "fastmcp-$tag.log" 2>&1 &
  pids+=($!)
  for p in "$port" "$fport"; do
    for _ in $(seq 300); do (exec 3<>"/dev/tcp/127.0.0.1/$p") 2>/dev/null && break; sleep 0.1; done
  done
  proxy_url="http://127.0.0.1:$port/mcp" fastmcp_url="http://127.0.0.1:$fport/mcp"
}
start_peers time "$work/venv/bin/mcp-server-time"
n=${GATEWAY_LATENCY_CALLS:-300}
{
  "${clients[@]}" latency direct-stdio "$work/venv/bin/mcp-server-time" "$n"
  "${clients[@]}" latency toolseal-stdio "$toolseal gateway --manifest $work/time.toml" "$n"
  "${clients[@]}" latency toolseal-http "$time_url" "$n"
  "${clients[@]}" latency mcp-proxy-http "$proxy_url" "$n"
  "${clients[@]}" latency fastmcp-proxy-http "$fastmcp_url" "$n"
  "${clients[@]}" keepalive toolseal-http-keepalive "$time_url" "$n"
  "${clients[@]}" keepalive mcp-proxy-http-keepalive "$proxy_url" "$n"
  "${clients[@]}" keepalive toolseal-http2-keepalive "$time_url" "$n" 2
} > latency.jsonl
venv-client/bin/python - <<'PY'
import json
rows = {r["name"]: r for r in map(json.loads, open("latency.jsonl"))}
base = rows["direct-stdio"]
print("gateway: latency of one honest get_current_time (ms; the same server; Python SDK client, or a plain client on one connection: HTTP/1.1 kept alive, HTTP/2 (h2c)):")
print("  | path | p50 | p99 | p50 / direct |")
print("  |---|---:|---:|---:|")
for name, r in rows.items():
    print(f"  | {name} | {r['p50_ms']:.2f} | {r['p99_ms']:.2f} | {r['p50_ms'] / base['p50_ms']:.2f}x |")
for ours, peer in (("toolseal-http", "mcp-proxy-http"), ("toolseal-http", "fastmcp-proxy-http"), ("toolseal-http-keepalive", "mcp-proxy-http-keepalive")):
    print(f"  {ours} / {peer} p50: {rows[ours]['p50_ms'] / rows[peer]['p50_ms']:.2f}x")
PY

# The same for prompts/get and resources/read of server-everything: straight, through the gateway, through the peers.
cat > every.toml <<TOML
tiers = ["vetted"]
[[servers]]
name = "everything"
tier = "vetted"
registry = "$repo/tests/registries/mcp/server-everything.json"
command = ["$work/node_modules/.bin/mcp-server-everything"]
TOML
serve_http every-http.err "$toolseal" gateway --manifest every.toml --http 127.0.0.1:0
pids+=("$pid")
every_url=$url
start_peers everything "$work/node_modules/.bin/mcp-server-everything"
{
  "${clients[@]}" latency-offered direct-stdio "$work/node_modules/.bin/mcp-server-everything" "$n"
  "${clients[@]}" latency-offered toolseal-stdio "$toolseal gateway --manifest $work/every.toml" "$n"
  "${clients[@]}" latency-offered toolseal-http "$every_url" "$n"
  "${clients[@]}" latency-offered mcp-proxy-http "$proxy_url" "$n"
  "${clients[@]}" latency-offered fastmcp-proxy-http "$fastmcp_url" "$n"
} > latency-offered.jsonl
venv-client/bin/python - <<'PY'
import json
rows = [json.loads(l) for l in open("latency-offered.jsonl")]
print("gateway: latency of prompts/get and resources/read of server-everything (ms; Python SDK client):")
print("  | path | method | p50 | p99 | p50 / direct |")
print("  |---|---|---:|---:|---:|")
base = {r["method"]: r for r in rows if r["name"] == "direct-stdio"}
for r in rows:
    print(f"  | {r['name']} | {r['method']} | {r['p50_ms']:.2f} | {r['p99_ms']:.2f} | {r['p50_ms'] / base[r['method']]['p50_ms']:.2f}x |")
PY
echo "gateway: passed"
