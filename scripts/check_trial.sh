#!/usr/bin/env bash
# The study's controlled trial through real processes (scripts/trial.py says what it
# counts): the real server-filesystem, the Python SDK client, and four defenses in front of
# the server — none (the client straight to the server), a schema-less Cedar gate (the
# example's policies evaluated on the calls as written: scripts/trial_relay.py --gate),
# `toolseal gateway` without policies (the resolver), and with them (the full stack). A
# relay right in front of the server logs every call that reaches it.
# Called by scripts/check_real_servers.sh with its work directory (server and client installed).
set -euo pipefail
repo=$(cd "$(dirname "$0")/.." && pwd)
toolseal=${TOOLSEAL:-$repo/target/debug/toolseal}
work=${1:?usage: check_trial.sh WORK_DIR (prepared by check_real_servers.sh)}
calls=${2:-100}
cd "$work"
if ! venv-client/bin/python -c 'import mcp' 2>/dev/null; then
  python3 -m venv venv-client && timeout 600 venv-client/bin/pip install -q --disable-pip-version-check mcp==2.3.0
fi
venv-client/bin/pip install -q --disable-pip-version-check cedarpy==4.12.2
demo="$work/trial-demo"
rm -rf "$demo" trial && mkdir -p "$demo/out" trial/policies
echo "notes" > "$demo/out/notes.txt"
echo "a secret" > "$demo/out/secret.txt"
sed "s#/tmp/toolseal-demo#$demo#g" "$repo/examples/policies/policies/files.cedar" > trial/policies/files.cedar
python=$work/venv-client/bin/python
# The relay in front of the server, logging to trial/NAME.log (then its extra options).
relay() { echo "$python $repo/scripts/trial_relay.py --log $work/trial/$1.log ${*:2} -- node $work/node_modules/@modelcontextprotocol/server-filesystem/dist/index.js $demo"; }
# The example's deployment with the relay as its server's command (and POLICIES_LINE).
manifest() {
  local words
  words=$(printf '"%s", ' $(relay "$1"))
  sed -e "s#../../tests/registries#$repo/tests/registries#" -e "s#^policies = .*#$2#" \
    -e "s#^command = .*#command = [${words%, }]#" "$repo/examples/policies/toolseal.toml" > "trial/$1.toml"
}
manifest resolver ""
manifest full 'policies = ["policies/*.cedar"]'
"$python" "$repo/scripts/trial.py" "$demo" "$calls" \
  "no defense==$work/trial/none.log=$(relay none)" \
  "gate only==$work/trial/gate.log=$(relay gate "--gate $work/trial/policies/files.cedar --prefix files__")" \
  "resolver only=files__=$work/trial/resolver.log=$toolseal gateway --manifest $work/trial/resolver.toml" \
  "full stack=files__=$work/trial/full.log=$toolseal gateway --manifest $work/trial/full.toml" \
  2> trial/stderr.log | tee trial/table.txt || { echo "trial: FAILED (the processes' stderr follows)"; tail -40 trial/stderr.log; exit 1; }
echo "trial: passed"
