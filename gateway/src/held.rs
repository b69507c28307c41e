//! Calls held across a 2026-07-28 client's input rounds.
//!
//! A client on a session (up to 2025-11-25) is sent a server's elicitation or sampling
//! request while its call waits. A 2026-07-28 client has no session to be asked on:
//! when the server asks during its call, the gateway holds the forwarded call, answers
//! the client with an input round (`InputRequired`, the server's requests and a
//! `requestState`), and when the client retries the call with its answers — resolved and
//! decided again like any call — hands them to the server and goes on waiting for the
//! result (or the next round). The answers count only with a state this gateway handed
//! out, unused, for the same principal, tool and arguments, before the server's timeout.

use std::collections::{BTreeMap, HashMap};
use std::sync::{Arc, Mutex};
use std::time::Instant;

use rmcp::RoleClient;
use rmcp::model::{InputRequest, InputRequests, InputResponses};
use rmcp::service::RequestHandle;
use serde_json::Value;
use tokio::sync::{mpsc, oneshot};

use super::downstream::InFlight;

/// The most calls held for an answer at once, and for one principal.
const MOST_HELD: usize = 1024;
const MOST_HELD_PER_PRINCIPAL: usize = 32;

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

/// A forwarded call waiting for a client's answers.
pub(crate) struct Held {
    /// Who made the call.
    pub(crate) principal: String,
    /// What the answers are for: a digest of the principal, the tool and the arguments.
    pub(crate) call: String,
    /// The server it went to (index in the gateway's servers).
    pub(crate) server: usize,
    /// The connection it went on.
    pub(crate) generation: u64,
    /// The call at the server.
    pub(crate) handle: RequestHandle<RoleClient>,
    /// Further questions the server asks during the call.
    pub(crate) asks: mpsc::Receiver<Ask>,
    /// The questions put to the client in the round handed out, by key.
    pub(crate) pending: Vec<(String, oneshot::Sender<Value>)>,
    /// Keeps the call registered as in flight (the server's requests come here).
    pub(crate) in_flight: InFlight,
    /// When the server's timeout ends the call.
    pub(crate) deadline: Instant,
}

impl Held {
    /// Hands the client's `responses` to the questions they answer (an unanswered
    /// question is dropped: the server hears that its request failed).
    pub(crate) fn answer(&mut self, responses: Option<&InputResponses>) {
        for (key, answer) in self.pending.drain(..) {
            if let Some(response) = responses.and_then(|r| r.get(&key)) {
                let _ = answer.send(response.clone());
            }
        }
    }

    /// Cancels the call at the server (the gateway's own reason).
    pub(crate) fn abandon(self, why: &str) {
        let why = why.to_owned();
        tokio::spawn(async move { self.handle.cancel(Some(why)).await });
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
    /// Holds `held` until the client comes back or its deadline passes: the `requestState`
    /// to hand out. Refused (the call is cancelled) past a quota.
    pub(crate) fn hold(&self, held: Held) -> Result<String, String> {
        let mut calls = self.0.lock().unwrap_or_else(|e| e.into_inner());
        sweep(&mut calls);
        let why = if calls.values().filter(|h| h.principal == held.principal).count() >= MOST_HELD_PER_PRINCIPAL {
            Some(format!("{MOST_HELD_PER_PRINCIPAL} calls of this principal are already waiting for an answer"))
        } else if calls.len() >= MOST_HELD {
            Some(format!("{MOST_HELD} calls are already waiting for an answer"))
        } else {
            None
        };
        if let Some(why) = why {
            held.abandon("the gateway holds too many calls for answers");
            return Err(why);
        }
        let state = uuid::Uuid::new_v4().simple().to_string();
        let deadline = held.deadline;
        calls.insert(state.clone(), held);
        drop(calls);
        // The deadline ends a call its client never came back for.
        let (calls, expiring) = (self.clone(), state.clone());
        tokio::spawn(async move {
            tokio::time::sleep_until(deadline.into()).await;
            let expired = calls.0.lock().unwrap_or_else(|e| e.into_inner()).remove(&expiring);
            if let Some(held) = expired {
                held.abandon("the gateway's timeout: the client did not answer");
            }
        });
        Ok(state)
    }

    /// The call held under `state` for `call`, in time (it is taken now); `None` for any
    /// other state or call (a call held under `state` for another call stays held).
    pub(crate) fn take(&self, state: &str, call: &str) -> Option<Held> {
        let mut calls = self.0.lock().unwrap_or_else(|e| e.into_inner());
        sweep(&mut calls);
        if calls.get(state).is_some_and(|h| h.call == call) { calls.remove(state) } else { None }
    }
}

/// Lets go of the calls whose deadline passed.
fn sweep(calls: &mut HashMap<String, Held>) {
    let now = Instant::now();
    let expired: Vec<String> = calls.iter().filter(|(_, h)| h.deadline <= now).map(|(k, _)| k.clone()).collect();
    for key in expired {
        if let Some(held) = calls.remove(&key) {
            held.abandon("the gateway's timeout: the client did not answer");
        }
    }
}
