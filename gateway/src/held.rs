//! Calls held across a 2026-07-28 client's input rounds.
//!
//! A client on a session (up to 2025-11-25) is sent a server's elicitation or sampling
//! request while its call waits. A 2026-07-28 client has no session to be asked on:
//! when the server asks during its call, the gateway holds the forwarded call, answers
//! the client with an input round (`InputRequired`, the server's requests and a
//! `requestState`), and when the client retries the call with its answers — resolved and
//! decided again like any call — hands them to the server and goes on waiting for the
//! result (or the next round). The answers count only with a state this gateway handed
//! out, unused, for the same principal, route, tool and arguments, before the server's
//! timeout. A held call that ends without its client (the deadline, a denial or a
//! rejection of the retry, the call sent again with other arguments, the gateway's
//! shutdown) is cancelled at the server and audited with how it ended.

use std::collections::{BTreeMap, HashMap};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use rmcp::RoleClient;
use rmcp::model::{InputRequest, InputRequests, InputResponses};
use rmcp::service::RequestHandle;
use serde_json::Value;
use tokio::sync::{mpsc, oneshot};
use tokio_util::sync::CancellationToken;
use toolseal_runtime::mcp::Route;
use toolseal_runtime::pipeline::{AuditRecord, AuditSink, Ending};

use super::downstream::InFlight;

/// The most calls held for an answer at once, and for one principal.
const MOST_HELD: usize = 1024;
const MOST_HELD_PER_PRINCIPAL: usize = 32;

/// The longest wait for a held call's cancellation to be written to its server.
const CANCEL_WAIT: Duration = Duration::from_secs(5);

/// A request the server sent during a call whose client is asked in input rounds.
pub(crate) struct Ask {
    /// What the server asks, as the client is to be asked it.
    pub(crate) request: InputRequest,
    /// Where the client's answer goes.
    pub(crate) answer: oneshot::Sender<Value>,
}

/// Where a server's requests during a call of a 2026-07-28 client go, and what that client can answer.
#[derive(Clone)]
pub(crate) struct Asker {
    /// The call's queue of questions.
    pub(crate) asks: mpsc::Sender<Ask>,
    /// The client declared elicitation.
    pub(crate) elicitation: bool,
    /// The client declared sampling.
    pub(crate) sampling: bool,
}

/// The call at the server while it is held.
pub(crate) struct Parts {
    /// The call at the server.
    pub(crate) handle: RequestHandle<RoleClient>,
    /// Further questions the server asks during the call.
    pub(crate) asks: mpsc::Receiver<Ask>,
    /// The questions put to the client in the round handed out, by key.
    pub(crate) pending: Vec<(String, oneshot::Sender<Value>)>,
    /// Keeps the call registered as in flight (the server's requests come here).
    pub(crate) in_flight: InFlight,
}

/// A forwarded call waiting for a client's answers.
pub(crate) struct Held {
    /// Who made the call.
    pub(crate) principal: String,
    /// The tool as the client called it.
    pub(crate) tool: String,
    /// Where it went.
    pub(crate) route: Route,
    /// What the answers are for: a digest of the principal, the tool and the arguments.
    pub(crate) call: String,
    /// The connection it went on.
    pub(crate) generation: u64,
    /// When the server's timeout ends the call.
    pub(crate) deadline: Instant,
    /// The call itself; taken when the client comes back.
    pub(crate) parts: Option<Parts>,
    /// The record of the attempt that handed out the round, and where records go.
    audit: Option<(AuditRecord, Vec<Arc<dyn AuditSink>>)>,
    /// Why the call ends without its client, and how (set by [`Held::abandon`]).
    end: Option<(String, Ending)>,
}

impl Held {
    /// A call held from now on.
    pub(crate) fn new(principal: String, tool: String, route: Route, call: String, generation: u64, deadline: Instant, parts: Parts) -> Held {
        Held { principal, tool, route, call, generation, deadline, parts: Some(parts), audit: None, end: None }
    }

    /// Whether the attempt that handed out the round was confirmed by a person first.
    pub(crate) fn confirmed(&self) -> Option<bool> {
        self.audit.as_ref().and_then(|(record, _)| record.confirmed)
    }

    /// Ends the call without its client: cancelled at the server, the end audited.
    pub(crate) fn abandon(mut self, why: &str, ending: Ending) {
        self.end = Some((why.to_owned(), ending));
    }
}

impl Parts {
    /// Hands the client's `responses` to the questions they answer (an unanswered
    /// question is dropped: the server hears that its request failed).
    pub(crate) fn answer(&mut self, responses: Option<&InputResponses>) {
        for (key, answer) in self.pending.drain(..) {
            if let Some(response) = responses.and_then(|r| r.get(&key)) {
                let _ = answer.send(response.clone());
            }
        }
    }
}

/// A held call dropped with its parts (not resumed) ends without its client: its questions
/// fail at the server and its slot is freed at once, the call is cancelled there (the write
/// bounded), and its end is audited.
impl Drop for Held {
    fn drop(&mut self) {
        let Some(Parts { handle, asks, pending, in_flight }) = self.parts.take() else { return };
        drop((asks, pending, in_flight));
        let (why, ending) = self.end.take().unwrap_or_else(|| ("the gateway let go of the call".to_owned(), Ending::Failed));
        if let Some((mut record, sinks)) = self.audit.take() {
            record.ending = ending;
            record.executed = true;
            record.error = Some(why.clone());
            record.emit(&sinks);
        }
        if let Ok(runtime) = tokio::runtime::Handle::try_current() {
            runtime.spawn(async move {
                let _ = tokio::time::timeout(CANCEL_WAIT, handle.cancel(Some(why))).await;
            });
        }
    }
}

/// The requests of one round, keyed for the client (`server/{n}`), with where each answer goes.
pub(crate) fn round(asks: Vec<Ask>) -> (InputRequests, Vec<(String, oneshot::Sender<Value>)>) {
    let mut requests = BTreeMap::new();
    let mut pending = Vec::new();
    for (n, ask) in asks.into_iter().enumerate() {
        let key = format!("server/{n}");
        requests.insert(key.clone(), ask.request);
        pending.push((key, ask.answer));
    }
    (requests, pending)
}

/// The calls held, by the `requestState` handed out.
#[derive(Default, Clone)]
pub(crate) struct HeldCalls(Arc<Mutex<HashMap<String, Held>>>);

impl HeldCalls {
    /// Holds `held` until the client comes back, its deadline passes or `shutdown`: the
    /// `requestState` to hand out. Refused (the call is cancelled) past a quota.
    pub(crate) fn hold(&self, held: Held, shutdown: &CancellationToken) -> Result<String, String> {
        let mut calls = self.0.lock().unwrap_or_else(|e| e.into_inner());
        let expired = sweep(&mut calls);
        let why = if calls.values().filter(|h| h.principal == held.principal).count() >= MOST_HELD_PER_PRINCIPAL {
            Some(format!("{MOST_HELD_PER_PRINCIPAL} calls of this principal are already waiting for an answer"))
        } else if calls.len() >= MOST_HELD {
            Some(format!("{MOST_HELD} calls are already waiting for an answer"))
        } else {
            None
        };
        if let Some(why) = why {
            drop(calls);
            drop(expired);
            held.abandon(&why, Ending::Failed);
            return Err(why);
        }
        let state = uuid::Uuid::new_v4().simple().to_string();
        let deadline = held.deadline;
        calls.insert(state.clone(), held);
        drop(calls);
        drop(expired);
        // The deadline or the shutdown ends a call its client did not come back for.
        let (calls, expiring, shutdown) = (self.clone(), state.clone(), shutdown.clone());
        tokio::spawn(async move {
            let ending = tokio::select! {
                () = tokio::time::sleep_until(deadline.into()) => (Ending::Failed, "the server's timeout passed before the client answered"),
                () = shutdown.cancelled() => (Ending::Shutdown, "the gateway is shutting down"),
            };
            let held = calls.0.lock().unwrap_or_else(|e| e.into_inner()).remove(&expiring);
            if let Some(held) = held {
                held.abandon(ending.1, ending.0);
            }
        });
        Ok(state)
    }

    /// Keeps `record` (the attempt that handed out `state`) to audit how the held call ends.
    pub(crate) fn audit(&self, state: &str, record: &AuditRecord, sinks: &[Arc<dyn AuditSink>]) {
        if let Some(held) = self.0.lock().unwrap_or_else(|e| e.into_inner()).get_mut(state) {
            held.audit = Some((record.clone(), sinks.to_vec()));
        }
    }

    /// The call `principal` holds under `state` for `call` (a digest of the tool as called
    /// and the arguments), in time: taken now. The same principal's same tool sent with
    /// other arguments ends the held call (it was sent again, changed); any other state,
    /// principal or tool leaves it held.
    pub(crate) fn take(&self, state: &str, principal: &str, tool: &str, call: &str) -> Option<Held> {
        let mut calls = self.0.lock().unwrap_or_else(|e| e.into_inner());
        let expired = sweep(&mut calls);
        let held = match calls.get(state) {
            Some(h) if h.principal == principal && h.tool == tool => calls.remove(state),
            _ => None,
        };
        drop(calls);
        drop(expired);
        match held {
            Some(held) if held.call == call => Some(held),
            Some(held) => {
                held.abandon("the client sent the call again with other arguments", Ending::Failed);
                None
            }
            None => None,
        }
    }

    /// Ends every held call (the gateway is shutting down).
    pub(crate) fn end_all(&self, why: &str, ending: Ending) {
        let held: Vec<Held> = self.0.lock().unwrap_or_else(|e| e.into_inner()).drain().map(|(_, held)| held).collect();
        for held in held {
            held.abandon(why, ending);
        }
    }

    /// Ends the call `principal` holds under `state`, if any (its retry was refused).
    pub(crate) fn discard(&self, state: &str, principal: &str, why: &str, ending: Ending) {
        let mut calls = self.0.lock().unwrap_or_else(|e| e.into_inner());
        let held = if calls.get(state).is_some_and(|h| h.principal == principal) { calls.remove(state) } else { None };
        drop(calls);
        if let Some(held) = held {
            held.abandon(why, ending);
        }
    }
}

/// Takes out the calls whose deadline passed (dropped by the caller once the lock is let go).
fn sweep(calls: &mut HashMap<String, Held>) -> Vec<Held> {
    let now = Instant::now();
    let expired: Vec<String> = calls.iter().filter(|(_, h)| h.deadline <= now).map(|(k, _)| k.clone()).collect();
    expired
        .into_iter()
        .filter_map(|key| calls.remove(&key))
        .map(|mut held| {
            held.end = Some(("the server's timeout passed before the client answered".to_owned(), Ending::Failed));
            held
        })
        .collect()
}
