//! What the gateway relays besides requests and their answers, for clients on
//! sessions: server log messages (`logging/setLevel` to the servers that log, each
//! message to the clients that asked for its level, its `logger` qualified as
//! `server__logger`) and resource updates (`resources/subscribe` resolved like a
//! read and held per client, each update to the clients subscribed to it).
//! Servers are shared: a server is asked the most verbose level any client set,
//! and holds a subscription while any client does; after a restart it is asked
//! again.

#![allow(deprecated)] // logging and `resources/subscribe`: gone from 2026-07-28, used by clients before it

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

    /// `resources/subscribe` (`on`) or `resources/unsubscribe` of `uri` for one client: resolved like a read
    /// (M1 for a URI no server offers, M2 for one several do), held for the client, and sent to the server
    /// when it is the first client to hold it (or the last to let it go).
    pub(super) async fn subscribe(&self, session: &Session, uri: &str, on: bool) -> Result<(), ErrorData> {
        let (s, peer, server_uri) = self.resource_route(uri)?;
        let server = &self.servers[s];
        if on && !peer.peer_info().and_then(|info| info.capabilities.resources.as_ref()?.subscribe).unwrap_or(false) {
            return Err(ErrorData::invalid_request(format!("server {:?} does not offer subscriptions to its resources", server.name), None));
        }
        let held = session.subscribe(s, &server_uri, on);
        let others = self.sessions.live().iter().any(|other| !std::ptr::eq(other.as_ref(), session) && other.subscribed(s, &server_uri));
        if others || held == on {
            return Ok(());
        }
        let sent = if on {
            tokio::time::timeout(server.timeout, peer.subscribe(SubscribeRequestParams::new(server_uri.clone()))).await
        } else {
            tokio::time::timeout(server.timeout, peer.unsubscribe(UnsubscribeRequestParams::new(server_uri.clone()))).await
        };
        match sent {
            Ok(Ok(())) => Ok(()),
            Ok(Err(e)) => {
                session.subscribe(s, &server_uri, !on);
                Err(ErrorData::internal_error(format!("server {:?} did not take the subscription: {e}", server.name), None))
            }
            Err(_) => Err(ErrorData::internal_error(format!("server {:?} did not answer the subscription in time", server.name), None)),
        }
    }

    /// After server `s` (re)connected: it is asked the log level and the subscriptions its clients hold.
    pub(crate) async fn resume_relays(&self, s: usize, peer: &Peer<RoleClient>) {
        self.send_log_level(s, peer).await;
        let mut uris: Vec<String> = self.sessions.live().iter().flat_map(|session| session.subscriptions_on(s)).collect();
        uris.sort();
        uris.dedup();
        for uri in uris {
            if let Err(e) = peer.subscribe(SubscribeRequestParams::new(uri)).await {
                tracing::warn!(target: "toolseal::gateway", server = %self.servers[s].name, "a subscription was not taken again after the restart: {e}");
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

    /// A resource update from server `s`, to each client subscribed to it (by the URI it knows).
    pub(crate) async fn relay_update(&self, s: usize, mut update: ResourceUpdatedNotificationParam) {
        let subscribed: Vec<_> = self.sessions.live().into_iter().filter(|session| session.subscribed(s, &update.uri)).collect();
        if subscribed.is_empty() {
            return;
        }
        update.uri = self.served_resource(s, &update.uri);
        for session in subscribed {
            let _ = session.peer.notify_resource_updated(update.clone()).await;
        }
    }
}
