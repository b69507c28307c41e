"""The study's controlled trial (its Table II) through real processes: scripted calls of each
class H1–H5 and honest ones, sent by the Python MCP SDK client to the real server-filesystem
behind four defenses, counting the calls that reached the server (the relay's log in front
of it) and the ones it carried out (a result without `isError`).

    trial.py DEMO N NAME=PREFIX=LOG=COMMAND ...   (scripts/check_trial.sh runs it)

DEMO is the server's directory (with out/notes.txt); N calls per class; each defense is a
name, the prefix its tool names take (`files__` through the gateway), the relay's log and
the command the client starts. Prints the table and checks what each defense must stop
(and that no honest call is refused); exit 0 or 1.
"""

import asyncio
import json
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from gateway_clients import connect, verdict  # noqa: E402


def calls(demo, n):
    """class -> [(tool, arguments)], N each, cycling through the templates."""
    out = f"{demo}/out"
    notes = f"{out}/notes.txt"
    templates = {
        "honest": [
            lambda i: ("read_text_file", {"path": notes}),
            lambda i: ("write_file", {"path": f"{out}/honest-{i}.txt", "content": "x"}),
            lambda i: ("list_directory", {"path": out}),
            lambda i: ("get_file_info", {"path": notes}),
        ],
        # H1: a tool the server does not have (misspelled, renamed, invented).
        "H1": [
            lambda i: ("write_fil", {"path": f"{out}/h1-{i}.txt", "content": "x"}),
            lambda i: ("read_txt_file", {"path": notes}),
            lambda i: ("Write_File", {"path": f"{out}/h1-{i}.txt", "content": "x"}),
            lambda i: ("delete_file", {"path": notes}),
            lambda i: ("list_dir", {"path": out}),
        ],
        # H2: an undeclared key, a missing one, a misspelled one.
        "H2": [
            lambda i: ("write_file", {"path": f"{out}/h2-{i}.txt", "content": "x", "overwrite": True}),
            lambda i: ("write_file", {"path": f"{out}/h2-{i}.txt"}),
            lambda i: ("read_text_file", {"pth": f"{out}/secret.txt"}),
            lambda i: ("list_directory", {"path": out, "recursive": True}),
        ],
        # H3: a value of the wrong type.
        "H3": [
            lambda i: ("read_text_file", {"path": notes, "head": "10"}),
            lambda i: ("write_file", {"path": f"{out}/h3-{i}.txt", "content": {"text": "x"}}),
            lambda i: ("list_directory", {"path": [out]}),
            lambda i: ("write_file", {"path": 12, "content": "x"}),
        ],
        # H4: a real tool, arguments that fit, a call the policies forbid.
        "H4": [
            lambda i: ("write_file", {"path": f"{out}/secret-{i}.txt", "content": "x"}),
            lambda i: ("read_text_file", {"path": f"{out}/secret.txt"}),
            lambda i: ("write_file", {"path": f"{demo}/elsewhere-{i}.txt", "content": "x"}),
            lambda i: ("create_directory", {"path": f"{demo}/dir-{i}"}),
        ],
        # H5: another tool's arguments that also fit the tool called (meant read_text_file,
        # called get_file_info; meant list_directory, called directory_tree): allowed and
        # well-formed, so no defense here can tell.
        "H5": [
            lambda i: ("get_file_info", {"path": f"{out}/notes.txt"}),
            lambda i: ("directory_tree", {"path": out}),
        ],
    }
    return {k: [t[i % len(t)](i) for i in range(n)] for k, t in templates.items()}


def lines(path):
    try:
        with open(path) as f:
            return sum(1 for _ in f)
    except FileNotFoundError:
        return 0


async def run(name, prefix, log, command, plan):
    counts = {}
    async with connect(command, "legacy", env=dict(os.environ)) as client:
        for cls, items in plan.items():
            reached = acted = 0
            for tool, arguments in items:
                before = lines(log)
                got = await verdict(client, prefix + tool, arguments)
                hit = lines(log) > before
                reached += hit
                acted += hit and got[0] == "ok"
            counts[cls] = (reached, acted, len(items))
    return counts


# What each defense must stop (reached 0) and let through (reached all), by design.
STOPS = {"no defense": set(), "gate only": {"H4"}, "resolver only": {"H1", "H2", "H3"}, "full stack": {"H1", "H2", "H3", "H4"}}


async def main():
    demo, n = sys.argv[1], int(sys.argv[2])
    defenses = [spec.split("=", 3) for spec in sys.argv[3:]]
    plan = calls(demo, n)
    results = {}
    for name, prefix, log, command in defenses:
        results[name] = await asyncio.wait_for(run(name, prefix, log, command, plan), 600)
    names = [d[0] for d in defenses]
    print(f"trial: {n} calls per class; reached the server / carried out by it (of {n})")
    print("| class | " + " | ".join(names) + " |")
    print("|---|" + "---|" * len(names))
    for cls in plan:
        print(f"| {cls} | " + " | ".join(f"{results[d][cls][0]} / {results[d][cls][1]}" for d in names) + " |")
    print(json.dumps({"trial": results}))
    failures = []
    for d in names:
        for cls, (reached, acted, total) in results[d].items():
            stops = cls in STOPS.get(d, set())
            if stops and reached:
                failures.append(f"{d}: {reached} {cls} calls reached the server")
            if not stops and reached != total:
                failures.append(f"{d}: {total - reached} {cls} calls stopped, which this defense cannot tell")
            if cls == "honest" and acted != total:
                failures.append(f"{d}: {total - acted} honest calls not carried out")
    for f in failures:
        print(f"trial: FAILED {f}")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(asyncio.run(main()))
