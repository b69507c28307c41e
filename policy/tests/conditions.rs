//! The gate's compiled conditions against Cedar's evaluator: every kind of
//! expression the compiled form covers (and one it leaves to Cedar), each in a
//! permit, a forbid and an `unless`, over generated calls — every verdict (the
//! decision, its reason and the determining policies) the same, and the same again
//! when Cedar is given every policy of the action rather than those pre-selected by scope.

use serde_json::{Map, Value, json};
use toolseal_policy::{Policies, PolicyFile, PolicyGate, PolicySchema, Principal, Tool};

/// Conditions on `files__write` calls.
const ON_WRITES: [&str; 17] = [
    r#"context.input.path like "*secret*""#,
    r#"context.input.path like "/srv/*/out\**""#,
    r#"context.input.path like "*ï*""#,
    r#"context.input.path == "/etc/passwd""#,
    "context has input.n && context.input.n > 10",
    "context.input has n && (context.input.n * 1000000000000 > 7 || context.input.n - 1 < -100)",
    "context.input has n && -context.input.n <= 0",
    "principal.groups.containsAny(context.input.tags)",
    r#"context.input.tags.containsAll(["a", "b"])"#,
    "context.input.tags.isEmpty()",
    r#"context.input.tags == ["b", "a"]"#,
    r#"context.input.flag && !(principal == User::"alice")"#,
    r#"context.input.opts.mode == "fast" && (if context.input.opts has depth then context.input.opts.depth >= 3 else true)"#,
    r#"{mode: context.input.opts.mode} == {mode: "slow"}"#,
    r#"context.input.opts has depth && context.input.opts.depth + 9223372036854775800 > 0"#,
    "context.input has n && [1, 2, 3].contains(context.input.n)",
    // An extension function: left to Cedar.
    r#"ip("127.0.0.1").isLoopback() && context.input.path like "*x*""#,
];

/// Conditions on any call.
const ON_ANY: [&str; 6] = [
    r#"principal.groups.contains("admins")"#,
    r#"resource.tier == "vetted" || (resource == Server::"files" && principal.name == "bob")"#,
    r#"action in [Action::"git__commit"]"#,
    r#"principal is User in User::"ci""#,
    r#"principal.name like "a*""#,
    r#"action == Action::"git__commit" && resource has tier"#,
];

fn schema() -> PolicySchema {
    let write = json!({"type": "object", "properties": {
        "path": {"type": "string"}, "n": {"type": "integer"}, "flag": {"type": "boolean"},
        "tags": {"type": "array", "items": {"type": "string"}},
        "opts": {"type": "object", "properties": {"mode": {"type": "string"}, "depth": {"type": "integer"}}, "required": ["mode"]},
        "ratio": {"type": "number"}},
        "required": ["path", "flag", "tags", "opts"]});
    let commit = json!({"type": "object", "properties": {"message": {"type": "string"}}, "required": ["message"]});
    PolicySchema::new([
        Tool { action: "files__write", server: "files", tier: "first-party", input_schema: &write },
        Tool { action: "git__commit", server: "git", tier: "vetted", input_schema: &commit },
    ])
    .expect("a schema")
}

/// A small deterministic generator (no dependency, the same calls every run).
struct Rng(u64);

impl Rng {
    fn pick<'a, T>(&mut self, items: &'a [T]) -> &'a T {
        self.0 = self.0.wrapping_mul(6_364_136_223_846_793_005).wrapping_add(1_442_695_040_888_963_407);
        &items[(self.0 >> 33) as usize % items.len()]
    }
}

fn write_call(rng: &mut Rng) -> Value {
    let path = *rng.pick(&["/srv/a/out*x", "/srv/a/outx", "/etc/passwd", "/home/secret/k", "", "naïve.txt", "secret", "/srv/out*"]);
    let tags: Vec<&str> = (0..*rng.pick(&[0, 1, 2, 3])).map(|_| *rng.pick(&["a", "b", "admins", "readers"])).collect();
    let mut opts = Map::new();
    opts.insert("mode".into(), json!(rng.pick(&["fast", "slow", ""])));
    if let Some(depth) = rng.pick(&[None, Some(json!(2)), Some(json!(3)), Some(json!(i64::MAX)), Some(json!(-5))]) {
        opts.insert("depth".into(), depth.clone());
    }
    let mut call = json!({"path": path, "flag": rng.pick(&[true, false]), "tags": tags, "opts": opts, "ratio": 0.5});
    if let Some(n) = rng.pick(&[None, Some(json!(0)), Some(json!(-200)), Some(json!(11)), Some(json!(10)), Some(json!(3.0)), Some(json!(i64::MIN)), Some(json!(1e30)), Some(json!(2))]) {
        call["n"] = n.clone();
    }
    call
}

fn gate(text: &str) -> PolicyGate {
    let schema = schema();
    let file = PolicyFile { path: "policies/conditions.cedar".into(), text: text.into() };
    let policies = Policies::load(&schema, &[file]).unwrap_or_else(|e| panic!("{text}\n{e}"));
    let principals = [
        Principal { name: "alice".into(), groups: vec!["admins".into()] },
        Principal { name: "ci".into(), groups: vec!["readers".into(), "a".into()] },
        Principal { name: "bob".into(), groups: vec![] },
    ];
    PolicyGate::new(schema, policies, &principals).expect("a gate")
}

/// Every condition alone as a forbid (beside a permit for everyone), as a permit, as an
/// `unless`, and all of them together, over the same generated calls.
fn policy_sets() -> Vec<String> {
    let scoped = |condition: &str, on_writes: bool| {
        let action = if on_writes { r#"action == Action::"files__write""# } else { "action" };
        [
            format!("@id(\"all\") permit(principal, action, resource);\n@id(\"no\") @reason(\"r\") forbid(principal, {action}, resource) when {{ {condition} }};"),
            format!("@id(\"yes\") @confirm(\"sure?\") permit(principal, {action}, resource) when {{ {condition} }};"),
            format!("@id(\"unless\") permit(principal, {action}, resource) unless {{ {condition} }};"),
        ]
    };
    let mut sets: Vec<String> = ON_WRITES.iter().flat_map(|c| scoped(c, true)).chain(ON_ANY.iter().flat_map(|c| scoped(c, false))).collect();
    let mut all = String::from("permit(principal, action, resource);\n");
    for (i, condition) in ON_WRITES.iter().enumerate() {
        all += &format!("@id(\"w{i}\") forbid(principal, action == Action::\"files__write\", resource) when {{ {condition} }};\n");
    }
    for (i, condition) in ON_ANY.iter().enumerate() {
        all += &format!("@id(\"a{i}\") forbid(principal, action, resource) when {{ {condition} }};\n");
    }
    sets.push(all);
    // Scopes the gate pre-selects by: a principal, a server, a type and an ancestor.
    sets.push(
        r#"@id("all") permit(principal, action, resource);
@id("ci-no") forbid(principal == User::"ci", action, resource) when { context has input };
@id("git-bob") forbid(principal, action, resource == Server::"git") when { principal.name == "bob" };
@id("alice-flag") forbid(principal is User in User::"alice", action == Action::"files__write", resource is Server) when { context.input.flag };"#
            .to_owned(),
    );
    sets
}

#[test]
fn compiled_conditions_decide_as_cedar_does() {
    let mut rng = Rng(7);
    let calls: Vec<Value> = (0..120).map(|_| write_call(&mut rng)).collect();
    let commit = json!({"message": "m"});
    let (mut compared, mut compiled) = (0, 0);
    for text in policy_sets() {
        let gate = gate(&text);
        for principal in ["alice", "ci", "bob"] {
            compiled += usize::from(gate.compiled(principal, "files__write"));
            for (action, server, call) in calls.iter().map(|c| ("files__write", "files", c)).chain([("git__commit", "git", &commit)]) {
                let ours = gate.decide(principal, action, server, call.as_object());
                let cedars = gate.decide_by_cedar(principal, action, server, call.as_object(), true);
                assert_eq!(ours, cedars, "{principal} {action} {call}\n{text}");
                // The pre-selection by principal and resource leaves out only what cannot apply.
                assert_eq!(ours, gate.decide_by_cedar(principal, action, server, call.as_object(), false), "unscoped: {principal} {action} {call}\n{text}");
                compared += 1;
            }
        }
    }
    // The extension function's sets (three, and the set of all) are Cedar's alone; every
    // other set is compiled for every principal.
    let sets = policy_sets().len();
    assert_eq!(compiled, (sets - 4) * 3, "compiled (principal, set) pairs");
    assert_eq!(compared, sets * 3 * 121);
}

#[test]
fn every_verdict_kind_is_reached() {
    // The comparison above is only as good as its calls: each policy set's decisions vary.
    let mut rng = Rng(7);
    let calls: Vec<Value> = (0..120).map(|_| write_call(&mut rng)).collect();
    let commit = json!({"message": "m"});
    for text in policy_sets().iter().filter(|t| t.contains("@id(\"no\")") && !t.contains("ip(")) {
        let gate = gate(text);
        let verdicts: std::collections::HashSet<String> = ["alice", "ci", "bob"]
            .iter()
            .flat_map(|p| calls.iter().map(|c| ("files__write", "files", c)).chain([("git__commit", "git", &commit)]).map(|(a, s, c)| format!("{:?}", gate.decide(p, a, s, c.as_object()).decision)))
            .map(|d| d.split_whitespace().next().unwrap_or_default().to_owned())
            .collect();
        assert!(verdicts.len() >= 2, "one kind of verdict only for\n{text}: {verdicts:?}");
    }
}
