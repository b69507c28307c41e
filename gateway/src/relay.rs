//! What the gateway relays besides requests and their answers, for clients on
//! sessions: server log messages (`logging/setLevel` to the servers that log, each
//! message to the clients that asked for its level, its `logger` qualified as
//! `server__logger`) and resource updates (`resources/subscribe` resolved like a
//! read and held per client, each update to the clients subscribed to it).
//! Servers are shared: a server is asked the most verbose level any client set,
//! and holds a subscription while any client does; after a restart it is asked
//! again.

#![allow(deprecated)] // logging and `resources/subscribe`: gone from 2026-07-28, used by clients before it

use std::sync::Arc;

use rmcp::RoleClient;
use rmcp::model::{ErrorData, LoggingMessageNotificationParam, ResourceUpdatedNotificationParam, SetLevelRequestParams, SubscribeRequestParams, UnsubscribeRequestParams};
use rmcp::service::Peer;

use super::Core;
use super::downstream::Link;
use super::session::Session;

impl Core {
    /// Asks every connected server that logs for the most verbose level a client set.
    pub(super) async fn relay_log_level(&self) {
        for (s, server) in self.servers.iter().enumerate() {
            if let Link::Up(peer, _) = server.link() {
                self.send_log_level(s, &peer).await;
            }
        }
    }

    async fn send_log_level(&self, s: usize, peer: &Peer<RoleClient>) {
        let (Some(level), true) = (self.sessions.level(), peer.peer_info().is_some_and(|info| info.capabilities.logging.is_some())) else { return };
        let server = &self.servers[s];
        match tokio::time::timeout(server.timeout, peer.set_level(SetLevelRequestParams::new(level))).await {
            Ok(Ok(())) => {}
            Ok(Err(e)) => tracing::debug!(target: "toolseal::gateway", server = %server.name, "logging/setLevel not taken: {e}"),
            Err(_) => tracing::debug!(target: "toolseal::gateway", server = %server.name, "logging/setLevel not answered in time"),
        }
    }

    /// `resources/subscribe` of `uri` for one client: resolved like a read (M1 for a URI no server offers, M2 for
    /// one several do), sent to the server when no other client holds it, and held for the client once the server
    /// took it.
    pub(super) async fn subscribe(&self, session: &Session, uri: &str) -> Result<(), ErrorData> {
        let _serial = self.sessions.subscribing.lock().await;
        let (s, peer, server_uri) = self.resource_route(uri)?;
        let server = &self.servers[s];
        if !peer.peer_info().and_then(|info| info.capabilities.resources.as_ref()?.subscribe).unwrap_or(false) {
            return Err(ErrorData::invalid_request(format!("server {:?} does not offer subscriptions to its resources", server.name), None));
        }
        if session.asked(s, &server_uri).is_some() {
            return Ok(());
        }
        if !self.sessions.held_by_another(session, s, &server_uri) {
            match tokio::time::timeout(server.timeout, peer.subscribe(SubscribeRequestParams::new(server_uri.clone()))).await {
                Ok(Ok(())) => {}
                Ok(Err(e)) => return Err(ErrorData::internal_error(format!("server {:?} did not take the subscription: {e}", server.name), None)),
                Err(_) => return Err(ErrorData::internal_error(format!("server {:?} did not answer the subscription in time", server.name), None)),
            }
        }
        session.hold(s, &server_uri, uri);
        Ok(())
    }

    /// `resources/unsubscribe` of `uri` (as the client named it when it subscribed) for one client: let go of at
    /// once, and sent to the server when no other client holds it (what the server says is logged).
    pub(super) async fn unsubscribe(&self, session: &Session, uri: &str) {
        let _serial = self.sessions.subscribing.lock().await;
        if let Some((s, server_uri)) = session.release(uri)
            && !self.sessions.held_by_another(session, s, &server_uri)
        {
            self.send_unsubscribe(s, server_uri).await;
        }
    }

    async fn send_unsubscribe(&self, s: usize, uri: String) {
        let server = &self.servers[s];
        let Link::Up(peer, _) = server.link() else { return };
        match tokio::time::timeout(server.timeout, peer.unsubscribe(UnsubscribeRequestParams::new(uri))).await {
            Ok(Ok(())) => {}
            Ok(Err(e)) => tracing::debug!(target: "toolseal::gateway", server = %server.name, "resources/unsubscribe not taken: {e}"),
            Err(_) => tracing::debug!(target: "toolseal::gateway", server = %server.name, "resources/unsubscribe not answered in time"),
        }
    }

    /// A client's session ended: the subscriptions no other client holds are let go of at their servers, and
    /// the servers are asked the level the remaining clients want.
    pub(crate) async fn session_ended(&self, session: Arc<Session>) {
        self.sessions.remove(&session);
        let _serial = self.sessions.subscribing.lock().await;
        for (s, uri) in session.subscriptions() {
            if !self.sessions.held_by_another(&session, s, &uri) {
                self.send_unsubscribe(s, uri).await;
            }
        }
        drop(_serial);
        if session.level().is_some() {
            self.relay_log_level().await;
        }
    }

    /// After server `s` (re)connected: it is asked the log level and the subscriptions its clients hold
    /// (each within the server's timeout).
    pub(crate) async fn resume_relays(&self, s: usize, peer: &Peer<RoleClient>) {
        self.send_log_level(s, peer).await;
        let mut uris: Vec<String> = self.sessions.live().iter().flat_map(|session| session.subscriptions()).filter(|(server, _)| *server == s).map(|(_, uri)| uri).collect();
        uris.sort();
        uris.dedup();
        let server = &self.servers[s];
        for uri in uris {
            match tokio::time::timeout(server.timeout, peer.subscribe(SubscribeRequestParams::new(uri))).await {
                Ok(Ok(())) => {}
                Ok(Err(e)) => tracing::warn!(target: "toolseal::gateway", server = %server.name, "a subscription was not taken again after the restart: {e}"),
                Err(_) => tracing::warn!(target: "toolseal::gateway", server = %server.name, "a subscription was not answered in time after the restart"),
            }
        }
    }

    /// A log message from server `s`, to each client that asked for its level.
    pub(crate) async fn relay_log(&self, s: usize, mut message: LoggingMessageNotificationParam) {
        let name = &self.servers[s].name;
        message.logger = Some(match message.logger.take() {
            Some(logger) => format!("{name}__{logger}"),
            None => name.clone(),
        });
        for session in self.sessions.live().into_iter().filter(|session| session.hears(message.level)) {
            let _ = session.peer.notify_logging_message(message.clone()).await;
        }
    }

    /// A resource update from server `s`, to each client subscribed to it, by the URI it named.
    pub(crate) async fn relay_update(&self, s: usize, update: ResourceUpdatedNotificationParam) {
        for session in self.sessions.live() {
            if let Some(asked) = session.asked(s, &update.uri) {
                let mut update = update.clone();
                update.uri = asked;
                let _ = session.peer.notify_resource_updated(update).await;
            }
        }
    }
}
