"""A stdio relay in front of an MCP server, for the controlled trial (scripts/check_trial.sh).

    trial_relay.py --log LOG [--gate POLICIES --prefix SERVER__] -- COMMAND ARG...

Starts COMMAND and passes newline-delimited JSON-RPC both ways unchanged. Every
`tools/call` it forwards is appended to LOG (one JSON line, written before the request
goes on): the record of what reached the server.

With --gate, it is the trial's *gate only* defense — a policy gate that sees calls as the
model wrote them, without a schema, as schema-less MCP gateways do (ToolHive evaluates
Cedar over `arg_<key>` attributes): each `tools/call` is decided by Cedar (PyPI cedarpy)
over the POLICIES file — action `Action::"<prefix><name>"`, principal `User::"alice"`,
resource `Server::"files"`, `context.input` the arguments as sent — and answered here with
an `isError` result when denied (or when Cedar cannot take the request). Policies that fail
to evaluate are skipped, as Cedar skips them; nothing else about the call is checked.
"""

import argparse
import json
import subprocess
import sys
import threading


def gate(policies, prefix):
    import cedarpy

    entities = [
        {"uid": {"__entity": {"type": "User", "id": "alice"}}, "attrs": {"name": "alice", "groups": ["editors"]}, "parents": []},
        {"uid": {"__entity": {"type": "Server", "id": "files"}}, "attrs": {"tier": "first-party"}, "parents": []},
    ]

    def decide(name, arguments):
        request = {
            "principal": 'User::"alice"',
            "action": f"Action::{json.dumps(prefix + name)}",
            "resource": 'Server::"files"',
            "context": {"input": arguments},
        }
        try:
            result = cedarpy.is_authorized(request, policies, entities)
        except Exception as e:  # a context Cedar cannot hold (a float): denied
            return False, f"the gate cannot take the request: {e}"
        return result.allowed, f"denied by the gate ({', '.join(result.diagnostics.reasons) or 'no permit'})"

    return decide


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--log", required=True)
    parser.add_argument("--gate")
    parser.add_argument("--prefix", default="")
    parser.add_argument("command", nargs=argparse.REMAINDER)
    args = parser.parse_args()
    command = args.command[1:] if args.command[:1] == ["--"] else args.command
    decide = gate(open(args.gate).read(), args.prefix) if args.gate else None
    child = subprocess.Popen(command, stdin=subprocess.PIPE, stdout=subprocess.PIPE)
    out = sys.stdout.buffer
    lock = threading.Lock()

    def write(line):
        with lock:
            out.write(line)
            out.flush()

    def pump():
        for line in child.stdout:
            write(line)

    threading.Thread(target=pump, daemon=True).start()
    log = open(args.log, "a", buffering=1)
    for line in sys.stdin.buffer:
        try:
            message = json.loads(line)
        except ValueError:
            message = None
        if isinstance(message, dict) and message.get("method") == "tools/call":
            params = message.get("params") or {}
            name, arguments = params.get("name"), params.get("arguments") or {}
            if decide is not None:
                allowed, why = decide(name, arguments)
                if not allowed:
                    answer = {"jsonrpc": "2.0", "id": message.get("id"), "result": {"content": [{"type": "text", "text": why}], "isError": True}}
                    write((json.dumps(answer) + "\n").encode())
                    continue
            log.write(json.dumps({"name": name, "arguments": arguments}) + "\n")
        child.stdin.write(line)
        child.stdin.flush()
    child.stdin.close()
    child.wait(timeout=10)


if __name__ == "__main__":
    main()
