//! One `tools/call` through the gateway: resolved (M1–M5, H1–H3) against the
//! deployment in force, decided by the gate, forwarded to the routed server
//! with the client's arguments, answered once, audited once.

use std::borrow::Cow;
use std::sync::atomic::Ordering;

use std::time::Instant;

use rmcp::model::{CallToolRequest, CallToolRequestParams, CallToolResponse, CallToolResult, ClientRequest, ContentBlock, ErrorData, InputRequiredResult, ProtocolVersion, ResultType, ServerResult};
use rmcp::service::{PeerRequestOptions, RequestContext, RequestHandle};
use rmcp::{RoleClient, RoleServer};
use serde_json::{Map, Value};
use tokio::sync::mpsc;
use toolseal_runtime::call::Options;
use toolseal_runtime::canonical::sha256_hex;
use toolseal_runtime::check::Cx;
use toolseal_runtime::guard::rejection_answer;
use toolseal_runtime::json::Json;
use toolseal_runtime::mcp::{McpRequest, Route};
use toolseal_runtime::path::Path;
use toolseal_runtime::pipeline::{AuditRecord, Decision, Ending, RejectionRecord};
use toolseal_runtime::rejection::{Reason, Rejection};

use super::Core;
use super::confirm::{self, Asked, Rounds, ask};
use super::downstream::{Caller, InFlight, Link};
use super::held::{self, Ask, Asker, Held, Parts};

/// A resolved call, as a gate sees it.
#[derive(Debug, Clone, Copy)]
pub struct GatewayCall<'a> {
    /// The server it goes to (the manifest's key).
    pub server: &'a str,
    /// The tool's name on that server.
    pub tool: &'a str,
    /// The name the client called it by.
    pub called: &'a str,
    /// The arguments, resolved against the tool's schema.
    pub arguments: Option<&'a Map<String, Value>>,
    /// Who calls (the principal's name: the manifest's `[principals]`, or the local user).
    pub principal: &'a str,
}

impl Core {
    /// Answers one `tools/call`.
    pub(super) async fn call(&self, params: CallToolRequestParams, context: RequestContext<RoleServer>) -> Result<CallToolResponse, ErrorData> {
        let state = self.state();
        let mut record = AuditRecord::start(self.seq.fetch_add(1, Ordering::Relaxed), "gateway");
        record.format = "mcp";
        record.call_id = Some(context.id.to_string());
        record.tool = Some(params.name.chars().take(128).collect());
        record.raw_digest = sha256_hex(serde_json::to_string(&(&params.name, &params.arguments)).unwrap_or_default().as_bytes());
        let answer = self.answer(&state, &params, &context, &mut record).await;
        record.emit(&self.options.audit);
        answer
    }

    async fn answer(&self, state: &super::State, params: &CallToolRequestParams, context: &RequestContext<RoleServer>, record: &mut AuditRecord) -> Result<CallToolResponse, ErrorData> {
        let limit = Options::strict().max_bytes;
        let size = encoded_size(&params.arguments);
        if size > limit {
            let rejection = Rejection::malformed(Reason::TooLarge { size, limit }, &Path::root().key("arguments"));
            record.rejection = Some(RejectionRecord::from(&rejection));
            return rejection_answer(&rejection, typed_output(state, &params.name)).map(CallToolResponse::Complete);
        }
        let arguments = params.arguments.as_ref().map(Json::from_map);
        let catalog = state.deployment.catalog();
        // A served name routes by table; any other name (flat, or qualified in full) goes through the policy.
        let request = match state.served.get(params.name.as_ref()) {
            Some(&route) => McpRequest { name: Cow::Borrowed(catalog.tool(route).name.as_str()), server: Some(Cow::Borrowed(catalog.server(route).name.as_str())), arguments },
            None => McpRequest { name: Cow::Borrowed(params.name.as_ref()), server: None, arguments },
        };
        let route = match state.deployment.resolve_request_in(&request, &mut Cx::strict(), &state.stale) {
            Ok(route) => route,
            Err(rejection) => {
                tracing::info!(target: "toolseal::gateway", tool = %params.name, class = rejection.class().as_str(), pointer = rejection.pointer(), "rejected before any server");
                // A held call whose retry is rejected ends here.
                if let Some(state) = &params.request_state {
                    self.held.discard(state, &self.callers.of(context), &format!("its retry was rejected ({})", rejection.class().as_str()), Ending::Rejected);
                }
                record.rejection = Some(RejectionRecord::from(&rejection));
                return rejection_answer(&rejection, typed_output(state, &params.name)).map(CallToolResponse::Complete);
            }
        };
        let (server, tool) = (catalog.server(route).name.as_str(), catalog.tool(route).name.as_str());
        record.tool = Some(served_name(state, route));
        let principal = self.callers.of(context);
        record.principal = Some(principal.to_string());
        // A 2026-07-28 client back with its answers to the server's questions: the call it holds
        // (resolved and decided again first, like any call).
        let held = match params.request_state.as_deref().and_then(|state| self.held.take(state, &principal, &params.name, &confirm::digest(&principal, params, &[]))) {
            Some(held) if held.route != route => {
                held.abandon("the call now routes to another tool", Ending::Failed);
                None
            }
            held => held,
        };
        // The policies first (H4 by the deployment's Cedar policies), then the host's own gate; a
        // denial by either ends the call, and what they ask a person is asked once, together.
        let mut prompts = Vec::new();
        #[cfg(feature = "policy")]
        if let Some(gate) = &state.gate {
            let verdict = gate.decide(&principal, catalog.qualified(route), server, params.arguments.as_ref());
            record.policies = verdict.policies;
            if let Some(answer) = weighed(verdict.decision, server, tool, record, &mut prompts) {
                if let Some(held) = held {
                    held.abandon("the policies denied the call when its client came back", Ending::Denied);
                }
                return Ok(answer);
            }
        }
        if let Some(gate) = &self.options.gate {
            let decision = gate.decide(&GatewayCall { server, tool, called: &params.name, arguments: params.arguments.as_ref(), principal: &principal });
            if let Some(answer) = weighed(decision, server, tool, record, &mut prompts) {
                if let Some(held) = held {
                    held.abandon("the gate denied the call when its client came back", Ending::Denied);
                }
                return Ok(answer);
            }
        }
        // A held call was forwarded (confirmed first, if it had to be): it is not asked about again.
        if !prompts.is_empty() && held.is_none() {
            let asking = Asking { rounds: &self.rounds, principal: &principal, params, context };
            if let Some(answer) = confirmed(&prompts, server, tool, &asking, record).await {
                return Ok(answer);
            }
        }
        let forwarded = match held {
            Some(held) => {
                record.executed = true;
                record.confirmed = held.confirmed();
                self.resume(held, server, tool, params, context).await
            }
            None => self.forward(route, server, tool, &principal, params, context, &mut record.executed).await,
        };
        match forwarded {
            Ok(CallToolResponse::InputRequired(round)) => {
                // Held for the client's answers: this record, to audit how the call ends if it never comes back.
                record.ending = Ending::Pending;
                if let Some(state) = &round.request_state {
                    self.held.audit(state, record, &self.options.audit);
                }
                Ok(CallToolResponse::InputRequired(round))
            }
            Ok(response) => {
                record.ending = Ending::Executed;
                Ok(response)
            }
            Err((ending, why)) => {
                record.ending = ending;
                record.error = Some(why.clone());
                Ok(refusal(why))
            }
        }
    }

    /// Sends the resolved call to its server and waits for the answer, the
    /// client's cancellation, the timeout (both cancel the call downstream), or
    /// the gateway's shutdown. `sent` says whether the call reached the server;
    /// a failure says how the call ended ([`Ending::Failed`] or [`Ending::Shutdown`]) and why.
    #[allow(clippy::too_many_arguments)]
    async fn forward(
        &self,
        route: Route,
        server: &str,
        tool: &str,
        principal: &str,
        params: &CallToolRequestParams,
        context: &RequestContext<RoleServer>,
        sent: &mut bool,
    ) -> Result<CallToolResponse, (Ending, String)> {
        let downstream = &self.servers[route.server];
        if self.shutdown.is_cancelled() {
            return Err((Ending::Shutdown, format!("the gateway is shutting down: {server}/{tool} was not sent to the server")));
        }
        let failed = |why: String| (Ending::Failed, why);
        let (peer, generation) = match downstream.link() {
            Link::Up(peer, generation) => (peer, generation),
            Link::Starting => return Err(failed(format!("server {server:?} is starting; try again shortly"))),
            Link::Down(why) => return Err(failed(format!("server {server:?} is unavailable: {why}"))),
        };
        let mut forwarded = params.clone();
        forwarded.name = Cow::Owned(tool.to_owned());
        forwarded.meta = None;
        // rmcp connects downstream with `initialize`, where input rounds (2026-07-28) do not exist.
        forwarded.input_responses = None;
        forwarded.request_state = None;
        let request = ClientRequest::CallToolRequest(CallToolRequest::new(forwarded));
        // What the server asks the client meanwhile (elicitation, sampling) goes to this client: on its
        // session, or, for a 2026-07-28 client, in an input round (the call is then held for its answers).
        let (asker, asks) = if modern(context) {
            let (sender, asks) = mpsc::channel(8);
            let declared = context.client_capabilities();
            let elicitation = declared.as_ref().is_some_and(|c| c.elicitation.is_some());
            let sampling = declared.as_ref().is_some_and(|c| c.sampling.is_some());
            (Caller::Rounds(Asker { asks: sender, elicitation, sampling }), Some(asks))
        } else {
            (Caller::Session(context.peer.clone()), None)
        };
        let in_flight = downstream.in_flight(asker);
        let progress = context.meta.get_progress_token();
        let handle = match &progress {
            // Held across the send, so progress that arrives first waits for its route.
            Some(token) => {
                let mut routes = downstream.progress.lock().await;
                let handle = peer.send_cancellable_request(request, PeerRequestOptions::no_options()).await;
                if let Ok(handle) = &handle {
                    routes.insert((generation, handle.progress_token.clone()), (context.peer.clone(), token.clone()));
                }
                handle
            }
            None => peer.send_cancellable_request(request, PeerRequestOptions::no_options()).await,
        };
        let handle = handle.map_err(|e| failed(format!("server {server:?} did not take the call: {e}")))?;
        *sent = true;
        let waiting = Waiting { route, generation, routed: progress.is_some(), handle, asks, in_flight, deadline: Instant::now() + downstream.timeout };
        self.wait(waiting, server, tool, principal, params, context).await
    }

    /// Hands a 2026-07-28 client's answers to the call it holds and waits on for the result
    /// (or the server's next questions); progress goes to the retried request.
    async fn resume(&self, mut held: Held, server: &str, tool: &str, params: &CallToolRequestParams, context: &RequestContext<RoleServer>) -> Result<CallToolResponse, (Ending, String)> {
        let Some(mut parts) = held.parts.take() else {
            return Err((Ending::Failed, format!("the held call to {server}/{tool} had already ended")));
        };
        let downstream = &self.servers[held.route.server];
        let routed = match context.meta.get_progress_token() {
            Some(token) => {
                downstream.progress.lock().await.insert((held.generation, parts.handle.progress_token.clone()), (context.peer.clone(), token));
                true
            }
            None => false,
        };
        parts.answer(params.input_responses.as_ref());
        let waiting = Waiting { route: held.route, generation: held.generation, routed, handle: parts.handle, asks: Some(parts.asks), in_flight: parts.in_flight, deadline: held.deadline };
        self.wait(waiting, server, tool, &held.principal, params, context).await
    }

    /// Waits for a forwarded call's answer, the server's questions to a 2026-07-28 client (the
    /// call is then held and the client asked in an input round), the client's cancellation, the
    /// timeout (both cancel the call downstream), or the gateway's shutdown.
    async fn wait(
        &self,
        mut call: Waiting,
        server: &str,
        tool: &str,
        principal: &str,
        params: &CallToolRequestParams,
        context: &RequestContext<RoleServer>,
    ) -> Result<CallToolResponse, (Ending, String)> {
        let downstream = &self.servers[call.route.server];
        let failed = |why: String| (Ending::Failed, why);
        // The shutdown first: it also ends the client's request (rmcp cancels it) and the server's connection.
        let outcome = tokio::select! {
            biased;
            () = self.shutdown.cancelled() => Outcome::Shutdown,
            answer = tokio::time::timeout_at(call.deadline.into(), &mut call.handle.rx) => match answer {
                Ok(Ok(answer)) => Outcome::Answer(Box::new(answer)),
                Ok(Err(_)) => Outcome::Answer(Box::new(Err(rmcp::ServiceError::TransportClosed))),
                Err(_) => Outcome::Timeout,
            },
            () = context.ct.cancelled() => Outcome::Cancelled,
            Some(ask) = next_ask(&mut call.asks) => Outcome::Asked(Box::new(ask)),
        };
        if call.routed {
            downstream.progress.lock().await.remove(&(call.generation, call.handle.progress_token.clone()));
        }
        let handle = call.handle;
        let outcome = match outcome {
            Outcome::Answer(answer) if answer.is_err() && self.shutdown.is_cancelled() => Outcome::Shutdown,
            Outcome::Cancelled if self.shutdown.is_cancelled() => Outcome::Shutdown,
            outcome => outcome,
        };
        let answer = match outcome {
            Outcome::Answer(answer) => *answer,
            // The cancellation is sent on its own: a server that stopped reading must not hold this answer.
            Outcome::Timeout => {
                tokio::spawn(handle.cancel(Some("the gateway's timeout".to_owned())));
                return Err(failed(format!("server {server:?} did not answer {tool:?} within {} s", downstream.timeout.as_secs())));
            }
            Outcome::Cancelled => {
                tokio::spawn(handle.cancel(Some("the client cancelled".to_owned())));
                return Err(failed("cancelled by the client".to_owned()));
            }
            Outcome::Shutdown => {
                tokio::spawn(handle.cancel(Some("the gateway is shutting down".to_owned())));
                return Err((Ending::Shutdown, format!("the gateway is shutting down: {server}/{tool} was sent to the server, but its answer was not awaited")));
            }
            Outcome::Asked(first) => {
                // Every question asked so far goes in this round; the call is held for the answers.
                let mut asks = call.asks.expect("questions come only to a call that has them");
                let mut questions = vec![*first];
                while let Ok(more) = asks.try_recv() {
                    questions.push(more);
                }
                let (requests, pending) = held::round(questions);
                let parts = Parts { handle, asks, pending, in_flight: call.in_flight };
                let held = Held::new(principal.to_owned(), params.name.to_string(), call.route, confirm::digest(principal, params, &[]), call.generation, call.deadline, parts);
                return match self.held.hold(held, &self.shutdown) {
                    Ok(state) => Ok(CallToolResponse::InputRequired(InputRequiredResult::new(Some(requests), Some(state)))),
                    Err(why) => Err(failed(format!("server {server:?} asked a question during {tool:?}, and {why}; the call was cancelled"))),
                };
            }
        };
        let answer = answer.map_err(|e| match &e {
            rmcp::ServiceError::McpError(error) if error.data.as_ref().is_some_and(|d| d["toolseal"] == crate::child::TOO_LARGE) => {
                let limit = error.data.as_ref().and_then(|d| d["limit"].as_u64()).and_then(|l| usize::try_from(l).ok()).unwrap_or_default();
                let size = error.data.as_ref().and_then(|d| d["size"].as_u64()).unwrap_or_default();
                failed(format!(
                    "server {server:?} answered {tool:?} with {size} bytes, over the gateway's limit of {} for one message from a server; the result was dropped",
                    crate::child::bytes(limit)
                ))
            }
            _ => failed(format!("server {server:?} failed {tool:?}: {e}")),
        })?;
        match answer {
            ServerResult::CallToolResult(mut result) => {
                // A 2026-07-28 client needs `resultType`, which a server on an older version does not send.
                if result.result_type.is_none() && modern(context) {
                    result.result_type = Some(ResultType::COMPLETE);
                }
                Ok(CallToolResponse::Complete(result))
            }
            ServerResult::InputRequiredResult(result) => Ok(CallToolResponse::InputRequired(result)),
            ServerResult::CreateTaskResult(result) => Ok(CallToolResponse::Task(result)),
            _ => Err(failed(format!("server {server:?} answered {tool:?} with something that is not a tool result"))),
        }
    }
}

/// A forwarded call being waited for.
struct Waiting {
    /// Where it went.
    route: Route,
    /// The connection it went on.
    generation: u64,
    /// Its progress is routed to the client (the route is removed when the wait ends).
    routed: bool,
    handle: RequestHandle<RoleClient>,
    /// The server's questions to a 2026-07-28 client during the call.
    asks: Option<mpsc::Receiver<Ask>>,
    /// Keeps the call registered as in flight.
    in_flight: InFlight,
    /// When the server's timeout ends the call.
    deadline: Instant,
}

/// The server's next question, if the call's client is asked in input rounds.
async fn next_ask(asks: &mut Option<mpsc::Receiver<Ask>>) -> Option<Ask> {
    match asks {
        Some(asks) => asks.recv().await,
        None => None,
    }
}

/// Whether the client speaks 2026-07-28 (input rounds, no session to be asked on).
fn modern(context: &RequestContext<RoleServer>) -> bool {
    context.protocol_version().is_some_and(|v| v.as_str() >= ProtocolVersion::V_2026_07_28.as_str())
}

/// How waiting for a forwarded call ended.
enum Outcome {
    /// The server answered (or its connection closed).
    Answer(Box<Result<ServerResult, rmcp::ServiceError>>),
    /// No answer within the server's timeout.
    Timeout,
    /// The client cancelled the call.
    Cancelled,
    /// The gateway is shutting down.
    Shutdown,
    /// The server asked the call's 2026-07-28 client a question.
    Asked(Box<Ask>),
}

/// The length of `value` as JSON, without keeping the text.
fn encoded_size(value: &impl serde::Serialize) -> usize {
    struct Count(usize);
    impl std::io::Write for Count {
        fn write(&mut self, bytes: &[u8]) -> std::io::Result<usize> {
            self.0 += bytes.len();
            Ok(bytes.len())
        }
        fn flush(&mut self) -> std::io::Result<()> {
            Ok(())
        }
    }
    let mut count = Count(0);
    let _ = serde_json::to_writer(&mut count, value);
    count.0
}

/// Whether the tool served as `name` declares an `outputSchema`.
fn typed_output(state: &super::State, name: &str) -> bool {
    state.served.get(name).is_some_and(|route| state.typed_output.contains(route))
}

/// The name a client calls `route` by.
fn served_name(state: &super::State, route: Route) -> String {
    state.names.get(&route).cloned().unwrap_or_else(|| state.deployment.catalog().qualified(route).to_owned())
}

/// What asking a person about a call needs.
struct Asking<'a> {
    rounds: &'a Rounds,
    principal: &'a str,
    params: &'a CallToolRequestParams,
    context: &'a RequestContext<RoleServer>,
}

/// Records `decision`; the answer to give instead of forwarding when it denies the call
/// (H4: a real tool, resolved, not allowed now — the model reads why and can choose
/// another way). A prompt to put to a person is added to `prompts`.
fn weighed(decision: Decision, server: &str, tool: &str, record: &mut AuditRecord, prompts: &mut Vec<String>) -> Option<CallToolResponse> {
    record.decision = Some(decision.clone());
    match decision {
        Decision::Allow => None,
        Decision::Deny { reason } => {
            record.ending = Ending::Denied;
            Some(refusal(format!("H4: {server}/{tool} is not allowed now: {reason}")))
        }
        Decision::Confirm { prompt } => {
            prompts.push(prompt);
            None
        }
    }
}

/// Puts the gates' `prompts` to the person (`confirm`: elicitation during the call, or an
/// input round for a 2026-07-28 client; forms with no fields: accept or decline, within
/// [`CONFIRM_WAIT`](super::confirm::CONFIRM_WAIT)); the answer to give instead of
/// forwarding, unless they accept every one.
async fn confirmed(prompts: &[String], server: &str, tool: &str, asking: &Asking<'_>, record: &mut AuditRecord) -> Option<CallToolResponse> {
    let questions: Vec<String> = prompts.iter().map(|prompt| format!("Allow {server}/{tool}? {prompt}")).collect();
    let prompt = prompts.join("; ");
    match ask(asking.rounds, asking.principal, &questions, asking.params, asking.context).await {
        Asked::Accepted => {
            record.confirmed = Some(true);
            None
        }
        Asked::Declined => {
            record.confirmed = Some(false);
            record.ending = Ending::Denied;
            Some(refusal(format!("H4: {server}/{tool} was not confirmed: the person declined ({prompt})")))
        }
        Asked::Unable(why) => {
            record.ending = Ending::Pending;
            Some(refusal(format!("H4: {server}/{tool} needs a person to confirm it first, and {why}: {prompt}")))
        }
        Asked::Round(round) => {
            record.ending = Ending::Pending;
            Some(CallToolResponse::InputRequired(round))
        }
    }
}

/// A tool result with `isError: true` and `text`: the model reads why.
fn refusal(text: String) -> CallToolResponse {
    CallToolResponse::Complete(CallToolResult::error(vec![ContentBlock::text(text)]))
}
