//! The synthetic 100-tool registry: ten families of ten tools with realistic,
//! typed arguments (ids with patterns, amounts with ranges, enums, dates,
//! emails, nested objects, bounded arrays). Deterministic: the same JSON on
//! every machine. Shared by `build.rs` (which compiles it) and the harness.

use serde_json::{Map, Value, json};

/// The families and their verbs; a tool is `<family>_<verb>`.
pub const FAMILIES: [(&str, &str, [&str; 10]); 10] = [
    ("payments", "pay", ["refund", "charge", "transfer", "get_balance", "list_payments", "void", "capture", "create_invoice", "send_receipt", "dispute"]),
    ("files", "file", ["read", "write", "delete", "move", "copy", "list", "search", "share", "lock", "stat"]),
    ("calendar", "evt", ["create_event", "delete_event", "list_events", "invite", "decline", "reschedule", "find_slot", "set_reminder", "get_event", "cancel_series"]),
    ("messaging", "msg", ["send", "reply", "forward", "delete", "archive", "search", "mark_read", "create_channel", "invite_member", "pin"]),
    ("tickets", "tkt", ["create", "update", "close", "reopen", "assign", "comment", "search", "link", "set_priority", "escalate"]),
    ("crm", "cust", ["create_contact", "update_contact", "merge_contacts", "log_call", "list_deals", "close_deal", "tag", "export", "get_contact", "delete_contact"]),
    ("inventory", "sku", ["add_item", "remove_item", "adjust_stock", "get_stock", "reserve", "release", "transfer_stock", "list_items", "set_price", "audit"]),
    ("analytics", "rpt", ["run_report", "schedule_report", "get_metric", "list_dashboards", "export_csv", "create_alert", "delete_alert", "compare_periods", "forecast", "annotate"]),
    ("devops", "svc", ["deploy", "rollback", "restart", "scale", "get_logs", "set_env", "list_services", "open_incident", "ack_alert", "run_job"]),
    ("hr", "emp", ["hire", "terminate", "update_salary", "request_leave", "approve_leave", "list_employees", "get_employee", "assign_manager", "schedule_review", "record_training"]),
];

/// xorshift64*, so the registry does not depend on a crate's RNG.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }
    fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }
}

fn seed(name: &str) -> u64 {
    name.bytes().fold(0xcbf2_9ce4_8422_2325, |h, b| (h ^ u64::from(b)).wrapping_mul(0x100_0000_01b3)) | 1
}

/// The argument templates a tool draws from: (key, schema).
fn pool(prefix: &str) -> Vec<(String, Value)> {
    vec![
        ("amount".into(), json!({ "type": "number", "exclusiveMinimum": 0, "maximum": 100000, "description": "Amount in the account currency." })),
        ("currency".into(), json!({ "type": "string", "enum": ["EUR", "USD", "GBP", "JPY"], "default": "EUR" })),
        ("path".into(), json!({ "type": "string", "minLength": 1, "maxLength": 1024 })),
        ("date".into(), json!({ "type": "string", "format": "date" })),
        ("limit".into(), json!({ "type": "integer", "minimum": 1, "maximum": 100, "default": 20 })),
        ("priority".into(), json!({ "type": "string", "enum": ["low", "normal", "high", "urgent"] })),
        ("text".into(), json!({ "type": "string", "maxLength": 2000 })),
        ("tags".into(), json!({ "type": "array", "items": { "type": "string", "maxLength": 32 }, "maxItems": 10, "uniqueItems": true })),
        ("email".into(), json!({ "type": "string", "format": "email" })),
        ("notify".into(), json!({ "type": "boolean" })),
        ("count".into(), json!({ "type": "integer", "minimum": 0, "maximum": 10000 })),
        (
            "address".into(),
            json!({
                "type": "object",
                "properties": {
                    "street": { "type": "string", "minLength": 1 },
                    "city": { "type": "string", "minLength": 1 },
                    "postcode": { "type": "string", "pattern": "^[0-9A-Z -]{3,10}$" }
                },
                "required": ["street", "city"],
                "additionalProperties": false
            }),
        ),
        (format!("{prefix}_ref"), json!({ "type": "string", "pattern": format!("^{prefix}-[0-9]{{1,10}}$") })),
    ]
}

/// The registry as an MCP `tools/list` result: the 100 tools of [`FAMILIES`].
pub fn registry() -> Value {
    registry_of(100)
}

/// A registry of `n` tools: the families' tools, then numbered variants of
/// them (`payments_refund_2`, …) for the scaling benchmarks.
pub fn registry_of(n: usize) -> Value {
    let mut tools = Vec::new();
    for round in 0.. {
        for (family, prefix, verbs) in FAMILIES {
            for verb in verbs {
                if tools.len() == n {
                    return json!({ "tools": tools });
                }
                let name = if round == 0 { format!("{family}_{verb}") } else { format!("{family}_{verb}_{}", round + 1) };
                tools.push(tool(family, prefix, verb, &name));
            }
        }
    }
    unreachable!("the loop returns once n tools are made")
}

fn tool(family: &str, prefix: &str, verb: &str, name: &str) -> Value {
    let mut rng = Rng(seed(name));
    let mut props = Map::new();
    // Every tool takes its family's id; then two to four other arguments.
    let id_key = format!("{prefix}_id");
    props.insert(id_key.clone(), json!({ "type": "string", "pattern": format!("^{prefix}-[0-9]{{1,10}}$"), "description": format!("The {family} object this acts on.") }));
    let mut pool = pool(prefix);
    let extra = 2 + rng.below(3);
    for _ in 0..extra {
        let (key, schema) = pool.remove(rng.below(pool.len()));
        props.insert(key, schema);
    }
    // In key order, whether or not serde_json keeps insertion order in this build (its
    // `preserve_order`, which cedar-policy-core turns on in a workspace build): the
    // build script and the run must make the same registry.
    let mut keys: Vec<String> = props.keys().filter(|k| **k != id_key).cloned().collect();
    keys.sort();
    let mut required = vec![id_key];
    for key in &keys {
        let has_default = props[key].get("default").is_some();
        if !has_default && rng.below(2) == 0 {
            required.push(key.clone());
        }
    }
    let destructive = ["delete", "terminate", "void", "rollback", "refund", "transfer", "remove"].iter().any(|w| verb.contains(w));
    json!({
        "name": name,
        "description": format!("{} ({family}).", verb.replace('_', " ")),
        "inputSchema": { "type": "object", "properties": props, "required": required, "additionalProperties": false },
        "annotations": { "readOnlyHint": verb.starts_with("get") || verb.starts_with("list") || verb.starts_with("search"), "destructiveHint": destructive }
    })
}
