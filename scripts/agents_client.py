"""The Python MCP SDK client (mcp 2.3.0) against examples/agents' rmcp server
(`rmcp_bank`), per function and guarded whole: honest calls run, H2 and H3 come
back as `isError` results carrying toolseal's feedback, an unknown tool is a
JSON-RPC error, and the server's functions ran for the honest calls only (the
`BANK_RUNS` file). Usage: agents_client.py SERVER_BINARY WORK_DIR; prints one
`agents: ...` line per mode, exits non-zero on any difference."""

import asyncio
import os
import sys

from mcp import Client
from mcp.client.stdio import StdioServerParameters
from mcp.shared.exceptions import MCPError

CALLS = [
    ("transfer_funds", {"recipient_id": "acct-7", "amount": 25}, "ok", "sent 25 EUR to acct-7"),
    ("transfer_funds", {"recipient_id": "acct-7", "amount": 25, "override": True}, "H2", "override"),
    ("transfer_funds", {"recipient_id": "acct-7", "amount": 50000}, "H3", "10000"),
    ("get_balance", {"account_id": "../../etc/passwd"}, "H3", "^acct-[0-9]{1,12}$"),
    ("get_balance", {"account_id": "acct-7"}, "ok", "acct-7: 100.00"),
    ("delete_account", {"account_id": "acct-7"}, "error", None),
]


async def session(binary, guarded, runs):
    args = ["--guarded"] if guarded else []
    env = dict(os.environ, BANK_RUNS=runs)
    seen = []
    async with Client(StdioServerParameters(command=binary, args=args, env=env)) as client:
        listed = {t.name: t.input_schema for t in (await client.list_tools()).tools}
        assert set(listed) == {"transfer_funds", "get_balance", "list_transactions", "freeze_account"}, listed
        # The schema the extractor enforces: closed, the amount's maximum (in its named type).
        schema = listed["transfer_funds"]
        amount = schema["properties"]["amount"]
        if "$ref" in amount:
            amount = schema["$defs"][amount["$ref"].rsplit("/", 1)[-1]]
        assert schema.get("additionalProperties") is False and amount.get("maximum") == 10000, schema
        for name, arguments, want, needle in CALLS:
            try:
                result = await client.call_tool(name, arguments)
            except MCPError as e:
                seen.append(("error", e.error.code, e.error.message))
                continue
            text = "".join(getattr(c, "text", "") for c in result.content)
            if not result.is_error:
                seen.append(("ok", text))
            elif guarded:
                seen.append(((result.structured_content or {}).get("class"), text))
            else:
                seen.append(("isError", text))
    return seen


def check(binary, work, guarded):
    mode = "guarded" if guarded else "per function"
    runs = os.path.join(work, f"runs-{'guarded' if guarded else 'function'}.txt")
    if os.path.exists(runs):
        os.remove(runs)
    seen = asyncio.run(session(binary, guarded, runs))
    assert len(seen) == len(CALLS), f"{mode}: {len(seen)} answers to {len(CALLS)} calls"
    for (name, _, want, needle), got in zip(CALLS, seen):
        if want == "ok":
            assert got == ("ok", needle), f"{mode}: {name}: {got}"
        elif want == "error":
            assert got[0] == "error" and got[1] == -32602, f"{mode}: {name}: {got}"
            if guarded:
                assert "did you mean" in got[2], f"{mode}: the closest names: {got}"
        else:
            # Per function the class is in the text rmcp writes; guarded it is structured.
            assert got[0] == (want if guarded else "isError"), f"{mode}: {name}: {got}"
            assert needle in got[1], f"{mode}: {name}: {needle!r} not in {got[1]!r}"
            if not guarded:
                assert got[1].startswith("failed to deserialize parameters: "), got
    ran = open(runs).read().split() if os.path.exists(runs) else []
    assert ran == ["transfer_funds", "get_balance"], f"{mode}: the functions ran for {ran}"
    print(f"agents: rmcp server {mode}: 2 honest calls ran, H2 and 2 H3 answered isError with the feedback, H1 an error; the functions ran {len(ran)} times")


if __name__ == "__main__":
    binary, work = sys.argv[1], sys.argv[2]
    check(binary, work, guarded=False)
    check(binary, work, guarded=True)
