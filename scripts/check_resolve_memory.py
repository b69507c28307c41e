#!/usr/bin/env python3
"""`toolseal resolve` handles a million lines without growing memory.

Runs `toolseal resolve --registry examples/transfer_funds/registry/bank.json`
twice, on 10,000 and on 1,000,000 lines of the same mix (an honest call, an
unknown tool, an undeclared key, a value outside its pattern, a line that is
not JSON, an OpenAI chat reply, an Anthropic message with an H3 enum value),
streaming stdin and stdout, and reads each run's peak resident set size from
the kernel (wait4's rusage). Fails unless
every line got the verdict its kind should get and the million-line run peaks
within 25 % (plus 4 MiB) of the ten-thousand-line run.

Usage: scripts/check_resolve_memory.py [TOOLSEAL_BINARY]   (default target/debug/toolseal)
"""
import json
import os
import subprocess
import sys
import threading
import time

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
BINARY = sys.argv[1] if len(sys.argv) > 1 else os.path.join(REPO, "target", "debug", "toolseal")

# (line template, expected verdict or class); {i} is the line's number.
KINDS = [
    ('{{"name":"get_balance","arguments":{{"account_id":"acct-{i}"}}}}', "accept"),
    ('{{"name":"get_balances","arguments":{{"account_id":"acct-{i}"}}}}', "H1"),
    ('{{"name":"transfer_funds","arguments":{{"recipient_id":"acct-{i}","amount":5,"override":true}}}}', "H2"),
    ('{{"name":"get_balance","arguments":{{"account_id":"user-{i}"}}}}', "H3"),
    ('{{"name":"get_balance","arguments":{{"account_id":', "Malformed"),
    ('{{"choices":[{{"message":{{"tool_calls":[{{"id":"call_{i}","type":"function","function":{{"name":"get_balance","arguments":"{{\\"account_id\\":\\"acct-{i}\\"}}"}}}}]}}}}]}}', "accept"),
    ('{{"type":"message","content":[{{"type":"tool_use","id":"toolu_{i}","name":"freeze_account","input":{{"account_id":"acct-{i}","reason":"boredom"}}}}]}}', "H3"),
]


def feed(stdin, lines):
    chunk = []
    for i in range(lines):
        chunk.append(KINDS[i % len(KINDS)][0].format(i=i))
        if len(chunk) == 4096:
            stdin.write(("\n".join(chunk) + "\n").encode())
            chunk = []
    if chunk:
        stdin.write(("\n".join(chunk) + "\n").encode())
    stdin.close()


def run(lines):
    """Peak RSS in KiB, seconds, and the verdict counts of one run."""
    start = time.monotonic()
    proc = subprocess.Popen([BINARY, "resolve", "--registry", "examples/transfer_funds/registry/bank.json"], cwd=REPO, stdin=subprocess.PIPE, stdout=subprocess.PIPE)
    writer = threading.Thread(target=feed, args=(proc.stdin, lines))
    writer.start()
    counts, wrong = {}, 0
    for n, raw in enumerate(proc.stdout, start=1):
        verdict = json.loads(raw)
        got = "accept" if verdict["verdict"] == "accept" else verdict["class"]
        want = KINDS[(verdict["line"] - 1) % len(KINDS)][1]
        wrong += got != want or verdict["line"] != n
        counts[got] = counts.get(got, 0) + 1
    writer.join()
    _, status, usage = os.wait4(proc.pid, 0)
    if os.waitstatus_to_exitcode(status) != 0:
        sys.exit(f"resolve-memory: FAILED, `toolseal resolve` exited with {os.waitstatus_to_exitcode(status)} on {lines} lines")
    if wrong or sum(counts.values()) != lines:
        sys.exit(f"resolve-memory: FAILED, {wrong} wrong verdicts, {sum(counts.values())} verdicts for {lines} lines: {counts}")
    return usage.ru_maxrss, time.monotonic() - start, counts


small_rss, small_s, _ = run(10_000)
large_rss, large_s, counts = run(1_000_000)
print(f"resolve-memory: 10,000 lines peak RSS {small_rss / 1024:.1f} MiB ({small_s:.1f} s); 1,000,000 lines peak RSS {large_rss / 1024:.1f} MiB ({large_s:.1f} s); verdicts {counts}")
print(f"resolve-memory: reproduce with `python3 scripts/check_resolve_memory.py {os.path.relpath(BINARY, REPO)}`")
if large_rss > small_rss * 1.25 + 4096:
    sys.exit(f"resolve-memory: FAILED, memory grew with the input: {large_rss} KiB against {small_rss} KiB")
print("resolve-memory: passed")
