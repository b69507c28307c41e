#!/usr/bin/env python3
"""Real MCP clients against `toolseal gateway` (run by scripts/check_gateway.sh).

The official Python MCP SDK (PyPI `mcp`) as the client, the real reference
servers behind the gateway. Subcommands:

  session TARGET MODE ROOT   functional checks over one connection: TARGET is the
                             gateway command (stdio) or its http:// URL; MODE is
                             `legacy` (initialize, sessions) or `2026-07-28`
  load URL ROOT CLIENTS N    CLIENTS concurrent HTTP clients x N calls, half honest,
                             half hallucinated: every call answered once with the
                             right verdict, and no hallucinated write reached the disk
  latency NAME URL N [TOOL ARGUMENTS]
                             p50/p99 of N honest calls to URL (one JSON line): of
                             the tool whose name ends with TOOL (default
                             get_current_time), with ARGUMENTS (JSON)
  latency-offered NAME TARGET N
                             p50/p99 of N `prompts/get` (the prompt whose name ends
                             with simple-prompt) and N `resources/read` (the first
                             listed resource) to TARGET: two JSON lines
  keepalive NAME URL N       the same with a plain keep-alive HTTP/1.1 client (one
                             connection, one POST per call, no SDK): what a
                             response written in pieces costs (Nagle's algorithm
                             against delayed ACKs shows as ~40 ms per call)
  imported TARGET CALLS      the gateway `toolseal import` wrote (run by
                             scripts/check_import.sh): CALLS is JSON,
                             {SERVER: [TOOL, ARGUMENTS] or null}; exactly those servers'
                             tools listed, each one's call answered by it (null: its
                             tools listed, no call: one that calls the internet), an
                             undeclared key rejected; one `import: ok|FAILED` line
                             per check, exit 1 if any failed
  policy TARGET DEMO         the gateway of examples/policies (Cedar policies) in
                             front of the real filesystem server rooted at DEMO (run
                             by scripts/check_policy.sh): allowed, denied (H4 with
                             the policy's @id and @reason) and confirmed calls, with
                             an elicitation handler that accepts, declines, or is
                             absent; what reached the disk checked; prints what the
                             model reads
  oauth TARGET WAIT          the gateway in front of two OAuth-protected servers (run
                             by scripts/check_oauth.sh): `crm` (authorization code,
                             after `toolseal login`) and `batch` (client credentials)
                             answer whoami as toolseal's clients, add through crm, an
                             undeclared key rejected; then, WAIT seconds later (past
                             the tokens' lifetime), the same calls answered again on
                             the same session; one `oauth: ok|FAILED` line per check,
                             exit 1 if any failed

  offered STRAIGHT TARGET PREFIX
                             prompts, resources, templates and completions of the
                             server STRAIGHT (a stdio command) straight and through
                             the gateway TARGET, where its prompts are PREFIX + name:
                             every list, get, read and completion the same both ways,
                             and hallucinated prompts, arguments and URIs refused by
                             the gateway (what the server does with them straight is
                             printed)

Exits non-zero on the first failed check.
"""
import asyncio
import json
import os
import statistics
import sys
import time

import anyio
from mcp import Client
from mcp.client.stdio import StdioServerParameters
from mcp.shared.exceptions import MCPError


def connect(target, mode, env=None, **kw):
    """A client of TARGET; a stdio gateway gets `env` (the SDK's default passes only a few variables)."""
    if target.startswith("http"):
        return Client(target, mode=mode, **kw)
    command, *args = target.split()
    return Client(StdioServerParameters(command=command, args=args, env=env), mode=mode, **kw)


async def verdict(client, name, arguments):
    """("ok", text) | (class, text) for an isError result | ("error", code, class)."""
    try:
        result = await client.call_tool(name, arguments)
    except MCPError as e:
        data = e.error.data if isinstance(e.error.data, dict) else {}
        return ("error", e.error.code, data.get("class"))
    texts = [getattr(c, "text", "") for c in result.content]
    if result.is_error:
        return (feedback_class(result.structured_content, texts) or "isError", texts[0] if texts else "")
    return ("ok", "".join(texts))


def feedback_class(structured, texts):
    """The rejection's class: from `structuredContent`, or — for a tool that declares an
    outputSchema, whose structured results clients check against it — from the Feedback
    sent as a second text block."""
    if structured:
        return structured.get("class")
    if len(texts) > 1:
        try:
            return json.loads(texts[-1]).get("class")
        except ValueError:
            return None
    return None


def expect(got, want, what):
    if got[: len(want)] != want:
        sys.exit(f"gateway: FAILED {what}: got {got!r}, want {want!r}")


async def session(target, mode, root):
    from mcp import types

    progress = []
    asked = []

    async def on_progress(value, total, message):
        progress.append(value)

    async def on_elicit(context, params):
        asked.append(params.message)
        return types.ElicitResult(action="accept", content={"name": "Ada Lovelace"})

    async def on_sample(context, params):
        asked.append("sampling")
        return types.CreateMessageResult(role="assistant", content=types.TextContent(type="text", text="forty-two"), model="check-model")

    async with connect(target, mode, elicitation_callback=on_elicit, sampling_callback=on_sample) as client:
        tools = (await client.list_tools()).tools
        names = [t.name for t in tools]
        for name in ["fs-a__write_file", "fs-b__read_text_file", "time-a__get_current_time", "time-b__get_current_time", "git__git_status", "memory__read_graph", "everything__trigger-long-running-operation"]:
            if name not in names:
                sys.exit(f"gateway: FAILED {name} is not listed: {names}")
        if len(set(names)) != len(names):
            sys.exit("gateway: FAILED the listing has duplicates")
        hello = os.path.join(root, f"hello-{mode}.txt")
        evil = os.path.join(root, f"evil-{mode}.txt")
        expect(await verdict(client, "fs-a__write_file", {"path": hello, "content": "through the gateway"}), ("ok",), "honest write")
        got = await verdict(client, "fs-a__read_text_file", {"path": hello})
        expect(got, ("ok",), "honest read")
        if "through the gateway" not in got[1]:
            sys.exit(f"gateway: FAILED the read did not return the file: {got}")
        expect(await verdict(client, "time-a__get_current_time", {"timezone": "UTC"}), ("ok",), "honest time")
        # The server itself would answer this one as if nothing were wrong.
        expect(await verdict(client, "time-a__get_current_time", {"timezone": "UTC", "zzz": 1}), ("H2",), "undeclared key")
        expect(await verdict(client, "get_current_time", {"timezone": "UTC"}), ("M2",), "same-tier collision")
        expect(await verdict(client, "read_text_file", {"path": hello}), ("M3",), "lower tier shadows a higher one")
        expect(await verdict(client, "fs-a__delete_file", {"path": hello}), ("error", -32602, "M1"), "unknown tool")
        expect(await verdict(client, "fs-a__write_file", {"path": evil, "content": "x", "mode": "0777"}), ("H2",), "undeclared key on a write")
        expect(await verdict(client, "time-a__convert_time", {"source_timezone": "UTC", "time": 1230, "target_timezone": "UTC"}), ("H3",), "wrong type")
        expect(await verdict(client, "git__git_status", {"repo_path": os.environ["GATEWAY_REPO"]}), ("ok",), "honest git")
        expect(await verdict(client, "memory__read_graph", {}), ("ok",), "honest memory")
        too_big = {"path": evil, "content": "x" * (1 << 20)}
        expect(await verdict(client, "fs-a__write_file", too_big), ("Malformed",), "oversized arguments")
        if os.path.exists(evil):
            sys.exit("gateway: FAILED a rejected write reached the server")
        # Progress from the server reaches the client under its own token.
        result = await client.call_tool("everything__trigger-long-running-operation", {"duration": 1, "steps": 4}, progress_callback=on_progress)
        if result.is_error or not progress:
            sys.exit(f"gateway: FAILED progress was not relayed: {progress}, {result}")
        # A call the client gives up on is cancelled; the session goes on.
        with anyio.move_on_after(0.5):
            await client.call_tool("everything__trigger-long-running-operation", {"duration": 30, "steps": 30})
            sys.exit("gateway: FAILED the long operation was not cancelled")
        expect(await verdict(client, "time-b__get_current_time", {"timezone": "Europe/Zurich"}), ("ok",), "a call after a cancellation")
        # The server's own questions during a call reach the client of that call: requests on its
        # session, input rounds at 2026-07-28 (the SDK answers them and sends the call again).
        got = await verdict(client, "everything__trigger-elicitation-request", {})
        if got[0] != "ok" or "Ada Lovelace" not in got[1]:
            sys.exit(f"gateway: FAILED {mode}: the server's elicitation did not come back answered: {got}")
        got = await verdict(client, "everything__trigger-sampling-request", {"prompt": "six times seven?"})
        if got[0] != "ok" or "forty-two" not in got[1]:
            sys.exit(f"gateway: FAILED {mode}: the server's sampling request did not come back answered: {got}")
        if asked != ["Please provide inputs for the following fields:", "sampling"]:
            sys.exit(f"gateway: FAILED {mode}: the client was asked {asked}")
    print(f"gateway: {mode} over {'HTTP' if target.startswith('http') else 'stdio'}: {len(names)} tools listed; honest calls answered by the real servers; H2, M2, M3, M1, H3, oversized rejected before any server; {len(progress)} progress notifications relayed; a cancelled call left the session serving; the server's elicitation and sampling answered by the client{' in input rounds' if mode == '2026-07-28' else ''}")


async def load(url, root, clients, n):
    answers = []

    async def one(c):
        async with connect(url, "legacy") as client:
            for i in range(n):
                k = c * n + i
                if i % 2 == 0:
                    got = await verdict(client, "fs-a__write_file", {"path": os.path.join(root, f"load-{k}.txt"), "content": str(k)})
                    answers.append((k, got[0] == "ok"))
                else:
                    kind = i % 6
                    if kind == 1:
                        got = await verdict(client, "fs-a__write_file", {"path": os.path.join(root, f"bad-{k}.txt"), "content": "x", "append": True})
                        ok = got[0] == "H2"
                    elif kind == 3:
                        got = await verdict(client, "write_file", {"path": os.path.join(root, f"bad-{k}.txt"), "content": "x"})
                        ok = got[0] == "M3"
                    else:
                        got = await verdict(client, "fs-a__write_files", {"path": os.path.join(root, f"bad-{k}.txt")})
                        ok = got[:3] == ("error", -32602, "M1")
                    answers.append((k, ok))

    start = time.perf_counter()
    async with anyio.create_task_group() as group:
        for c in range(clients):
            group.start_soon(one, c)
    elapsed = time.perf_counter() - start
    total = clients * n
    if len(answers) != total or len({k for k, _ in answers}) != total:
        sys.exit(f"gateway: FAILED {len(answers)} answers for {total} calls")
    wrong = [k for k, ok in answers if not ok]
    if wrong:
        sys.exit(f"gateway: FAILED wrong verdicts for calls {wrong[:10]}")
    written = {f for f in os.listdir(root) if f.startswith("load-")}
    bad = [f for f in os.listdir(root) if f.startswith("bad-")]
    if len(written) != total // 2 or bad:
        sys.exit(f"gateway: FAILED {len(written)} honest writes on disk (want {total // 2}), {len(bad)} hallucinated writes reached the server")
    print(f"gateway: load: {clients} HTTP clients x {n} calls = {total} answered, each with its verdict, in {elapsed:.1f} s; {total // 2} honest writes on disk, 0 of {total // 2} hallucinated writes")


async def latency(name, url, n, suffix="get_current_time", arguments=None):
    arguments = {"timezone": "UTC"} if arguments is None else arguments
    async with connect(url, "legacy") as client:
        tool = (await client.list_tools()).tools
        target = next(t.name for t in tool if t.name.endswith(suffix))
        for _ in range(20):
            await client.call_tool(target, arguments)
        samples = []
        for _ in range(n):
            start = time.perf_counter()
            result = await client.call_tool(target, arguments)
            samples.append(time.perf_counter() - start)
            if result.is_error:
                sys.exit(f"gateway: FAILED {name}: {result}")
    samples.sort()
    p50 = statistics.median(samples) * 1e3
    p99 = samples[min(len(samples) - 1, int(len(samples) * 0.99))] * 1e3
    print(json.dumps({"name": name, "calls": n, "p50_ms": round(p50, 3), "p99_ms": round(p99, 3)}))


def percentiles(samples):
    samples = sorted(samples)
    return round(statistics.median(samples) * 1e3, 3), round(samples[min(len(samples) - 1, int(len(samples) * 0.99))] * 1e3, 3)


async def latency_offered(name, target, n):
    async with connect(target, "legacy") as client:
        prompt = next(p.name for p in (await client.list_prompts()).prompts if p.name.endswith("simple-prompt"))
        uri = (await client.list_resources()).resources[0].uri
        for method, request in (("prompts/get", lambda: client.get_prompt(prompt, {})), ("resources/read", lambda: client.read_resource(uri))):
            for _ in range(20):
                await request()
            samples = []
            for _ in range(n):
                start = time.perf_counter()
                await request()
                samples.append(time.perf_counter() - start)
            p50, p99 = percentiles(samples)
            print(json.dumps({"name": name, "method": method, "calls": n, "p50_ms": p50, "p99_ms": p99}))


def http1(parts):
    """POSTs on one kept-alive HTTP/1.1 connection: (status, headers, body) per request."""
    import http.client

    connection = http.client.HTTPConnection(parts.hostname, parts.port, timeout=30)

    def exchange(headers, body):
        connection.request("POST", parts.path, body, headers)
        response = connection.getresponse()
        return response.status, {k.lower(): v for k, v in response.getheaders()}, response.read().decode()

    return exchange


def http2(parts):
    """POSTs on one HTTP/2 connection (cleartext, prior knowledge; PyPI h2), a stream per request."""
    import socket

    import h2.config
    import h2.connection
    import h2.events

    sock = socket.create_connection((parts.hostname, parts.port), timeout=30)
    sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
    conn = h2.connection.H2Connection(config=h2.config.H2Configuration(client_side=True, header_encoding="utf-8"))
    conn.initiate_connection()
    sock.sendall(conn.data_to_send())

    def exchange(headers, body):
        stream = conn.get_next_available_stream_id()
        request = [(":method", "POST"), (":path", parts.path), (":scheme", "http"), (":authority", parts.netloc)] + [(k.lower(), v) for k, v in headers.items()]
        conn.send_headers(stream, request)
        conn.send_data(stream, body.encode(), end_stream=True)
        sock.sendall(conn.data_to_send())
        status, got, data = 0, {}, b""
        while True:
            for event in conn.receive_data(sock.recv(65536)):
                if isinstance(event, h2.events.ResponseReceived) and event.stream_id == stream:
                    got = dict(event.headers)
                    status = int(got.pop(":status"))
                elif isinstance(event, h2.events.DataReceived) and event.stream_id == stream:
                    data += event.data
                    conn.acknowledge_received_data(event.flow_controlled_length, stream)
                elif isinstance(event, h2.events.StreamEnded) and event.stream_id == stream:
                    sock.sendall(conn.data_to_send())
                    return status, got, data.decode()
            sock.sendall(conn.data_to_send())

    return exchange


def keepalive(name, url, n, version="1.1"):
    """One honest call after another on one connection (HTTP/1.1 kept alive, or HTTP/2)."""
    from urllib.parse import urlsplit

    exchange = (http2 if version == "2" else http1)(urlsplit(url))
    headers = {"Content-Type": "application/json", "Accept": "application/json, text/event-stream"}

    def post(message):
        status, got, body = exchange(headers, json.dumps(message))
        if status >= 300:
            sys.exit(f"gateway: FAILED {name}: HTTP {status}: {body[:200]}")
        session = got.get("mcp-session-id")
        if session:
            headers["Mcp-Session-Id"] = session
        if "id" not in message:
            return None
        # A JSON body, or an event stream whose data lines carry the answer.
        lines = [l[5:].strip() for l in body.splitlines() if l.startswith("data:")] if got.get("content-type", "").startswith("text/event-stream") else [body]
        answers = [json.loads(l) for l in lines if l.startswith("{")]
        answer = next((a for a in answers if a.get("id") == message["id"]), None)
        if answer is None or "error" in answer or answer["result"].get("isError"):
            sys.exit(f"gateway: FAILED {name}: {body[:300]}")
        return answer["result"]

    post({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {"protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "keepalive", "version": "1"}}})
    headers["MCP-Protocol-Version"] = "2025-06-18"
    post({"jsonrpc": "2.0", "method": "notifications/initialized"})
    tools = post({"jsonrpc": "2.0", "id": 1, "method": "tools/list"})["tools"]
    target = next(t["name"] for t in tools if t["name"].endswith("get_current_time"))
    samples = []
    for i in range(20 + n):
        start = time.perf_counter()
        post({"jsonrpc": "2.0", "id": 2 + i, "method": "tools/call", "params": {"name": target, "arguments": {"timezone": "UTC"}}})
        if i >= 20:
            samples.append(time.perf_counter() - start)
    samples.sort()
    p50 = statistics.median(samples) * 1e3
    p99 = samples[min(len(samples) - 1, int(len(samples) * 0.99))] * 1e3
    print(json.dumps({"name": name, "calls": n, "p50_ms": round(p50, 3), "p99_ms": round(p99, 3)}))


async def imported(target, calls):
    results = []

    def check(ok, what, detail=""):
        results.append(ok)
        print(f"import: {'ok' if ok else 'FAILED'} {what}{'' if ok else f': {detail}'}", flush=True)

    with anyio.fail_after(300):
        async with connect(target, "legacy", env=dict(os.environ)) as client:
            names = [t.name for t in (await client.list_tools()).tools]
            servers = sorted({n.split("__", 1)[0] for n in names})
            check(servers == sorted(calls), f"the gateway lists the tools of {', '.join(sorted(calls))} and no other", servers)
            for server, call in calls.items():
                listed = [n for n in names if n.startswith(f"{server}__")]
                if call is None:
                    check(bool(listed), f"{server}: {len(listed)} tools listed", names)
                    continue
                tool, arguments = call
                got = await verdict(client, f"{server}__{tool}", arguments)
                check(got[0] == "ok", f"{server}: {len(listed)} tools listed, {server}__{tool} answered by the server", got)
            server, (tool, arguments) = next((s, c) for s, c in calls.items() if c is not None)
            got = await verdict(client, f"{server}__{tool}", {**arguments, "zzz": 1})
            check(got[0] == "H2", f"{server}__{tool} with an undeclared key rejected (H2) before the server", got)
    sys.exit(0 if all(results) else 1)


# Values for a prompt's required arguments (server-everything's prompts), "1" otherwise.
PROMPT_VALUES = {"city": "Paris", "department": "Engineering", "name": "Alice", "resourceType": "Text", "resourceId": "1"}


async def offered(straight_command, target, prefix):
    from mcp.types import PromptReference

    import re

    # A clock time in a result (server-everything's dynamic resources say when they were made) is not compared.
    dump = lambda x: json.loads(re.sub(r"\b\d{1,2}:\d{2}:\d{2}( [AP]M)?", "<time>", json.dumps(x.model_dump(mode="json", exclude_none=True, exclude={"meta", "result_type"}))))
    failures = []

    def check(ok, what, detail=""):
        print(f"offered: {'ok' if ok else 'FAILED'} {what}{'' if ok else f': {detail}'}", flush=True)
        if not ok:
            failures.append(what)

    async def refusal(call):
        try:
            answer = await call
        except MCPError as e:
            data = e.error.data if isinstance(e.error.data, dict) else {}
            return (e.error.code, data.get("class"), e.error.message)
        return ("answered", None, json.dumps(dump(answer))[:160])

    with anyio.fail_after(300):
        async with connect(straight_command, "legacy") as straight, connect(target, "legacy") as gateway:
            s_prompts = {p.name: dump(p) for p in (await straight.list_prompts()).prompts}
            g_prompts = {p.name[len(prefix):]: {**dump(p), "name": p.name[len(prefix):]} for p in (await gateway.list_prompts()).prompts if p.name.startswith(prefix)}
            check(s_prompts == g_prompts, f"prompts/list: the server's {len(s_prompts)} prompts, as {prefix}NAME, the same definitions", (sorted(s_prompts), sorted(g_prompts)))
            for name, prompt in s_prompts.items():
                arguments = {a["name"]: PROMPT_VALUES.get(a["name"], "1") for a in prompt.get("arguments", []) if a.get("required")}
                same = dump(await straight.get_prompt(name, arguments)) == dump(await gateway.get_prompt(prefix + name, arguments))
                check(same, f"prompts/get {prefix}{name} {json.dumps(arguments)}: the same messages")
            s_resources = {r.uri: dump(r) for r in (await straight.list_resources()).resources}
            g_resources = {r.uri: dump(r) for r in (await gateway.list_resources()).resources}
            check(all(g_resources.get(u) == r for u, r in s_resources.items()), f"resources/list: the server's {len(s_resources)} resources, URIs unchanged")
            for uri in s_resources:
                same = dump(await straight.read_resource(uri)) == dump(await gateway.read_resource(uri))
                check(same, f"resources/read {uri}: the same contents")
            s_templates = [dump(t) for t in (await straight.list_resource_templates()).resource_templates]
            g_templates = [dump(t) for t in (await gateway.list_resource_templates()).resource_templates]
            check(all(t in g_templates for t in s_templates), f"resources/templates/list: the server's {len(s_templates)} templates")
            for template in s_templates:
                uri = template["uri_template"].split("{")[0] + "1"
                same = dump(await straight.read_resource(uri)) == dump(await gateway.read_resource(uri))
                check(same, f"resources/read {uri} (template {template['uri_template']}): the same contents")
            completable = next((n for n, p in s_prompts.items() if "completable" in n), None)
            if completable:
                argument = {"name": s_prompts[completable]["arguments"][0]["name"], "value": "E"}
                s_values = (await straight.complete(PromptReference(name=completable), argument)).completion.values
                g_values = (await gateway.complete(PromptReference(name=prefix + completable), argument)).completion.values
                check(s_values == g_values, f"completion/complete {prefix}{completable} {argument['name']}={argument['value']!r}: the same values {g_values}", (s_values, g_values))
            # Hallucinations: refused by the gateway before the server; what the server does with them straight.
            some = next(iter(s_prompts))
            with_args = next((n for n, p in s_prompts.items() if p.get("arguments")), some)
            required = {a["name"]: PROMPT_VALUES.get(a["name"], "1") for a in s_prompts[with_args].get("arguments", []) if a.get("required")}
            a_uri = next(iter(s_resources))
            cases = [
                ("a prompt no server lists", "M1", lambda c, p: c.get_prompt(p + some + "x", {})),
                ("an undeclared prompt argument", "H2", lambda c, p: c.get_prompt(p + with_args, {**required, "country": "FR"})),
                ("a missing required prompt argument", "H2", lambda c, p: c.get_prompt(p + with_args, {})),
                ("a resource URI no server lists", "M1", lambda c, p: c.read_resource(a_uri.rsplit("/", 1)[0] + "/secrets.md")),
            ]
            if completable:
                cases.append(("a completion of an argument the prompt does not declare", "H2", lambda c, p: c.complete(PromptReference(name=p + completable), {"name": "region", "value": "E"})))
            for what, want, make in cases:
                code, got, text = await refusal(make(gateway, prefix))
                shown = await refusal(make(straight, ""))
                straight_says = "answered it" if shown[0] == "answered" else f"answered error {shown[0]}"
                check(got == want, f"{what}: refused {want} ({code}) by the gateway; the server straight {straight_says}", (code, got, text))
    sys.exit(1 if failures else 0)


async def policy(target, demo):
    from mcp import types

    asked = []

    def person(answer):
        async def callback(context, params):
            asked.append(params.message)
            return types.ElicitResult(action=answer, content={} if answer == "accept" else None)

        return callback

    out = os.path.join(demo, "out")
    env = dict(os.environ)

    def show(what, got):
        print(f"policy: {what}: {got[1]}", flush=True)

    def refused(got, prefix, what):
        if got[0] != "isError" or not got[1].startswith(prefix):
            sys.exit(f"policy: FAILED {what}: got {got!r}, want an isError result starting {prefix!r}")

    async def move(target, mode, answer, source, what):
        """A `@confirm` move of out/SOURCE the person answers (accept: to confirmed.txt)."""
        destination = "confirmed.txt" if answer == "accept" else "back.txt"
        async with connect(target, mode, env=env, elicitation_callback=person(answer)) as client:
            got = await verdict(client, "files__move_file", {"source": f"{out}/{source}", "destination": f"{out}/{destination}"})
        if answer == "accept":
            expect(got, ("ok",), f"a move the person {what}")
            print(f"policy: {what}: the person was asked {asked[-1]!r} and accepted", flush=True)
        else:
            refused(got, "H4: files/move_file was not confirmed: the person declined", f"a move the person {what}")
            show(what, got)

    with anyio.fail_after(300):
        async with connect(target, "legacy", env=env, elicitation_callback=person("accept")) as client:
            expect(await verdict(client, "files__write_file", {"path": f"{out}/notes.txt", "content": "allowed"}), ("ok",), "a write the policies allow")
            got = await verdict(client, "files__write_file", {"path": f"{out}/secret.txt", "content": "x"})
            refused(got, "H4: files/write_file is not allowed now: denied by policy `no-secrets`: files named like secrets", "a forbidden write")
            show("denied", got)
            got = await verdict(client, "files__write_file", {"path": f"{demo}/elsewhere.txt", "content": "x"})
            refused(got, "H4: files/write_file is not allowed now: denied by policy `writes-stay-in-out`: writes go under", "a write outside out/")
            got = await verdict(client, "files__read_text_file", {"path": f"{out}/notes.txt", "tail": 1})
            expect(got, ("ok",), "a read with an argument policies cannot see (a number)")
            # Resolution first: an unresolved call never reaches the policies.
            expect(await verdict(client, "files__write_file", {"path": f"{out}/x.txt", "content": "x", "mode": "0777"}), ("H2",), "an undeclared key")
            expect(await verdict(client, "files__delete_file", {"path": f"{out}/notes.txt"}), ("error", -32602, "M1"), "an unknown tool")
            got = await verdict(client, "files__move_file", {"source": f"{out}/notes.txt", "destination": f"{out}/moved.txt"})
            expect(got, ("ok",), "a move the person confirmed")
            print(f"policy: confirmed: the person was asked {asked[-1]!r} and accepted; {got[1]}", flush=True)
        await move(target, "legacy", "decline", "moved.txt", "declined")
        async with connect(target, "legacy", env=env) as client:
            got = await verdict(client, "files__move_file", {"source": f"{out}/moved.txt", "destination": f"{out}/back.txt"})
            refused(got, "H4: files/move_file needs a person to confirm it first, and this client cannot ask", "a move without an elicitation handler")
            show("no handler", got)
        # A 2026-07-28 client has no session to be asked on: the gateway asks in an input round
        # (InputRequired, then the call again with the answer), and the SDK puts it to the person.
        await move(target, "2026-07-28", "accept", "moved.txt", "confirmed in an input round (2026-07-28)")
        await move(target, "2026-07-28", "decline", "confirmed.txt", "declined in an input round (2026-07-28)")
    # What reached the server, on its disk.
    present = sorted(os.listdir(out))
    if present != ["confirmed.txt"] or os.path.exists(os.path.join(demo, "elsewhere.txt")):
        sys.exit(f"policy: FAILED the disk holds {present} (want only confirmed.txt) or a write outside out/")
    print(f"policy: ok: on the server's disk only what was allowed or confirmed ({', '.join(present)}); {len(asked)} confirmations asked", flush=True)


async def oauth(target, wait):
    results = []

    def check(ok, what, detail=""):
        results.append(ok)
        print(f"oauth: {'ok' if ok else 'FAILED'} {what}{'' if ok else f': {detail}'}", flush=True)

    async def calls(when):
        got = await verdict(client, "crm__whoami", {})
        check(got[0] == "ok" and "client_id=toolseal-test " in got[1], f"{when}crm__whoami answered by the server for toolseal's client ({got[1]})", got)
        got = await verdict(client, "batch__whoami", {})
        check(got[0] == "ok" and "client_id=ci-robot " in got[1], f"{when}batch__whoami answered by the server for ci-robot ({got[1]})", got)

    with anyio.fail_after(300 + wait):
        async with connect(target, "legacy", env=dict(os.environ)) as client:
            names = sorted(t.name for t in (await client.list_tools()).tools)
            want = ["batch__add", "batch__whoami", "crm__add", "crm__whoami"]
            check(names == want, f"the gateway lists {', '.join(want)}", names)
            await calls("")
            got = await verdict(client, "crm__add", {"a": 2, "b": 3})
            check(got[:2] == ("ok", "5"), "crm__add {a: 2, b: 3} answered 5 by the server", got)
            # The server would answer it (its arguments model drops unknown keys); its log
            # shows that add(20, 22) never reached it.
            got = await verdict(client, "crm__add", {"a": 20, "b": 22, "zzz": 1})
            check(got[0] == "H2", "crm__add with an undeclared key rejected (H2) before the server", got)
            print(f"oauth: waiting {wait:g} s, past the tokens' lifetime", flush=True)
            await anyio.sleep(wait)
            await calls(f"{wait:g} s later, on the same session: ")
            got = await verdict(client, "crm__add", {"a": 40, "b": 2})
            check(got[:2] == ("ok", "42"), f"{wait:g} s later: crm__add {{a: 40, b: 2}} answered 42", got)
    sys.exit(0 if all(results) else 1)


def main():
    command = sys.argv[1]
    if command == "session":
        asyncio.run(session(sys.argv[2], sys.argv[3], sys.argv[4]))
    elif command == "load":
        asyncio.run(load(sys.argv[2], sys.argv[3], int(sys.argv[4]), int(sys.argv[5])))
    elif command == "latency":
        tool = sys.argv[5:] and (sys.argv[5], json.loads(sys.argv[6]))
        asyncio.run(latency(sys.argv[2], sys.argv[3], int(sys.argv[4]), *(tool or ())))
    elif command == "latency-offered":
        asyncio.run(latency_offered(sys.argv[2], sys.argv[3], int(sys.argv[4])))
    elif command == "keepalive":
        keepalive(sys.argv[2], sys.argv[3], int(sys.argv[4]), *sys.argv[5:6])
    elif command == "imported":
        asyncio.run(imported(sys.argv[2], json.loads(sys.argv[3])))
    elif command == "offered":
        asyncio.run(offered(sys.argv[2], sys.argv[3], sys.argv[4]))
    elif command == "policy":
        asyncio.run(policy(sys.argv[2], sys.argv[3]))
    elif command == "oauth":
        asyncio.run(oauth(sys.argv[2], float(sys.argv[3])))
    else:
        sys.exit(__doc__)


if __name__ == "__main__":
    main()
