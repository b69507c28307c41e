//! Asking the person behind the client to confirm a call a policy marked `@confirm`.
//!
//! A client on a session (up to 2025-11-25) is sent an elicitation request while the
//! call waits. A 2026-07-28 client has no session to be asked on: the call is answered
//! with an input round instead — an `InputRequired` result carrying the question and a
//! `requestState` — and the client retries the call with the person's answer and that
//! state. The retried call is resolved and decided again like any other; the answer
//! counts only with a state this gateway handed out, unused, younger than
//! [`CONFIRM_WAIT`], for the same principal, tool and arguments (otherwise the person is
//! asked again, about what is sent now).

use std::collections::{BTreeMap, HashMap};
use std::sync::Mutex;
use std::time::{Duration, Instant};

use rmcp::RoleServer;
use rmcp::model::{CallToolRequestParams, ElicitRequest, ElicitRequestParams, ElicitResult, ElicitationAction, ElicitationSchema, InputRequest, InputRequiredResult, ProtocolVersion};
use rmcp::service::{ElicitationMode, RequestContext};
use serde_json::{Map, Value};
use toolseal_runtime::canonical::sha256_hex;

/// The longest wait for a person to answer a confirmation.
pub(crate) const CONFIRM_WAIT: Duration = Duration::from_secs(120);

/// The key of the gateway's `n`th question among an input round's requests.
fn question(n: usize) -> String {
    format!("toolseal/confirm/{n}")
}

/// The most input rounds waiting for an answer at once, and for one principal.
const MOST_WAITING: usize = 1024;
const MOST_WAITING_PER_PRINCIPAL: usize = 32;

/// A round handed out and not answered yet.
#[derive(Debug)]
struct Waiting {
    principal: String,
    /// What it confirms: a digest of the principal, the tool, the arguments and the questions.
    call: String,
    asked: Instant,
}

/// Input rounds asked and not answered yet, by the `requestState` handed out.
#[derive(Debug, Default)]
pub(crate) struct Rounds(Mutex<HashMap<String, Waiting>>);

impl Rounds {
    /// A new round for `call` by `principal`: its `requestState`. It replaces a round asked
    /// for the same call; a principal holds at most [`MOST_WAITING_PER_PRINCIPAL`] at once.
    fn open(&self, principal: &str, call: String) -> Result<String, String> {
        let mut waiting = self.0.lock().unwrap_or_else(|e| e.into_inner());
        waiting.retain(|_, w| w.asked.elapsed() < CONFIRM_WAIT && w.call != call);
        if waiting.values().filter(|w| w.principal == principal).count() >= MOST_WAITING_PER_PRINCIPAL {
            return Err(format!("{MOST_WAITING_PER_PRINCIPAL} confirmations of this principal are already waiting for an answer"));
        }
        if waiting.len() >= MOST_WAITING {
            return Err(format!("{MOST_WAITING} confirmations are already waiting for an answer"));
        }
        let state = uuid::Uuid::new_v4().simple().to_string();
        waiting.insert(state.clone(), Waiting { principal: principal.to_owned(), call, asked: Instant::now() });
        Ok(state)
    }

    /// Whether `state` was handed out for `call`, unused and in time (it is used now).
    fn close(&self, state: &str, call: &str) -> bool {
        let mut waiting = self.0.lock().unwrap_or_else(|e| e.into_inner());
        matches!(waiting.remove(state), Some(w) if w.call == call && w.asked.elapsed() < CONFIRM_WAIT)
    }
}

/// What answers in a round confirm: the principal, the tool as called, the arguments —
/// keys sorted, numbers exactly as sent (`9007199254740993` is not `9007199254740992`) —
/// and the questions.
pub(crate) fn digest(principal: &str, params: &CallToolRequestParams, questions: &[String]) -> String {
    fn sorted(members: &Map<String, Value>) -> Value {
        let mut keys: Vec<&String> = members.keys().collect();
        keys.sort_unstable();
        Value::Object(keys.into_iter().map(|k| (k.clone(), each(&members[k]))).collect())
    }
    fn each(value: &Value) -> Value {
        match value {
            Value::Object(members) => sorted(members),
            Value::Array(items) => Value::Array(items.iter().map(each).collect()),
            other => other.clone(),
        }
    }
    let arguments = params.arguments.as_ref().map(sorted);
    sha256_hex(serde_json::to_string(&(principal, &params.name, arguments, questions)).unwrap_or_default().as_bytes())
}

/// What became of asking.
pub(crate) enum Asked {
    /// The person accepted: the call goes on.
    Accepted,
    /// The person declined.
    Declined,
    /// They could not be asked, and why.
    Unable(String),
    /// Ask in an input round: the answer to give the client now.
    Round(InputRequiredResult),
}

/// Puts `questions` about the call `params` by `principal` to the person behind the
/// client; the call is confirmed only if they accept every one.
pub(crate) async fn ask(rounds: &Rounds, principal: &str, questions: &[String], params: &CallToolRequestParams, context: &RequestContext<RoleServer>) -> Asked {
    if context.protocol_version().is_some_and(|v| v.as_str() >= ProtocolVersion::V_2026_07_28.as_str()) {
        return in_rounds(rounds, principal, questions, params, context);
    }
    if !context.peer.supported_elicitation_modes().contains(&ElicitationMode::Form) {
        return Asked::Unable("this client cannot ask (no elicitation capability)".to_owned());
    }
    for question in questions {
        match context.peer.create_elicitation_with_timeout(form(question.clone()), Some(CONFIRM_WAIT)).await {
            Ok(answer) if answer.action == ElicitationAction::Accept => {}
            Ok(_) => return Asked::Declined,
            Err(rmcp::ServiceError::Timeout { .. }) => return Asked::Unable(format!("no answer came within {} s", CONFIRM_WAIT.as_secs())),
            Err(e) => return Asked::Unable(format!("the client could not be asked ({e})")),
        }
    }
    Asked::Accepted
}

/// A 2026-07-28 call: the answers it brings, or a round to ask in.
fn in_rounds(rounds: &Rounds, principal: &str, questions: &[String], params: &CallToolRequestParams, context: &RequestContext<RoleServer>) -> Asked {
    let call = digest(principal, params, questions);
    let answers: Option<Vec<&Value>> = params.input_responses.as_ref().and_then(|responses| (0..questions.len()).map(|n| responses.get(&question(n))).collect());
    if let (Some(answers), Some(state)) = (answers, &params.request_state)
        && rounds.close(state, &call)
    {
        for answer in answers {
            match serde_json::from_value::<ElicitResult>(answer.clone()) {
                Ok(answer) if answer.action == ElicitationAction::Accept => {}
                Ok(_) => return Asked::Declined,
                Err(e) => return Asked::Unable(format!("the client's answer is not an elicitation result ({e})")),
            }
        }
        return Asked::Accepted;
    }
    let can_ask = context.client_capabilities().and_then(|c| c.elicitation).is_some_and(|e| e.form.is_some() || e.url.is_none());
    if !can_ask {
        return Asked::Unable("this client cannot ask (no elicitation capability)".to_owned());
    }
    match rounds.open(principal, call) {
        Ok(state) => {
            let requests = questions.iter().enumerate().map(|(n, q)| (question(n), InputRequest::Elicitation(ElicitRequest::new(form(q.clone()))))).collect::<BTreeMap<_, _>>();
            Asked::Round(InputRequiredResult::new(Some(requests), Some(state)))
        }
        Err(why) => Asked::Unable(why),
    }
}

/// A form with no fields: accept or decline.
fn form(message: String) -> ElicitRequestParams {
    ElicitRequestParams::FormElicitationParams { meta: None, message, requested_schema: ElicitationSchema::new(BTreeMap::new()) }
}

#[cfg(test)]
mod tests {
    use rmcp::model::CallToolRequestParams;
    use serde_json::{Value, json};

    use super::{Rounds, digest};

    fn call(arguments: Value) -> CallToolRequestParams {
        CallToolRequestParams::new("bank__pay").with_arguments(arguments.as_object().cloned().unwrap_or_default())
    }

    #[test]
    fn an_answer_confirms_exactly_the_call_and_the_questions_it_was_asked_for() {
        let asked = ["Allow bank/pay? big?".to_owned()];
        let same = |a: Value, b: Value| digest("alice", &call(a), &asked) == digest("alice", &call(b), &asked);
        assert!(same(json!({"to": 1, "memo": {"x": 1, "y": 2}}), json!({"memo": {"y": 2, "x": 1}, "to": 1})), "key order is not the call");
        assert!(!same(json!({"to": 9_007_199_254_740_992_u64}), json!({"to": 9_007_199_254_740_993_u64})), "integers beyond 2^53 stay apart");
        assert!(!same(json!({"to": 1}), json!({"to": 1.0})));
        assert_ne!(digest("alice", &call(json!({})), &asked), digest("bob", &call(json!({})), &asked));
        assert_ne!(digest("alice", &call(json!({})), &asked), digest("alice", &call(json!({})), &["Allow bank/pay? other?".to_owned()]));
    }

    #[test]
    fn a_round_is_used_once_replaced_by_the_same_call_and_held_within_a_quota() {
        let rounds = Rounds::default();
        let first = rounds.open("alice", "call".into()).expect("a round");
        let second = rounds.open("alice", "call".into()).expect("a round");
        assert!(!rounds.close(&first, "call"), "replaced by the second round of the same call");
        assert!(!rounds.close(&second, "other"), "another call");
        assert!(!rounds.close(&second, "call"), "used (by the attempt above)");
        for n in 0..super::MOST_WAITING_PER_PRINCIPAL {
            rounds.open("mallory", format!("call {n}")).expect("within the quota");
        }
        assert!(rounds.open("mallory", "one more".into()).is_err());
        assert!(rounds.open("alice", "call".into()).is_ok(), "another principal is not held up");
    }
}
