//! The clients on sessions (up to 2025-11-25) and what each asked to hear: list
//! changes (all of them), server log messages at or above the level it set
//! (`logging/setLevel`), and updates of the resources it subscribed to
//! (`resources/subscribe`). Servers are shared by every client, so what a server is
//! asked is the union: the most verbose level any client set, and a subscription
//! while any client holds it; what a server sends goes only to the clients that
//! asked. A 2026-07-28 client has no session (its requests stand alone): these
//! methods are gone from that version (logging by SEP-2577, subscriptions by
//! `subscriptions/listen`).

#![allow(deprecated)] // rmcp marks logging and `resources/subscribe` deprecated; clients up to 2025-11-25 use them.

use std::collections::HashSet;
use std::sync::{Arc, Mutex};

use rmcp::RoleServer;
use rmcp::model::LoggingLevel;
use rmcp::service::Peer;

/// One client on a session.
pub(crate) struct Session {
    /// Where what it asked to hear goes.
    pub(crate) peer: Peer<RoleServer>,
    /// The least severe log message it asked for; `None`: it asked for none.
    level: Mutex<Option<LoggingLevel>>,
    /// The resources it subscribed to, as (server, the server's own URI).
    subscriptions: Mutex<HashSet<(usize, String)>>,
}

impl Session {
    pub(crate) fn new(peer: Peer<RoleServer>) -> Session {
        Session { peer, level: Mutex::new(None), subscriptions: Mutex::new(HashSet::new()) }
    }

    pub(crate) fn set_level(&self, level: LoggingLevel) {
        *self.level.lock().unwrap_or_else(|e| e.into_inner()) = Some(level);
    }

    pub(crate) fn level(&self) -> Option<LoggingLevel> {
        *self.level.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Whether it asked for a message of `level`.
    pub(crate) fn hears(&self, level: LoggingLevel) -> bool {
        self.level().is_some_and(|asked| severity(level) >= severity(asked))
    }

    /// Adds or removes a subscription; whether it held it before.
    pub(crate) fn subscribe(&self, server: usize, uri: &str, on: bool) -> bool {
        let mut subscriptions = self.subscriptions.lock().unwrap_or_else(|e| e.into_inner());
        let key = (server, uri.to_owned());
        if on { !subscriptions.insert(key) } else { subscriptions.remove(&key) }
    }

    pub(crate) fn subscribed(&self, server: usize, uri: &str) -> bool {
        self.subscriptions.lock().unwrap_or_else(|e| e.into_inner()).contains(&(server, uri.to_owned()))
    }

    /// Its subscriptions on `server`.
    pub(crate) fn subscriptions_on(&self, server: usize) -> Vec<String> {
        self.subscriptions.lock().unwrap_or_else(|e| e.into_inner()).iter().filter(|(s, _)| *s == server).map(|(_, uri)| uri.clone()).collect()
    }
}

/// The clients on sessions.
#[derive(Default)]
pub(crate) struct Sessions(Mutex<Vec<Arc<Session>>>);

impl Sessions {
    /// Registers a client that finished `initialize`.
    pub(crate) fn add(&self, session: Arc<Session>) {
        let mut sessions = self.0.lock().unwrap_or_else(|e| e.into_inner());
        sessions.retain(|s| !s.peer.is_transport_closed());
        sessions.push(session);
    }

    /// The clients whose transport is still open.
    pub(crate) fn live(&self) -> Vec<Arc<Session>> {
        let mut sessions = self.0.lock().unwrap_or_else(|e| e.into_inner());
        sessions.retain(|s| !s.peer.is_transport_closed());
        sessions.clone()
    }

    /// The most verbose level any live client asked for.
    pub(crate) fn level(&self) -> Option<LoggingLevel> {
        self.live().iter().filter_map(|s| s.level()).min_by_key(|l| severity(*l))
    }
}

/// RFC 5424's order of the MCP levels, least severe first.
pub(crate) fn severity(level: LoggingLevel) -> u8 {
    match level {
        LoggingLevel::Debug => 0,
        LoggingLevel::Info => 1,
        LoggingLevel::Notice => 2,
        LoggingLevel::Warning => 3,
        LoggingLevel::Error => 4,
        LoggingLevel::Critical => 5,
        LoggingLevel::Alert => 6,
        LoggingLevel::Emergency => 7,
    }
}
