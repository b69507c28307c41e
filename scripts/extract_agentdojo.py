#!/usr/bin/env python3
"""Rebuilds data/agentdojo/ from AgentDojo's committed run logs and its PyPI package.

Inputs (nothing else is read):
  * a git directory holding commit 7ee80b495601259176d0af7585cae17501fcc9a6 of the
    sequrity-ai/agentdojo fork (its runs/<pipeline>/<suite>/<user_task>/<attack>/<task>.json);
  * the `agentdojo` Python package, version 0.1.35, importable by this interpreter
    (each suite's tools and their pydantic parameter models).

Outputs, deterministic (sorted, no timestamps, gzip mtime 0):
  * registries/<suite>.json: {"tools": [{"name", "description", "inputSchema"}]}, the suite's
    tools in the package's order, inputSchema = the parameter model's model_json_schema();
  * runs.jsonl.gz: one JSON line per run file, sorted by path:
    {"pipeline", "model", "defense", "suite", "user_task", "attack", "injection_task",
     "visible": null or the tool names a tool-filter pipeline kept,
     "calls": [{"name", "arguments", "runtime_error"}]}
    where runtime_error is the exception type AgentDojo's own runtime reported for that call
    (null when it ran the call without error, "missing" when the log has no tool message for it).

Usage: extract_agentdojo.py GIT_DIR OUT_DIR [--check]
  --check compares with OUT_DIR instead of writing and exits 1 on any difference.
"""

import gzip
import io
import json
import subprocess
import sys
import tarfile
from pathlib import Path

COMMIT = "7ee80b495601259176d0af7585cae17501fcc9a6"
PACKAGE_VERSION = "0.1.35"
SUITES = ["banking", "slack", "travel", "workspace"]


def defenses():
    from agentdojo.agent_pipeline.agent_pipeline import DEFENSES

    return sorted(DEFENSES, key=len, reverse=True)


def registries():
    """Each suite's tools as a toolseal registry (the same tools in every benchmark version of 0.1.35)."""
    from agentdojo.task_suite.load_suites import get_suites

    suites = get_suites("v1")
    for version in ["v1.1", "v1.1.1", "v1.1.2", "v1.2", "v1.2.1", "v1.2.2"]:
        for name, suite in get_suites(version).items():
            same = [(t.name, t.description, t.parameters.model_json_schema()) for t in suite.tools] == [
                (t.name, t.description, t.parameters.model_json_schema()) for t in suites[name].tools
            ]
            if not same:
                sys.exit(f"suite {name} has other tools in {version}: one registry per suite would be wrong")
    out = {}
    for name in SUITES:
        tools = [
            {"name": t.name, "description": t.description, "inputSchema": t.parameters.model_json_schema()}
            for t in suites[name].tools
        ]
        out[name] = {"tools": tools}
    return out


def text_of(content):
    if content is None:
        return ""
    if isinstance(content, str):
        return content
    return "".join(block.get("content") or block.get("text") or "" for block in content if isinstance(block, dict))


def split_pipeline(pipeline, known):
    for defense in known:
        if pipeline.endswith("-" + defense):
            return pipeline[: -len(defense) - 1], defense
    return pipeline, "none"


def run_record(path, run, tool_names, known):
    _, pipeline, suite, user_task, attack, task_file = path.split("/")
    model, defense = split_pipeline(pipeline, known)
    messages = run.get("messages") or []
    visible = None
    if defense == "tool_filter":
        # OpenAILLMToolFilter keeps every tool whose name occurs in its first assistant reply.
        first = next((m for m in messages if m.get("role") == "assistant"), None)
        said = text_of(first.get("content")) if first else ""
        visible = [name for name in tool_names if name in said]
    calls = []
    pending = []
    for m in messages:
        role = m.get("role")
        if role == "assistant":
            for call in pending:
                calls.append(call)
            pending = []
            for tc in m.get("tool_calls") or []:
                pending.append({"name": tc.get("function"), "arguments": tc.get("args"), "runtime_error": "missing"})
        elif role == "tool" and pending:
            call = pending.pop(0)
            error = m.get("error")
            call["runtime_error"] = None if error is None else str(error).split(":", 1)[0].strip()
            calls.append(call)
    calls.extend(pending)
    return {
        "pipeline": pipeline,
        "model": model,
        "defense": defense,
        "suite": suite,
        "user_task": user_task,
        "attack": attack,
        "injection_task": task_file[: -len(".json")],
        "visible": visible,
        "calls": calls,
    }


def runs(git_dir, tool_names, known):
    archive = subprocess.run(
        ["git", f"--git-dir={git_dir}", "archive", "--format=tar", COMMIT, "runs"],
        check=True,
        capture_output=True,
    ).stdout
    records = []
    with tarfile.open(fileobj=io.BytesIO(archive)) as tar:
        for member in tar:
            if not member.isfile() or not member.name.endswith(".json"):
                continue
            parts = member.name.split("/")
            if len(parts) != 6:
                sys.exit(f"unexpected run path {member.name}")
            run = json.loads(tar.extractfile(member).read())
            records.append(run_record(member.name, run, tool_names[parts[2]], known))
    records.sort(key=lambda r: (r["pipeline"], r["suite"], r["user_task"], r["attack"], r["injection_task"]))
    return records


def dumps(value):
    return json.dumps(value, ensure_ascii=False, sort_keys=False, separators=(",", ":"))


def build():
    import agentdojo  # noqa: F401
    from importlib.metadata import version

    if version("agentdojo") != PACKAGE_VERSION:
        sys.exit(f"agentdojo {version('agentdojo')} is installed; the extract is defined for {PACKAGE_VERSION}")
    files = {}
    regs = registries()
    for suite, registry in regs.items():
        files[f"registries/{suite}.json"] = (json.dumps(registry, ensure_ascii=False, indent=1) + "\n").encode()
    tool_names = {suite: [t["name"] for t in reg["tools"]] for suite, reg in regs.items()}
    lines = "".join(dumps(r) + "\n" for r in runs(sys.argv[1], tool_names, defenses())).encode()
    buffer = io.BytesIO()
    with gzip.GzipFile(filename="", mode="wb", compresslevel=9, fileobj=buffer, mtime=0) as gz:
        gz.write(lines)
    files["runs.jsonl.gz"] = buffer.getvalue()
    return files


def main():
    if len(sys.argv) not in (3, 4) or (len(sys.argv) == 4 and sys.argv[3] != "--check"):
        sys.exit(__doc__)
    out = Path(sys.argv[2])
    files = build()
    if len(sys.argv) == 4:
        differ = [name for name, data in files.items() if not (out / name).is_file() or (out / name).read_bytes() != data]
        for name in differ:
            print(f"differs: {out / name}")
        sys.exit(1 if differ else 0)
    for name, data in files.items():
        (out / name).parent.mkdir(parents=True, exist_ok=True)
        (out / name).write_bytes(data)
        print(f"wrote {out / name} ({len(data)} bytes)")


if __name__ == "__main__":
    main()
