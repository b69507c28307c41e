"""toolseal's Cedar schema beside cedar-for-agents' MCP schema generator (PyPI
cedar-policy-mcp-schema-generator), argument by argument, over the captured listings.

Usage: python3 check_cedar_schema.py LISTING.json OURS.json [LISTING.json OURS.json ...]
(OURS.json: `cargo run -p toolseal-policy --example schema_of -- s=LISTING.json`; this
interpreter must have the generator installed; scripts/check_cedar_schema.sh does both).

Every argument both generators type must have the same Cedar type and optionality (a
failure otherwise); an argument one of them leaves out is listed with what the other
made of it, so the README's table of differences comes from this run. Exit 0 or 1.
"""

import json
import sys

from cedar_mcp_schema_generator import generate_schema

STUB = 'namespace Deployment {\n  @mcp_principal("User")\n  entity User;\n  @mcp_resource("Server")\n  entity Server;\n}\n'


def common_types(schema):
    """Every common type by its qualified name; entity types as ('Entity', name, enum or None)."""
    types = {}
    for namespace, body in schema.items():
        for name, ty in body.get("commonTypes", {}).items():
            types[f"{namespace}::{name}" if namespace else name] = (namespace, ty)
        for name, ty in body.get("entityTypes", {}).items():
            types[f"{namespace}::{name}" if namespace else name] = (namespace, {"type": "__entity", "name": name, "enum": ty.get("enum")})
    return types


def alike(a, b):
    """'same', 'enum' (the same but for strings that are an enumerated entity type in b), or None."""
    if a == b:
        return "same"
    if a == "String" and isinstance(b, tuple) and b[0] == "Enum":
        return "enum"
    if isinstance(a, tuple) and isinstance(b, tuple) and a[0] == b[0] == "Set":
        return alike(a[1], b[1])
    if isinstance(a, tuple) and isinstance(b, tuple) and a[0] == b[0] == "Record" and set(a[1]) == set(b[1]):
        verdicts = [alike(a[1][k][1], b[1][k][1]) if a[1][k][0] == b[1][k][0] else None for k in a[1]]
        return None if None in verdicts else ("enum" if "enum" in verdicts else "same")
    return None


def normal(ty, namespace, types, depth=0):
    """A type as a comparable value: 'String', 'Long', 'Bool', ('Set', t), ('Record', {k: (required, t)}),
    or ('Other', text) for what has no counterpart (entities, extensions)."""
    if depth > 20:
        return ("Other", "recursive")
    kind = ty.get("type")
    if kind == "__entity":
        return ("Enum", tuple(ty["enum"])) if ty.get("enum") else ("Other", f"entity {ty['name']} (no attributes)")
    if kind in ("EntityOrCommon", "Entity") or kind not in ("String", "Long", "Boolean", "Set", "Record", "Extension"):
        name = ty.get("name", kind)
        if name in ("String", "Long", "Bool", "Boolean"):
            return {"Bool": "Bool", "Boolean": "Bool"}.get(name, name)
        for candidate in (f"{namespace}::{name}" if namespace else name, name):
            if candidate in types:
                ns, target = types[candidate]
                return normal(target, ns, types, depth + 1)
        return ("Other", f"entity or type {name}")
    if kind == "Boolean":
        return "Bool"
    if kind in ("String", "Long"):
        return kind
    if kind == "Set":
        return ("Set", normal(ty["element"], namespace, types, depth + 1))
    if kind == "Record":
        return ("Record", {k: (v.get("required", True), normal(v, namespace, types, depth + 1)) for k, v in ty.get("attributes", {}).items()})
    return ("Other", f"extension {ty.get('name')}")


def show(t):
    if isinstance(t, tuple) and t[0] == "Enum":
        return "enum entity " + "|".join(t[1])
    if isinstance(t, str):
        return t
    if t[0] == "Set":
        return f"Set<{show(t[1])}>"
    if t[0] == "Record":
        return "{" + ", ".join(f"{k}{'' if r else '?'}: {show(v)}" for k, (r, v) in sorted(t[1].items())) + "}"
    return t[1]


def inputs(schema, prefix=""):
    """Action (tool name, without `prefix`) -> its context.input attributes, normalized."""
    types = common_types(schema)
    out = {}
    for namespace, body in schema.items():
        for action, spec in body.get("actions", {}).items():
            context = normal(spec["appliesTo"].get("context", {"type": "Record", "attributes": {}}), namespace, types)
            attributes = context[1] if context[0] == "Record" else {}
            given = attributes.get("input", (True, ("Record", {})))[1]
            out[action.removeprefix(prefix)] = given[1] if given[0] == "Record" else {}
    return out


def compare(listing, ours_path):
    tools = json.load(open(listing))["tools"]
    theirs = generate_schema(STUB, tools, config={"objectsAsRecords": True})
    if not theirs["isOk"]:
        return 0, [], [], [], [theirs["error"]]
    theirs = inputs(json.loads(theirs["schemaJson"]))
    ours = inputs(json.load(open(ours_path)), "s__")
    same, enums, differences, failures = 0, [], [], []
    for tool in tools:
        name = tool["name"]
        mine, their = ours.get(name), theirs.get(name)
        if mine is None or their is None:
            failures.append(f"{name}: an action in {'theirs' if mine is None else 'ours'} only")
            continue
        for key in sorted(set(mine) | set(their)):
            a, b = mine.get(key), their.get(key)
            if a is not None and b is not None:
                verdict = alike(a[1], b[1]) if a[0] == b[0] else None
                if verdict == "same":
                    same += 1
                elif verdict == "enum":
                    enums.append(f"{name}.{key}")
                else:
                    failures.append(f"{name}.{key}: toolseal {show(a[1])}{'' if a[0] else ' (optional)'}, generator {show(b[1])}{'' if b[0] else ' (optional)'}")
            elif a is None:
                differences.append((name, key, "left out", show(b[1])))
            else:
                differences.append((name, key, show(a[1]), "left out"))
    return same, enums, differences, failures, []


def main():
    arguments = sys.argv[1:]
    total_same, all_enums, all_differences, all_failures, refused = 0, [], [], [], []
    for listing, ours in zip(arguments[0::2], arguments[1::2]):
        same, enums, differences, failures, refusals = compare(listing, ours)
        short = listing.rsplit("/", 1)[-1]
        if refusals:
            print(f"{short}: the generator refused the listing ({'; '.join(refusals)})")
            refused.append(short)
            continue
        print(f"{short}: {same} arguments typed alike, {len(enums)} string enums, {len(differences)} typed by one generator only, {len(failures)} typed differently")
        total_same += same
        all_enums += [f"{short}: {e}" for e in enums]
        all_differences += [(short, *d) for d in differences]
        all_failures += [f"{short}: {f}" for f in failures]
    print(f"\nString enums (a String here, an enumerated entity type there; the same values): {len(all_enums)}")
    print(f"\nArguments one generator types and the other leaves out ({len(all_differences)}):")
    print("| listing | tool.argument | toolseal | cedar-policy-mcp-schema-generator |\n|---|---|---|---|")
    for listing, tool, key, mine, theirs in all_differences:
        print(f"| {listing} | {tool}.{key} | {mine} | {theirs} |")
    for failure in all_failures:
        print(f"DIFFERENT: {failure}")
    print(f"\n{total_same} arguments typed alike, {len(all_enums)} string enums, {len(all_differences)} typed by one only, {len(all_failures)} typed differently; listings the generator refused: {', '.join(refused) or 'none'}")
    return 1 if all_failures or total_same < 100 else 0


if __name__ == "__main__":
    sys.exit(main())
