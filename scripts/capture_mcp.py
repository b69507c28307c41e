#!/usr/bin/env python3
"""Capture an MCP server's tool listing over stdio, as a toolseal registry file.

Usage: capture_mcp.py OUT.json -- COMMAND [ARGS...]

Starts COMMAND, sends `initialize`, `notifications/initialized`, then
`tools/list` (following `nextCursor`), and writes
{"serverInfo", "protocolVersion", "tools"} with tools sorted by name, pretty
and deterministic. Standard library only; every wait is bounded.
"""
import json
import os
import queue
import subprocess
import sys
import threading

PROTOCOL = "2025-06-18"
TIMEOUT = 60


def main() -> int:
    if len(sys.argv) < 4 or sys.argv[2] != "--":
        print(__doc__, file=sys.stderr)
        return 2
    out, command = sys.argv[1], sys.argv[3:]
    proc = subprocess.Popen(command, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
    lines: "queue.Queue[bytes]" = queue.Queue()
    threading.Thread(target=lambda: [lines.put(l) for l in proc.stdout], daemon=True).start()
    next_id = 0

    def request(method, params):
        nonlocal next_id
        next_id += 1
        msg = {"jsonrpc": "2.0", "id": next_id, "method": method, "params": params}
        proc.stdin.write((json.dumps(msg) + "\n").encode())
        proc.stdin.flush()
        while True:
            try:
                line = lines.get(timeout=TIMEOUT)
            except queue.Empty:
                raise SystemExit(f"capture: no answer to {method} within {TIMEOUT}s from {command}")
            reply = json.loads(line)
            if reply.get("id") == next_id:
                if "error" in reply:
                    raise SystemExit(f"capture: {method} failed: {reply['error']}")
                return reply["result"]

    try:
        init = request("initialize", {
            "protocolVersion": PROTOCOL,
            "capabilities": {},
            "clientInfo": {"name": "toolseal-capture", "version": "0.1.0"},
        })
        proc.stdin.write(b'{"jsonrpc":"2.0","method":"notifications/initialized"}\n')
        proc.stdin.flush()
        tools, cursor = [], None
        while True:
            page = request("tools/list", {"cursor": cursor} if cursor else {})
            tools.extend(page.get("tools", []))
            cursor = page.get("nextCursor")
            if not cursor:
                break
    finally:
        proc.kill()
        proc.wait()
    tools.sort(key=lambda t: t["name"])
    doc = {"serverInfo": init.get("serverInfo", {}), "protocolVersion": init.get("protocolVersion"), "tools": tools}
    with open(out + ".tmp", "w", encoding="utf-8") as f:
        json.dump(doc, f, indent=2, ensure_ascii=False, sort_keys=False)
        f.write("\n")
    os.replace(out + ".tmp", out)
    print(f"captured {len(tools)} tools from {doc['serverInfo'].get('name', command[0])} into {out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
