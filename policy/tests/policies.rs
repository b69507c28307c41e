//! Policies over real pinned listings (the filesystem and git reference
//! servers): the generated schema, every kind of wrong policy refused at load
//! with its place and the deployment's words, and the decisions on calls.

use serde_json::{Value, json};
use toolseal_policy::{Policies, PolicyError, PolicyFile, PolicyGate, PolicySchema, Principal, Tool};
use toolseal_runtime::pipeline::Decision;
use toolseal_runtime::registry::read_registry;

/// `(qualified name, server, tier, inputSchema)` of every tool of the two listings.
fn tools() -> Vec<(String, &'static str, &'static str, Value)> {
    let mut tools = Vec::new();
    for (server, tier, file) in [("filesystem", "first-party", "server-filesystem.json"), ("git", "vetted", "mcp-server-git.json")] {
        let bytes = std::fs::read(format!("{}/../tests/registries/mcp/{file}", env!("CARGO_MANIFEST_DIR"))).expect("a pinned listing");
        for tool in read_registry(&bytes).expect("a registry").tools {
            tools.push((format!("{server}__{}", tool.name), server, tier, tool.input_schema.to_value()));
        }
    }
    tools
}

fn schema() -> PolicySchema {
    let tools = tools();
    PolicySchema::new(tools.iter().map(|(action, server, tier, input)| Tool { action, server, tier, input_schema: input })).expect("the schema of real listings")
}

fn file(text: &str) -> PolicyFile {
    PolicyFile { path: "policies/test.cedar".into(), text: text.into() }
}

/// The one problem loading `text` reports, as printed.
fn refused(text: &str) -> String {
    match Policies::load(&schema(), &[file(text)]) {
        Err(PolicyError::Invalid(problems)) => {
            assert_eq!(problems.len(), 1, "{problems:?}");
            problems[0].to_string()
        }
        other => panic!("expected a refusal of {text}, got {other:?}"),
    }
}

#[test]
fn the_schema_types_exactly_what_cedar_can_hold_and_says_why_not_elsewhere() {
    let schema = schema();
    let text = schema.text();
    assert!(text.contains("action \"filesystem__write_file\" appliesTo"), "{text}");
    assert!(text.contains("\"path\": String,\n      \"content\": String,"), "{text}");
    // Optional arrays of strings are optional sets; integers are Long; numbers and unions are left out, saying why.
    assert!(text.contains("\"excludePatterns\"?: Set<String>,"), "{text}");
    assert!(text.contains("\"context_lines\"?: Long,"), "{text}");
    assert!(text.contains("// \"tail\": a number: floats have no exact Cedar type — not available to policies"), "{text}");
    assert!(text.contains("// \"base_branch\": an `anyOf` of schemas: Cedar has no union type"), "{text}");
    assert_eq!(schema.actions().len(), tools().len());
    // The printed text is the schema: Cedar reads it back.
    assert!(cedar_policy::Schema::from_cedarschema_str(text).is_ok());
}

#[test]
fn a_misspelled_tool_is_refused_with_its_place_and_the_nearest_tool() {
    let text = "permit(principal, action, resource);\nforbid(principal, action == Action::\"filesystem__write_fil\", resource);";
    assert_eq!(refused(text), "policies/test.cedar:2:29: `filesystem__write_fil` is not a tool of this deployment; did you mean `filesystem__write_file`?");
    let far = refused("forbid(principal, action == Action::\"github__delete_repo\", resource);");
    assert!(far.ends_with("`github__delete_repo` is not a tool of this deployment (`toolseal policy schema` lists them)"), "{far}");
    // A tool in an `in [...]` list too.
    // One line for a misspelled argument under several tools.
    let several = refused(
        "forbid(principal, action in [Action::\"filesystem__write_file\", Action::\"filesystem__read_text_file\", Action::\"filesystem__edit_file\"], resource) when { context.input.pth == \"x\" };",
    );
    assert!(several.ends_with("tools `filesystem__edit_file`, `filesystem__read_text_file`, `filesystem__write_file` declare no argument `pth`; did you mean `path`?"), "{several}");
    let listed = refused("forbid(principal, action in [Action::\"git__git_status\", Action::\"git__git_stats\"], resource);");
    assert!(listed.contains("`git__git_stats` is not a tool of this deployment; did you mean `git__git_status`?"), "{listed}");
}

#[test]
fn a_misspelled_argument_is_refused_in_the_registrys_words() {
    let text = "forbid(principal, action == Action::\"filesystem__write_file\", resource)\n  when { context.input.pathz like \"*secret*\" };";
    assert_eq!(refused(text), "policies/test.cedar:2:10: tool `filesystem__write_file` declares no argument `pathz`; did you mean `path`?");
}

#[test]
fn an_argument_without_an_exact_type_cannot_be_read() {
    let text = "forbid(principal, action == Action::\"filesystem__read_text_file\", resource) when { context.input has tail && context.input.tail > 10 };";
    let why = refused(text);
    assert!(why.contains("argument `tail` of `filesystem__read_text_file` is a number: floats have no exact Cedar type, so no policy can read it"), "{why}");
    // Without the `has`, the attribute is simply not there.
    let bare = refused("forbid(principal, action == Action::\"filesystem__read_text_file\", resource) when { context.input.tail > 10 };");
    assert!(bare.contains("argument `tail` of `filesystem__read_text_file` is a number"), "{bare}");
    // A `has` of a misspelled argument would make a forbid that never forbids: refused.
    let never = refused("forbid(principal, action == Action::\"filesystem__write_file\", resource) when { context.input has pathz };");
    assert!(never.ends_with("this policy can never apply: tool `filesystem__write_file` declares no argument `pathz` (`has pathz` is always false); did you mean `path`?"), "{never}");
}

#[test]
fn an_optional_argument_needs_has_and_types_must_agree() {
    let optional = refused("forbid(principal, action == Action::\"git__git_diff\", resource) when { context.input.context_lines > 100 };");
    assert!(optional.starts_with("policies/test.cedar:1:") && optional.contains("optional attribute") && optional.contains("has"), "{optional}");
    let mismatch = refused("forbid(principal, action == Action::\"filesystem__write_file\", resource) when { context.input.path == 3 };");
    assert!(mismatch.contains("Long") && mismatch.contains("String"), "{mismatch}");
    let order = refused("forbid(principal, action == Action::\"filesystem__write_file\", resource) when { context.input.path > 3 };");
    assert!(order.contains("expected Long but saw String"), "{order}");
}

#[test]
fn syntax_errors_duplicates_and_templates_are_refused_with_their_place() {
    let syntax = refused("permit(principal, action, resource)\nforbid(principal, action, resource);");
    assert!(syntax.starts_with("policies/test.cedar:2:"), "{syntax}");
    let twice = refused("@id(\"a\") permit(principal, action, resource);\n@id(\"a\") forbid(principal, action, resource);");
    assert!(twice.contains("two policies are named \"a\""), "{twice}");
    let template = refused("permit(principal == ?principal, action, resource);");
    assert!(template.contains("templates"), "{template}");
}

#[test]
fn every_problem_of_every_file_is_reported() {
    let files = [
        file("forbid(principal, action == Action::\"filesystem__write_fil\", resource);"),
        PolicyFile { path: "policies/other.cedar".into(), text: "forbid(principal, action == Action::\"git__git_diff\", resource) when { context.input.targt == \"x\" };".into() },
    ];
    let Err(PolicyError::Invalid(problems)) = Policies::load(&schema(), &files) else { panic!("refused") };
    let files: Vec<&str> = problems.iter().map(|p| p.file.as_str()).collect();
    assert_eq!(files, ["policies/test.cedar", "policies/other.cedar"]);
}

fn gate(text: &str) -> PolicyGate {
    let schema = schema();
    let policies = Policies::load(&schema, &[file(text)]).unwrap_or_else(|e| panic!("{e}"));
    let principals = [Principal { name: "alice".into(), groups: vec!["admins".into()] }, Principal { name: "ci".into(), groups: vec!["readers".into()] }];
    PolicyGate::new(schema, policies, &principals).expect("a gate")
}

const POLICIES: &str = r#"
@id("everyone")
permit(principal, action, resource);

@id("no-secrets") @reason("secret files stay where they are")
forbid(principal, action in [Action::"filesystem__write_file", Action::"filesystem__read_text_file"], resource)
  when { context.input.path like "*secret*" };

@id("readers-read")
forbid(principal, action, resource == Server::"git")
  when { principal.groups.contains("readers") } unless { action == Action::"git__git_status" };

@id("big-diffs") @confirm("a diff of more than 100 context lines: go ahead?")
permit(principal, action == Action::"git__git_diff", resource)
  when { context.input has context_lines && context.input.context_lines > 100 };
"#;

#[test]
fn decisions_name_their_policies_and_reasons() {
    let gate = gate(POLICIES);
    let call = |principal: &str, action: &str, server: &str, arguments: Value| gate.decide(principal, action, server, arguments.as_object());
    let allowed = call("alice", "filesystem__write_file", "filesystem", json!({"path": "/srv/notes.txt", "content": "x"}));
    assert_eq!((allowed.decision, allowed.policies), (Decision::Allow, vec!["everyone".to_owned()]));
    let denied = call("alice", "filesystem__write_file", "filesystem", json!({"path": "/srv/secret.txt", "content": "x"}));
    assert_eq!(denied.decision, Decision::deny("denied by policy `no-secrets`: secret files stay where they are"));
    assert_eq!(denied.policies, ["no-secrets"]);
    // Groups: the CI principal may only read git's status.
    assert_eq!(call("ci", "git__git_status", "git", json!({"repo_path": "/r"})).decision, Decision::Allow);
    assert_eq!(call("ci", "git__git_commit", "git", json!({"repo_path": "/r", "message": "m"})).decision, Decision::deny("denied by policy `readers-read`"));
    // `@confirm` on the permit that allowed it.
    let big = call("alice", "git__git_diff", "git", json!({"repo_path": "/r", "target": "main", "context_lines": 500}));
    assert_eq!(big.decision, Decision::confirm("a diff of more than 100 context lines: go ahead?"));
    let small = call("alice", "git__git_diff", "git", json!({"repo_path": "/r", "target": "main", "context_lines": 3}));
    assert_eq!(small.decision, Decision::Allow);
}

#[test]
fn what_the_gate_cannot_judge_exactly_is_denied() {
    let gate = gate("permit(principal, action, resource);");
    // An integer beyond 64 bits (valid JSON Schema `integer`): denied, not rounded.
    let huge = gate.decide("alice", "git__git_diff", "git", json!({"repo_path": "/r", "target": "m", "context_lines": 1e30}).as_object());
    let Decision::Deny { reason } = huge.decision else { panic!("{huge:?}") };
    assert!(reason.contains("/context_lines is 1e+30, beyond the 64-bit integers"), "{reason}");
    // `3.0` is the integer 3.
    assert_eq!(gate.decide("alice", "git__git_diff", "git", json!({"repo_path": "/r", "target": "m", "context_lines": 3.0}).as_object()).decision, Decision::Allow);
    // An unknown principal.
    assert!(matches!(gate.decide("mallory", "git__git_status", "git", json!({"repo_path": "/r"}).as_object()).decision, Decision::Deny { .. }));
    // Arguments a policy cannot read are dropped from the context, not refused.
    assert_eq!(gate.decide("alice", "filesystem__read_text_file", "filesystem", json!({"path": "/a", "tail": 2.5}).as_object()).decision, Decision::Allow);
}

#[test]
fn without_a_permit_cedar_denies() {
    let gate = gate("forbid(principal, action == Action::\"git__git_commit\", resource);");
    let verdict = gate.decide("alice", "git__git_status", "git", json!({"repo_path": "/r"}).as_object());
    assert_eq!(verdict.decision, Decision::deny("no policy permits User::\"alice\" to call `git__git_status`"));
    assert!(verdict.policies.is_empty());
}

#[test]
fn scopes_leave_out_only_policies_that_cannot_apply() {
    let scoped = gate(
        "@id(\"all\") permit(principal, action, resource);\n@id(\"ci\") forbid(principal == User::\"ci\", action, resource);\n@id(\"git\") forbid(principal, action, resource == Server::\"git\") when { context has input && principal.name == \"alice\" };\n@id(\"users\") forbid(principal is User in User::\"ci\", action == Action::\"git__git_status\", resource is Server);\n",
    );
    assert_eq!(scoped.applicable("alice", "filesystem__write_file"), 1);
    assert_eq!(scoped.applicable("alice", "git__git_status"), 2);
    assert_eq!(scoped.applicable("ci", "git__git_status"), 4);
    assert_eq!(scoped.applicable("ci", "filesystem__write_file"), 2);
    let call = |principal: &str, action: &str, server: &str, arguments: Value| scoped.decide(principal, action, server, arguments.as_object()).policies;
    assert_eq!(call("alice", "filesystem__write_file", "filesystem", json!({"path": "/a", "content": ""})), ["all"]);
    assert_eq!(call("alice", "git__git_status", "git", json!({"repo_path": "/r"})), ["git"]);
    assert_eq!(call("ci", "git__git_status", "git", json!({"repo_path": "/r"})), ["ci", "users"]);
    // `ci` is forbidden everything without a condition: no tool could be allowed; `git` has a condition.
    assert!(!scoped.may_allow("ci", "filesystem__write_file") && scoped.may_allow("alice", "git__git_status") && scoped.may_allow("alice", "filesystem__write_file"));
    let only_reads = gate("permit(principal, action in [Action::\"git__git_status\", Action::\"git__git_log\"], resource);");
    assert!(only_reads.may_allow("alice", "git__git_log") && !only_reads.may_allow("alice", "git__git_commit"));
}

#[test]
fn addresses_and_dates_are_cedar_extension_values() {
    let input = json!({"type": "object", "properties": {
        "host": {"type": "string", "format": "ipv4"}, "at": {"type": "string", "format": "date-time"}, "day": {"type": "string", "format": "date"}},
        "required": ["host", "at"]});
    let schema = PolicySchema::new([Tool { action: "net__connect", server: "net", tier: "first-party", input_schema: &input }]).expect("a schema");
    assert!(schema.text().contains("\"host\": ipaddr,") && schema.text().contains("\"at\": datetime,") && schema.text().contains("\"day\"?: datetime,"), "{}", schema.text());
    let load = |text: &str| Policies::load(&schema, &[file(text)]);
    // A string comparison with an address is a type error at load.
    let error = load(r#"forbid(principal, action, resource) when { context.input.host == "10.0.0.1" };"#).unwrap_err().to_string();
    assert!(error.contains("policies/test.cedar:1:"), "{error}");
    let policies = load(
        r#"permit(principal, action, resource);
@id("private") forbid(principal, action, resource) when { context.input.host.isInRange(ip("10.0.0.0/8")) };
@id("past") forbid(principal, action, resource) when { context.input.at < datetime("2024-01-01T00:00:00Z") };
@id("noon") forbid(principal, action, resource) when { context.input.at == datetime("2030-05-01T10:00:00Z") };"#,
    )
    .unwrap_or_else(|e| panic!("{e}"));
    let gate = PolicyGate::new(schema.clone(), policies, &[Principal { name: "alice".into(), groups: vec![] }]).expect("a gate");
    let call = |host: &str, at: &str| gate.decide("alice", "net__connect", "net", json!({"host": host, "at": at}).as_object());
    assert_eq!(call("192.0.2.1", "2030-01-01T00:00:00Z").decision, Decision::Allow);
    assert_eq!(call("10.1.2.3", "2030-01-01T00:00:00Z").policies, ["private"]);
    assert_eq!(call("192.0.2.1", "2023-12-31T23:59:59.999Z").policies, ["past"]);
    // An offset is the same instant in Cedar.
    assert_eq!(call("192.0.2.1", "2030-05-01T12:00:00+02:00").policies, ["noon"]);
    // What Cedar's datetime cannot hold exactly is denied, not rounded.
    let Decision::Deny { reason } = call("192.0.2.1", "2030-05-01T10:00:00.0001Z").decision else { panic!("a sub-millisecond date-time was not denied") };
    assert!(reason.contains("/at is \"2030-05-01T10:00:00.0001Z\", not a date or date-time Cedar's `datetime` holds exactly"), "{reason}");
}
