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

/// The longest wait for a person to answer a confirmation.
pub(crate) const CONFIRM_WAIT: Duration = Duration::from_secs(120);

/// The key of the gateway's question among an input round's requests.
const QUESTION: &str = "toolseal/confirm";

/// The most input rounds waiting for an answer at once.
const MOST_WAITING: usize = 1024;

/// Input rounds asked and not answered yet: each `requestState` handed out → what it
/// confirms (a digest of the principal, the tool and the arguments) and when it was asked.
#[derive(Debug, Default)]
pub(crate) struct Rounds(Mutex<HashMap<String, (String, Instant)>>);

impl Rounds {
    /// A new round for `call`: its `requestState`.
    fn open(&self, call: String) -> Result<String, String> {
        let mut waiting = self.0.lock().unwrap_or_else(|e| e.into_inner());
        waiting.retain(|_, (_, asked)| asked.elapsed() < CONFIRM_WAIT);
        if waiting.len() >= MOST_WAITING {
            return Err(format!("{MOST_WAITING} confirmations are already waiting for an answer"));
        }
        let state = uuid::Uuid::new_v4().simple().to_string();
        waiting.insert(state.clone(), (call, Instant::now()));
        Ok(state)
    }

    /// Whether `state` was handed out for `call`, unused and in time (it is used now).
    fn close(&self, state: &str, call: &str) -> bool {
        let mut waiting = self.0.lock().unwrap_or_else(|e| e.into_inner());
        matches!(waiting.remove(state), Some((asked_for, asked)) if asked_for == call && asked.elapsed() < CONFIRM_WAIT)
    }
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

/// Puts `message` about the call `params` (digested as `call`) to the person behind the client.
pub(crate) async fn ask(rounds: &Rounds, message: String, call: String, params: &CallToolRequestParams, context: &RequestContext<RoleServer>) -> Asked {
    if context.protocol_version().is_some_and(|v| v.as_str() >= ProtocolVersion::V_2026_07_28.as_str()) {
        return in_rounds(rounds, message, call, params, context);
    }
    if !context.peer.supported_elicitation_modes().contains(&ElicitationMode::Form) {
        return Asked::Unable("this client cannot ask (no elicitation capability)".to_owned());
    }
    match context.peer.create_elicitation_with_timeout(form(message), Some(CONFIRM_WAIT)).await {
        Ok(answer) if answer.action == ElicitationAction::Accept => Asked::Accepted,
        Ok(_) => Asked::Declined,
        Err(rmcp::ServiceError::Timeout { .. }) => Asked::Unable(format!("no answer came within {} s", CONFIRM_WAIT.as_secs())),
        Err(e) => Asked::Unable(format!("the client could not be asked ({e})")),
    }
}

/// A 2026-07-28 call: the answer it brings, or a round to ask in.
fn in_rounds(rounds: &Rounds, message: String, call: String, params: &CallToolRequestParams, context: &RequestContext<RoleServer>) -> Asked {
    let answer = params.input_responses.as_ref().and_then(|responses| responses.get(QUESTION));
    if let (Some(answer), Some(state)) = (answer, &params.request_state)
        && rounds.close(state, &call)
    {
        return match serde_json::from_value::<ElicitResult>(answer.clone()) {
            Ok(answer) if answer.action == ElicitationAction::Accept => Asked::Accepted,
            Ok(_) => Asked::Declined,
            Err(e) => Asked::Unable(format!("the client's answer is not an elicitation result ({e})")),
        };
    }
    let can_ask = context.client_capabilities().and_then(|c| c.elicitation).is_some_and(|e| e.form.is_some() || e.url.is_none());
    if !can_ask {
        return Asked::Unable("this client cannot ask (no elicitation capability)".to_owned());
    }
    match rounds.open(call) {
        Ok(state) => Asked::Round(InputRequiredResult::new(Some(BTreeMap::from([(QUESTION.to_owned(), InputRequest::Elicitation(ElicitRequest::new(form(message))))])), Some(state))),
        Err(why) => Asked::Unable(why),
    }
}

/// A form with no fields: accept or decline.
fn form(message: String) -> ElicitRequestParams {
    ElicitRequestParams::FormElicitationParams { meta: None, message, requested_schema: ElicitationSchema::new(BTreeMap::new()) }
}
