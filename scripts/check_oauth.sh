#!/usr/bin/env bash
# `toolseal` as an OAuth 2.1 client of protected MCP servers, against a real authorization
# server and real resource servers (all on loopback; nothing here is hand-written OAuth):
#  - npm oauth2-mock-server 8.2.3 (scripts/oauth/authorization_server.mjs): JWT access
#    tokens living TOKEN_SECONDS (4), authorization code with PKCE S256, rotated refresh
#    tokens, client credentials for `ci-robot` only, `aud` = the RFC 8707 `resource` asked for;
#  - two servers of PyPI mcp 2.3.0 verifying those tokens with PyJWT against the mock's
#    JWKS (scripts/oauth/protected_server.py): `crm` (scope crm.read) and `batch` (batch.run).
# Then, with a manifest naming both (crm: authorization code; batch: client credentials,
# its secret `${OAUTH_CI_SECRET}`, a canary):
#  1. `toolseal login --manifest M crm`: the address it prints is opened with curl, which
#     follows the mock's redirect once, to toolseal's loopback callback; login exits 0 and
#     the tokens file is mode 600; the mock saw PKCE S256, the scope and the resource;
#  2. `toolseal approve NAME --manifest M` for both (their first pin): each pin
#     lists `whoami` and `add`;
#  3. the Python SDK client through `toolseal gateway` over stdio (scripts/gateway_clients.py
#     `oauth`): whoami answered for toolseal-test (crm) and ci-robot (batch), crm__add 2+3=5,
#     an undeclared key rejected (H2) before the server; past the tokens' lifetime, the same
#     session answered again — the mock issued a refresh_token grant (crm) and a new client
#     credentials grant (batch) meanwhile;
#  4. with the tokens file gone, `toolseal gateway --check` fails, naming `toolseal login`;
#  5. the canary: the client secret and every token the mock issued (its ledger) and the
#     tokens file holds appear in no output, log, pin, audit record or page.
# Usage: check_oauth.sh [TOOLSEAL [WORK_DIR]]: TOOLSEAL defaults to $TOOLSEAL, then
# target/debug/toolseal (built with the `oauth` feature); WORK_DIR (e.g. check_real_servers.sh's)
# gets node_modules and venv-oauth if it lacks them, else a temporary directory is used.
# Each step is bounded (`timeout`). Prints `oauth: ok ...` per check and `oauth: passed`;
# exits non-zero on any failure.
set -euo pipefail
repo=$(cd "$(dirname "$0")/.." && pwd)
toolseal=${1:-${TOOLSEAL:-$repo/target/debug/toolseal}}
toolseal=$(cd "$(dirname "$toolseal")" && pwd)/$(basename "$toolseal")
[ -x "$toolseal" ] || { echo "oauth: FAILED no toolseal binary at $toolseal (usage: check_oauth.sh [TOOLSEAL [WORK_DIR]])"; exit 2; }
"$toolseal" login --help > /dev/null 2>&1 || { echo "oauth: FAILED $toolseal has no \`login\` (built without the oauth feature?)"; exit 2; }
pids=()
if [ $# -gt 1 ]; then
  work=$(cd "$2" && pwd)
  cleanup() { for pid in "${pids[@]}"; do kill "$pid" 2>/dev/null || true; done; }
else
  work=$(mktemp -d)
  cleanup() { for pid in "${pids[@]}"; do kill "$pid" 2>/dev/null || true; done; wait 2>/dev/null || true; rm -rf "$work"; }
fi
trap cleanup EXIT
cd "$work"
if ! grep -qs '"version": "8.2.3"' node_modules/oauth2-mock-server/package.json; then
  [ -f package.json ] || npm init -y >/dev/null
  timeout 600 npm install --no-audit --no-fund --loglevel=error oauth2-mock-server@8.2.3 >/dev/null
fi
if ! venv-oauth/bin/python -c 'import mcp, jwt, cryptography' 2>/dev/null; then
  python3 -m venv venv-oauth && timeout 600 venv-oauth/bin/pip install -q --disable-pip-version-check mcp==2.3.0 'pyjwt[crypto]==2.15.1'
fi
python=$work/venv-oauth/bin/python

passed=0 failed=0
ok() { passed=$((passed + 1)); echo "oauth: ok $1"; }
failed() { failed=$((failed + 1)); echo "oauth: FAILED $1"; }
check() {  # check WHAT COMMAND...
  local what=$1; shift
  if "$@"; then ok "$what"; else failed "$what"; fi
}
show() { for log in "$@"; do [ -s "$log" ] && { echo "  | $log:"; tail -20 "$log" | sed 's/^/  | /'; }; done; return 0; }
finish() {
  if [ "$failed" -eq 0 ]; then echo "oauth: passed ($passed checks)"; else echo "oauth: $passed passed, $failed FAILED"; exit 1; fi
}
free_port() { python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'; }
wait_for() {  # wait_for FILE TEXT PID: until FILE holds TEXT (60 s), while PID lives
  for _ in $(seq 600); do
    grep -qF "$2" "$1" 2>/dev/null && return 0
    kill -0 "$3" 2>/dev/null || return 1
    sleep 0.1
  done
  return 1
}

o=$work/oauth
rm -rf "$o" && mkdir -p "$o/pins" && cd "$o"
export OAUTH_CI_SECRET="canary-oauth-secret-$$-$RANDOM$RANDOM"
export TOKEN_SECONDS=${TOKEN_SECONDS:-4}
as_port=$(free_port) crm_port=$(free_port) batch_port=$(free_port)
issuer=http://127.0.0.1:$as_port crm_url=http://127.0.0.1:$crm_port/mcp batch_url=http://127.0.0.1:$batch_port/mcp

# The authorization server (run from $work, where the mock is installed), then the two
# protected servers, which read its JWKS when they start.
(cd "$work" && OAUTH_TOKEN_LEDGER="$o/issued.jsonl" exec node "$repo/scripts/oauth/authorization_server.mjs" "$as_port") > as.out 2> as.log &
pids+=($!)
wait_for as.out "authorization server ready" "${pids[-1]}" || { echo "oauth: FAILED the authorization server did not start"; show as.log; exit 1; }
for server in "crm $crm_port crm.read" "batch $batch_port batch.run"; do
  set -- $server
  "$python" "$repo/scripts/oauth/protected_server.py" "$1" "$2" "$issuer" --scope "$3" --require-audience > "$1.out" 2> "$1.log" &
  pids+=($!)
  wait_for "$1.out" "protected server $1 ready" "${pids[-1]}" || { echo "oauth: FAILED the protected server $1 did not start"; show "$1.log"; exit 1; }
done
check "the authorization server at $issuer; crm at $crm_url and batch at $batch_url answer 401 with a resource_metadata challenge without a token" \
  bash -c 'for url in "$@"; do curl -s --noproxy "*" -o /dev/null -D - -X POST -H "content-type: application/json" -d "{}" "$url" | grep -qi "^www-authenticate: Bearer .*resource_metadata=" || exit 1; done' _ "$crm_url" "$batch_url"

cat > toolseal.toml <<TOML
tiers = ["vetted"]
oauth_store = "tokens.json"

[[servers]]
name = "crm"
tier = "vetted"
registry = "pins/crm.json"
url = "$crm_url"
oauth = { client_id = "toolseal-test", scopes = ["crm.read"] }

[[servers]]
name = "batch"
tier = "vetted"
registry = "pins/batch.json"
url = "$batch_url"
oauth = { grant = "client_credentials", client_id = "ci-robot", client_secret = "\${OAUTH_CI_SECRET}", scopes = ["batch.run"] }
TOML

# 1. `toolseal login`: a person would open the address; curl follows the mock's redirect
# (no page: it answers at once with the code) to toolseal's loopback callback, once.
timeout 180 "$toolseal" login --manifest toolseal.toml crm > login.out 2> login.err < /dev/null &
login=$!
pids+=($login)
url=""
for _ in $(seq 600); do
  url=$(grep -m1 -o "^  $issuer/authorize?[^[:space:]]*" login.err | sed 's/^  //' || true)
  [ -n "$url" ] && break
  kill -0 "$login" 2>/dev/null || break
  sleep 0.1
done
if [ -z "$url" ]; then
  failed "\`toolseal login\` printed no $issuer/authorize address on a line of its own (60 s)"
  show login.out login.err as.log
  finish
fi
check "\`toolseal login\` says to open the address in a browser, on the line before it" \
  bash -c 'grep -B1 -F "  $1" login.err | head -1 | grep -q "^toolseal: open this address in a browser to authorize crm:"' _ "$url"
callback=$(curl -s --noproxy '*' -o callback.html -w '%{http_code} %{num_redirects} %{url_effective}' -L --max-redirs 1 "$url" || true)
read -r status redirects landed <<< "$callback"
check "the mock redirected once to toolseal's loopback callback, which answered $status (${landed%%\?*})" \
  bash -c '[[ $1 == 2* && $2 == 1 && $3 =~ ^http://(127\.0\.0\.1|localhost|\[::1\]):[0-9]+/ ]]' _ "$status" "$redirects" "${landed%%\?*}"
rc=0
wait "$login" || rc=$?
check "\`toolseal login\` exits 0 (exit $rc) saying it is logged in to crm" \
  bash -c '[ "$1" -eq 0 ] && grep -q "^toolseal: logged in to crm" login.err' _ "$rc"
[ "$rc" -eq 0 ] || show login.out login.err as.log
check "tokens.json written, mode 600" bash -c '[ -f tokens.json ] && [ "$(stat -c %a tokens.json)" = 600 ]'
check "tokens.json keeps crm's tokens under their issuer, then the server's URL" python3 -c '
import json, sys
entries = json.load(open("tokens.json"))
sys.exit(list(entries) != [sys.argv[1]] or list(entries[sys.argv[1]]) != [sys.argv[2]])' "$issuer" "$crm_url"
check "the mock saw toolseal-test ask for crm.read, for resource $crm_url, with PKCE S256" \
  grep -qF "authorize client_id=toolseal-test scope=\"crm.read\" resource=$crm_url code_challenge_method=S256" as.log
check "the mock exchanged the code for toolseal-test (200)" grep -q "token grant_type=authorization_code client_id=toolseal-test .* -> 200" as.log

# The secret and every token value: in the tokens file and the mock's ledger only.
leaks() {  # leaks WHAT: the canary and every token value in no file of $o but those two
  "$python" - "$o" "$1" <<'PY'
import json, os, sys
root, what = sys.argv[1], sys.argv[2]
secret = os.environ["OAUTH_CI_SECRET"]
tokens = set()
def walk(value, key=""):
    if isinstance(value, dict):
        for k, v in value.items():
            walk(v, k)
    elif isinstance(value, list):
        for v in value:
            walk(v, key)
    elif isinstance(value, str) and "token" in key.lower() and len(value) >= 16:
        tokens.add(value)
for line in open(os.path.join(root, "issued.jsonl")) if os.path.exists(os.path.join(root, "issued.jsonl")) else []:
    walk(json.loads(line))
issued = len(tokens)
if os.path.exists(os.path.join(root, "tokens.json")):
    walk(json.load(open(os.path.join(root, "tokens.json"))))
found = []
for folder, _, files in os.walk(root):
    for name in files:
        path = os.path.join(folder, name)
        rel = os.path.relpath(path, root)
        data = open(path, "rb").read().decode("utf-8", "replace")
        if secret in data:
            found.append(f"the client secret in {rel}")
        if rel != "issued.jsonl" and not rel.startswith("tokens.json"):
            hits = sum(t in data for t in tokens)
            if hits:
                found.append(f"{hits} token value(s) in {rel}")
for f in found:
    print(f"  | {f}")
print(f"  | ({what}: {issued} token values issued, {len(tokens)} with the tokens file's, and the secret, looked for)", file=sys.stderr)
sys.exit(1 if found else 0)
PY
}
check "no token value in login's output or the page its callback answered" leaks "after login"

# 2. The pins, over OAuth: crm with the stored (maybe refreshed) tokens, batch by client credentials.
for name in crm batch; do
  rc=0
  timeout 300 "$toolseal" approve "$name" --manifest toolseal.toml > "capture-$name.out" 2> "capture-$name.err" < /dev/null || rc=$?
  check "\`toolseal approve $name --manifest toolseal.toml\` exits 0 (exit $rc)" [ "$rc" -eq 0 ]
  [ "$rc" -eq 0 ] || show "capture-$name.out" "capture-$name.err" "$name.log" as.log
  check "pins/$name.json lists add and whoami" python3 -c 'import json, sys; tools = sorted(t["name"] for t in json.load(open(sys.argv[1]))["tools"]); sys.exit(tools != ["add", "whoami"])' "pins/$name.json"
done

# 3. The gateway over stdio, the Python SDK client; the wait outlives the tokens.
wait_s=$((TOKEN_SECONDS + 3))
mark=$(wc -l < as.log)
rc=0
timeout $((300 + wait_s)) "$python" "$repo/scripts/gateway_clients.py" oauth "$toolseal gateway --timeout 120 --manifest $o/toolseal.toml --audit $o/audit.jsonl" "$wait_s" \
  > client.out 2> client.err < /dev/null || rc=$?
cat client.out
passed=$((passed + $(grep -c '^oauth: ok' client.out || true)))
failed=$((failed + $(grep -c '^oauth: FAILED' client.out || true)))
check "the Python SDK client session exits 0 (exit $rc)" [ "$rc" -eq 0 ]
[ "$rc" -eq 0 ] || show client.err crm.log batch.log as.log
check "crm's server answered add(2, 3) and never saw add(20, 22), the call with the undeclared key" \
  bash -c 'grep -qF "crm: call add(2, 3)" crm.log && ! grep -qF "call add(20, 22)" crm.log'
refreshed=$(tail -n +$((mark + 1)) as.log | grep -c "token grant_type=refresh_token client_id=toolseal-test .* -> 200" || true)
exchanged=$(tail -n +$((mark + 1)) as.log | grep -c "token grant_type=client_credentials client_id=ci-robot .* -> 200" || true)
expired=$(cat crm.log batch.log | grep -c ": expired token" || true)
check "while the gateway ran, crm's tokens were refreshed ($refreshed refresh_token grants) and batch's exchanged anew ($exchanged client_credentials grants); the servers refused $expired expired tokens" \
  [ "$refreshed" -ge 1 -a "$exchanged" -ge 2 ]
check "a client credentials request with another secret is refused by the mock (401 invalid_client)" \
  bash -c '[ "$(curl -s --noproxy "*" -o /dev/null -w %{http_code} -d grant_type=client_credentials -d client_id=ci-robot -d client_secret=wrong "$1/token")" = 401 ]' _ "$issuer"

# 4. No tokens for crm: the gateway says to log in, and does not wait for a browser.
mv tokens.json tokens.json.saved
rc=0
timeout 120 "$toolseal" gateway --check --timeout 60 --manifest toolseal.toml > nologin.out 2> nologin.err < /dev/null || rc=$?
check "without tokens for crm, \`toolseal gateway --check\` fails at once (exit $rc) naming \`toolseal login\`" \
  bash -c '[ "$1" -ne 0 ] && [ "$1" -ne 124 ] && cat nologin.out nologin.err | grep -q "toolseal login"' _ "$rc"
[ "$rc" -ne 0 ] && [ "$rc" -ne 124 ] || show nologin.out nologin.err
mv tokens.json.saved tokens.json

# 5. The canary, over everything written.
check "the client secret and every token value are in no output, log, pin, audit record or page" leaks "at the end"
finish
