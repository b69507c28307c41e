//! The guarded rmcp server: a bank server written with rmcp's own macros,
//! over an in-process transport. Unguarded, rmcp runs its handler on calls
//! with undeclared keys and out-of-range values; guarded — by the sealed enum
//! generated from the bank registry, or by the server's own listed schemas —
//! those calls are answered with their class and the handler never runs. The
//! same bank with toolseal's `Parameters` in each function (the per-function way)
//! runs only resolved calls too, and advertises the schema it enforces.

use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};

use rmcp::handler::server::router::tool::ToolRouter;
use rmcp::handler::server::wrapper::Parameters;
use rmcp::model::{CallToolRequestParams, CallToolResult, ServerCapabilities, ServerConfig};
use rmcp::service::{RoleServer, Service};
use rmcp::{ServerHandler, ServiceError, ServiceExt, schemars, tool, tool_handler, tool_router};
use serde_json::{Value, json};
use toolseal_fixtures::bank;
use toolseal_runtime::guard::{GuardedServer, Sealed};

#[derive(Debug, serde::Deserialize, schemars::JsonSchema)]
struct Transfer {
    /// Opaque account id of the recipient.
    #[schemars(regex(pattern = r"^acct-[0-9]{1,12}$"))]
    recipient_id: String,
    /// Amount, at most 10,000.
    #[schemars(range(min = 0.01, max = 10000.0))]
    amount: f64,
    /// ISO currency.
    currency: String,
}

#[derive(Debug, serde::Deserialize, schemars::JsonSchema)]
struct Balance {
    #[schemars(regex(pattern = r"^acct-[0-9]{1,12}$"))]
    account_id: String,
}

/// A bank whose handlers trust their arguments, as rmcp servers do; it counts the calls it runs.
#[derive(Clone)]
struct Bank {
    ran: Arc<AtomicUsize>,
    tool_router: ToolRouter<Self>,
}

#[tool_router]
impl Bank {
    fn new() -> Bank {
        Bank { ran: Arc::new(AtomicUsize::new(0)), tool_router: Self::tool_router() }
    }

    #[tool(description = "Transfer money to a recipient.")]
    fn transfer_funds(&self, Parameters(t): Parameters<Transfer>) -> String {
        self.ran.fetch_add(1, Ordering::SeqCst);
        format!("sent {} {} to {}", t.amount, t.currency, t.recipient_id)
    }

    #[tool(description = "Read an account's balance.")]
    fn get_balance(&self, Parameters(b): Parameters<Balance>) -> String {
        self.ran.fetch_add(1, Ordering::SeqCst);
        format!("{}: 100.00", b.account_id)
    }
}

#[tool_handler(router = self.tool_router)]
impl ServerHandler for Bank {
    fn get_info(&self) -> ServerConfig {
        ServerConfig::new(ServerCapabilities::builder().enable_tools().build())
    }
}

/// What a client sees for one call: the result's text, `isError` and structured content, or the JSON-RPC error code.
type Seen = Result<(String, bool, Option<Value>), i32>;

/// What a client sees for each call, in order.
async fn session<S: Service<RoleServer>>(server: S, calls: &[Value]) -> Vec<Seen> {
    let (server_io, client_io) = tokio::io::duplex(64 * 1024);
    let server = tokio::spawn(async move {
        let running = server.serve(server_io).await.expect("the server starts");
        running.waiting().await.ok();
    });
    let client = ().serve(client_io).await.expect("the client connects");
    let mut seen = Vec::new();
    for call in calls {
        let mut params = CallToolRequestParams::new(call["name"].as_str().expect("a name").to_owned());
        params.arguments = call["arguments"].as_object().cloned();
        seen.push(match client.call_tool(params).await {
            Ok(CallToolResult { content, is_error, structured_content, .. }) => {
                let text = content.first().and_then(|c| c.as_text()).map(|t| t.text.clone()).unwrap_or_default();
                Ok((text, is_error == Some(true), structured_content))
            }
            Err(ServiceError::McpError(e)) => Err(e.code.0),
            Err(e) => panic!("transport failure: {e}"),
        });
    }
    client.cancel().await.ok();
    server.abort();
    seen
}

fn hallucinated() -> Vec<Value> {
    vec![
        // Honest.
        json!({ "name": "transfer_funds", "arguments": { "recipient_id": "acct-42", "amount": 25.5, "currency": "EUR" } }),
        // H2: an undeclared key rmcp would drop.
        json!({ "name": "transfer_funds", "arguments": { "recipient_id": "acct-42", "amount": 25.5, "currency": "EUR", "override_limits": true } }),
        // H3: above the declared maximum.
        json!({ "name": "transfer_funds", "arguments": { "recipient_id": "acct-42", "amount": 50000, "currency": "EUR" } }),
        // H3: against the declared pattern.
        json!({ "name": "get_balance", "arguments": { "account_id": "../../etc/passwd" } }),
        // H1.
        json!({ "name": "delete_account", "arguments": { "account_id": "acct-42" } }),
    ]
}

#[tokio::test]
async fn unguarded_rmcp_runs_its_handler_on_hallucinated_arguments() {
    let bank = Bank::new();
    let ran = bank.ran.clone();
    let seen = session(bank, &hallucinated()).await;
    // rmcp drops the undeclared key and ignores the range and the pattern: four handler runs.
    assert_eq!(ran.load(Ordering::SeqCst), 4, "{seen:?}");
    assert_eq!(seen[2].as_ref().map(|r| r.0.as_str()), Ok("sent 50000 EUR to acct-42"));
}

/// The classes a guarded bank answered with, and how many calls its handler ran.
async fn guarded<C: toolseal_runtime::guard::CallCheck>(guard: impl FnOnce(Bank) -> GuardedServer<Bank, C>) -> (Vec<Seen>, usize) {
    let bank = Bank::new();
    let ran = bank.ran.clone();
    let seen = session(guard(bank), &hallucinated()).await;
    (seen, ran.load(Ordering::SeqCst))
}

fn classes(seen: &[Seen]) -> Vec<String> {
    seen.iter()
        .map(|r| match r {
            Ok((_, false, _)) => "ran".to_owned(),
            Ok((_, true, feedback)) => feedback.as_ref().and_then(|f| f["class"].as_str()).unwrap_or("?").to_owned(),
            Err(code) => format!("error {code}"),
        })
        .collect()
}

#[tokio::test]
async fn a_server_guarded_by_its_generated_enum_runs_only_resolved_calls() {
    let (seen, ran) = guarded(|bank| GuardedServer::new(bank, Sealed::<bank::ToolCall>::new())).await;
    assert_eq!(classes(&seen), ["ran", "H2", "H3", "H3", "error -32602"]);
    assert_eq!(ran, 1, "only the honest call reached the handler");
    let (text, _, feedback) = seen[1].as_ref().expect("a tool result");
    assert!(text.contains("override_limits"), "{text}");
    assert_eq!(feedback.as_ref().map(|f| f["pointer"].clone()), Some(json!("/arguments/override_limits")));
}

#[tokio::test]
async fn a_server_guarded_by_its_own_listed_schemas_runs_only_resolved_calls() {
    let tools = Bank::tool_router().list_all();
    let (seen, ran) = guarded(|bank| GuardedServer::listed(bank, &tools).expect("rmcp's schemas compile")).await;
    assert_eq!(classes(&seen), ["ran", "H2", "H3", "H3", "error -32602"]);
    assert_eq!(ran, 1);
}

#[test]
fn a_sealed_guard_reports_how_the_server_listing_differs_from_its_registry() {
    use toolseal_runtime::mcp::Change;
    let report = Sealed::<bank::ToolCall>::new().compare(&Bank::tool_router().list_all()).expect("rmcp's listing is a registry");
    let kinds: Vec<(&str, &str)> = report
        .iter()
        .map(|(name, change)| {
            let kind = match change {
                Change::Unchanged => "unchanged",
                Change::Changed { .. } => "changed",
                Change::Removed => "removed",
                Change::Added => "added",
            };
            (name.as_str(), kind)
        })
        .collect();
    // The macro server declares two of the registry's four tools, with schemas schemars wrote.
    assert_eq!(kinds, [("transfer_funds", "changed"), ("get_balance", "changed"), ("list_transactions", "removed"), ("freeze_account", "removed")]);
}

#[test]
fn a_sealed_guard_finds_no_difference_with_the_listing_it_was_generated_from() {
    use toolseal_runtime::mcp::Change;
    let registry: Value = serde_json::from_str(include_str!("../examples/transfer_funds/registry/bank.json")).expect("JSON");
    let tools: Vec<rmcp::model::Tool> = serde_json::from_value(registry["tools"].clone()).expect("rmcp reads the listing");
    let report = Sealed::<bank::ToolCall>::new().compare(&tools).expect("a registry");
    assert_eq!(report.len(), 4);
    assert!(report.iter().all(|(_, c)| *c == Change::Unchanged), "{report:?}");
}

/// The bank again, each `#[tool]` function taking toolseal's `Parameters` of the
/// generated arguments in place of rmcp's: the per-function way in.
#[derive(Clone)]
struct SealedBank {
    ran: Arc<AtomicUsize>,
    tool_router: ToolRouter<Self>,
}

#[tool_router]
impl SealedBank {
    fn new() -> SealedBank {
        SealedBank { ran: Arc::new(AtomicUsize::new(0)), tool_router: Self::tool_router() }
    }

    #[tool(description = "Transfer money to a recipient.")]
    fn transfer_funds(&self, toolseal_runtime::guard::Parameters(t): toolseal_runtime::guard::Parameters<bank::TransferFundsArgs>) -> String {
        self.ran.fetch_add(1, Ordering::SeqCst);
        format!("sent {} {} to {}", t.amount.get(), t.currency.as_str(), t.recipient_id.get())
    }

    #[tool(description = "Read an account's balance.")]
    fn get_balance(&self, toolseal_runtime::guard::Parameters(b): toolseal_runtime::guard::Parameters<bank::GetBalanceArgs>) -> String {
        self.ran.fetch_add(1, Ordering::SeqCst);
        format!("{}: 100.00", b.account_id.get())
    }
}

#[tool_handler(router = self.tool_router)]
impl ServerHandler for SealedBank {
    fn get_info(&self) -> ServerConfig {
        ServerConfig::new(ServerCapabilities::builder().enable_tools().build())
    }
}

#[tokio::test]
async fn a_function_taking_toolseal_parameters_runs_only_resolved_calls() {
    let bank = SealedBank::new();
    let ran = bank.ran.clone();
    let seen = session(bank, &hallucinated()).await;
    assert_eq!(ran.load(Ordering::SeqCst), 1, "only the honest call reached a function: {seen:?}");
    assert_eq!(seen[0], Ok(("sent 25.5 EUR to acct-42".to_owned(), false, None)));
    // H2 and H3: tool results with `isError: true`, the feedback as their text (after rmcp's prefix).
    for (i, needle) in [(1, "override_limits"), (2, "10000"), (3, "^acct-[0-9]{1,12}$")] {
        let (text, is_error, _) = seen[i].as_ref().unwrap_or_else(|e| panic!("call {i}: a tool result, not the error {e}"));
        assert!(*is_error, "call {i}: {text}");
        assert!(text.starts_with("failed to deserialize parameters: ") && text.contains(needle), "call {i}: {text}");
    }
    let (h2, _, _) = seen[1].as_ref().expect("a tool result");
    assert!(h2.contains("Send only the declared keys"), "the feedback's retry hint: {h2}");
    // H1 is rmcp's router's: no such tool.
    assert_eq!(seen[4], Err(-32602));
}

/// What rmcp advertises for a function taking toolseal's `Parameters<T>` is the
/// schema `T` enforces: the generated type's own schema (rmcp strips the root's
/// `title` and `description`), and compiled anew it gives every probe the verdict
/// the extractor gives.
#[test]
fn the_advertised_input_schema_is_the_enforced_one() {
    use toolseal_runtime::call::Options;
    use toolseal_runtime::guard::Parameters;
    use toolseal_runtime::probe::{Expect, probes};
    use toolseal_runtime::schema::{CompileOptions, compile_tool_schema};

    let listed = SealedBank::tool_router().list_all();
    let derived = bank::ToolCall::argument_schemas();
    let advertised = GuardedServer::listed((), &listed).expect("rmcp's listing compiles");
    let mut checked = 0;
    for tool in &listed {
        let mut ours = derived.iter().find(|(n, _)| *n == tool.name).expect("a registry tool").1.clone().to_value();
        let root = ours.as_object_mut().expect("an object schema");
        root.remove("title");
        root.remove("description");
        assert_eq!(Value::Object(tool.input_schema.as_ref().clone()), ours, "{}", tool.name);

        // Probes from the schema advertised and from the registry's own: a rule `T` enforces
        // that the advertised schema left out would show in the second.
        let registry = bank::ToolCall::definitions(toolseal_runtime::wire::WireFormat::Mcp);
        let declared = registry.as_array().and_then(|tools| tools.iter().find(|t| t["name"] == tool.name.as_ref())).expect("a registry tool")["inputSchema"].clone();
        let docs = [Value::Object(tool.input_schema.as_ref().clone()), declared]
            .map(|schema| compile_tool_schema(&toolseal_runtime::json::Json::from_value(&schema).into_owned(), &CompileOptions::default()).expect("compiles"));
        for probe in docs.iter().flat_map(|doc| probes(&["transfer_funds", "get_balance"], &tool.name, doc)) {
            let call: Value = serde_json::from_str(&probe.call).expect("JSON");
            // rmcp hands a function an object (or nothing), a key given twice already
            // collapsed to its last value: other probes cannot reach a function.
            let arguments = call["arguments"].as_object();
            if call["name"] != tool.name.as_ref() || arguments.is_none() || probe.label.contains("duplicate") {
                continue;
            }
            let extracted = match tool.name.as_ref() {
                "transfer_funds" => Parameters::<bank::TransferFundsArgs>::resolve(&tool.name, arguments).map(drop),
                _ => Parameters::<bank::GetBalanceArgs>::resolve(&tool.name, arguments).map(drop),
            };
            let listed = advertised.check().resolve(probe.call.as_bytes(), &Options::strict()).map(drop);
            let verdict = |r: &Result<(), toolseal_runtime::rejection::Rejection>| r.as_ref().map_err(|r| (r.class(), r.pointer().to_owned())).copied();
            assert_eq!(verdict(&extracted), verdict(&listed), "{} {}", probe.label, probe.call);
            if let Expect::Reject { class, pointer, .. } = &probe.expect {
                assert_eq!(verdict(&extracted), Err((*class, pointer.clone())), "{} {}", probe.label, probe.call);
            }
            checked += 1;
        }
    }
    assert!(checked >= 20, "{checked} probes");
}
