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

use std::collections::HashMap;
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
    /// The resources it subscribed to: (server, the server's own URI) → the URI as the client named it.
    subscriptions: Mutex<HashMap<(usize, String), String>>,
}

impl Session {
    pub(crate) fn new(peer: Peer<RoleServer>) -> Session {
        Session { peer, level: Mutex::new(None), subscriptions: Mutex::new(HashMap::new()) }
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

    /// Holds a subscription to server `s`'s `uri`, which the client named `asked`.
    pub(crate) fn hold(&self, s: usize, uri: &str, asked: &str) {
        self.subscriptions.lock().unwrap_or_else(|e| e.into_inner()).insert((s, uri.to_owned()), asked.to_owned());
    }

    /// Lets go of the subscription the client named `asked`: which it was, if it held one.
    pub(crate) fn release(&self, asked: &str) -> Option<(usize, String)> {
        let mut subscriptions = self.subscriptions.lock().unwrap_or_else(|e| e.into_inner());
        let key = subscriptions.iter().find(|(_, named)| *named == asked).map(|(key, _)| key.clone())?;
        subscriptions.remove(&key);
        Some(key)
    }

    /// The URI the client named server `s`'s `uri` by, if it subscribed to it.
    pub(crate) fn asked(&self, s: usize, uri: &str) -> Option<String> {
        self.subscriptions.lock().unwrap_or_else(|e| e.into_inner()).get(&(s, uri.to_owned())).cloned()
    }

    /// Every subscription it holds, as (server, the server's URI).
    pub(crate) fn subscriptions(&self) -> Vec<(usize, String)> {
        self.subscriptions.lock().unwrap_or_else(|e| e.into_inner()).keys().cloned().collect()
    }
}

/// The clients on sessions.
#[derive(Default)]
pub(crate) struct Sessions {
    list: Mutex<Vec<Arc<Session>>>,
    /// Held across a subscription's change and its request to the server, so that two clients never both
    /// think the other one asked the server.
    pub(crate) subscribing: tokio::sync::Mutex<()>,
}

impl Sessions {
    /// Registers a client's session.
    pub(crate) fn add(&self, session: Arc<Session>) {
        let mut sessions = self.list.lock().unwrap_or_else(|e| e.into_inner());
        sessions.retain(|s| !s.peer.is_transport_closed());
        sessions.push(session);
    }

    /// Forgets a session that ended.
    pub(crate) fn remove(&self, session: &Arc<Session>) {
        self.list.lock().unwrap_or_else(|e| e.into_inner()).retain(|s| !Arc::ptr_eq(s, session));
    }

    /// The clients whose transport is still open.
    pub(crate) fn live(&self) -> Vec<Arc<Session>> {
        let mut sessions = self.list.lock().unwrap_or_else(|e| e.into_inner());
        sessions.retain(|s| !s.peer.is_transport_closed());
        sessions.clone()
    }

    /// Whether a live client other than `except` holds a subscription to server `s`'s `uri`.
    pub(crate) fn held_by_another(&self, except: &Session, s: usize, uri: &str) -> bool {
        self.live().iter().any(|other| !std::ptr::eq(other.as_ref(), except) && other.asked(s, uri).is_some())
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
