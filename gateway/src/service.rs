//! The MCP server a client talks to: the merged tool list, every call resolved
//! before it is forwarded, and `list_changed` — unsolicited on sessions (up to
//! 2025-11-25), on `subscriptions/listen` streams (2026-07-28); the servers'
//! prompts, resources, templates and completions, each request resolved before it
//! is forwarded (`offered`), advertised only when a connected server has them.

use std::sync::{Arc, OnceLock, Weak};

#[allow(deprecated)] // logging: gone from 2026-07-28 (SEP-2577), used by clients before it
use rmcp::model::SetLevelRequestParams;
use rmcp::model::{
    CallToolRequestParams, CallToolResponse, CompleteRequestParams, CompleteResult, ErrorData, GetPromptRequestParams, GetPromptResponse, Implementation, InitializeResult, ListPromptsResult,
    ListResourceTemplatesResult, ListResourcesResult, ListToolsResult, PaginatedRequestParams, ProtocolVersion, ReadResourceRequestParams, ReadResourceResponse, ServerCapabilities, ServerConfig,
    SubscribeRequestParams, SubscriptionFilter, UnsubscribeRequestParams,
};
use rmcp::service::{NotificationContext, Peer, RequestContext, SubscriptionContext};
use rmcp::{RoleServer, ServerHandler};
use tokio::sync::broadcast::error::RecvError;

use super::session::Session;
use super::{Changed, Core};

/// The gateway as an rmcp [`ServerHandler`]: serve it over any rmcp transport
/// (one per client: it holds the client's session).
#[derive(Clone)]
pub struct GatewayService {
    core: Arc<Core>,
    slot: Arc<Slot>,
}

/// The session of the client a service serves, once it has one (a 2026-07-28 client has none); when the
/// service ends, so does the session.
struct Slot {
    session: OnceLock<Arc<Session>>,
    core: Weak<Core>,
}

impl Drop for Slot {
    fn drop(&mut self) {
        if let (Some(session), Some(core), Ok(runtime)) = (self.session.take(), self.core.upgrade(), tokio::runtime::Handle::try_current()) {
            runtime.spawn(async move { core.session_ended(session).await });
        }
    }
}

impl GatewayService {
    pub(super) fn new(core: Arc<Core>) -> GatewayService {
        let slot = Arc::new(Slot { session: OnceLock::new(), core: Arc::downgrade(&core) });
        GatewayService { core, slot }
    }

    /// The client's session, registered the first time it is needed (at `notifications/initialized`, or by a
    /// request that comes first); `method` is refused to a 2026-07-28 request, which has none.
    fn session(&self, context: &RequestContext<RoleServer>, method: &str) -> Result<Arc<Session>, ErrorData> {
        if context.protocol_version().is_some_and(|v| v.as_str() >= ProtocolVersion::V_2026_07_28.as_str()) {
            return Err(ErrorData::invalid_request(format!("{method} is not part of 2026-07-28 (it has no sessions)"), None));
        }
        Ok(self.register(&context.peer))
    }

    fn register(&self, peer: &Peer<RoleServer>) -> Arc<Session> {
        let mut created = false;
        let session = self.slot.session.get_or_init(|| {
            created = true;
            Arc::new(Session::new(peer.clone()))
        });
        if created {
            self.core.sessions.add(session.clone());
        }
        session.clone()
    }
}

const INSTRUCTIONS: &str = "toolseal gateway: every tool is named server__tool; each call is checked against the tool's pinned definition (name, arguments, values) before it reaches the server, and a rejected call says what to fix.";

impl ServerHandler for GatewayService {
    fn get_info(&self) -> ServerConfig {
        let mut capabilities = ServerCapabilities::builder().enable_tools().enable_tool_list_changed().build();
        self.core.offered_capabilities(&mut capabilities);
        let mut info = InitializeResult::new(capabilities);
        info.server_info = Implementation::new("toolseal-gateway", env!("CARGO_PKG_VERSION"));
        info.instructions = Some(INSTRUCTIONS.to_owned());
        info
    }

    async fn list_tools(&self, _request: Option<PaginatedRequestParams>, context: RequestContext<RoleServer>) -> Result<ListToolsResult, ErrorData> {
        let state = self.core.state();
        // With policies, a principal is not shown a tool that no policy could let it call.
        #[cfg(feature = "policy")]
        if let Some(gate) = &state.gate {
            let principal = self.core.callers.of(&context);
            let catalog = state.deployment.catalog();
            let listed = state.tools.iter().filter(|tool| state.served.get(tool.name.as_ref()).is_none_or(|&route| gate.may_allow(&principal, catalog.qualified(route)))).cloned().collect();
            return Ok(ListToolsResult::with_all_items(listed));
        }
        #[cfg(not(feature = "policy"))]
        let _ = context;
        Ok(ListToolsResult::with_all_items(state.tools.clone()))
    }

    async fn call_tool(&self, request: CallToolRequestParams, context: RequestContext<RoleServer>) -> Result<CallToolResponse, ErrorData> {
        self.core.call(request, context).await
    }

    async fn list_prompts(&self, _request: Option<PaginatedRequestParams>, _context: RequestContext<RoleServer>) -> Result<ListPromptsResult, ErrorData> {
        Ok(self.core.list_prompts())
    }

    async fn get_prompt(&self, request: GetPromptRequestParams, _context: RequestContext<RoleServer>) -> Result<GetPromptResponse, ErrorData> {
        self.core.get_prompt(request).await
    }

    async fn list_resources(&self, _request: Option<PaginatedRequestParams>, _context: RequestContext<RoleServer>) -> Result<ListResourcesResult, ErrorData> {
        Ok(self.core.list_resources())
    }

    async fn list_resource_templates(&self, _request: Option<PaginatedRequestParams>, _context: RequestContext<RoleServer>) -> Result<ListResourceTemplatesResult, ErrorData> {
        Ok(self.core.list_resource_templates())
    }

    async fn read_resource(&self, request: ReadResourceRequestParams, _context: RequestContext<RoleServer>) -> Result<ReadResourceResponse, ErrorData> {
        self.core.read_resource(request).await
    }

    async fn complete(&self, request: CompleteRequestParams, _context: RequestContext<RoleServer>) -> Result<CompleteResult, ErrorData> {
        self.core.complete(request).await
    }

    async fn on_initialized(&self, context: NotificationContext<RoleServer>) {
        self.register(&context.peer);
    }

    #[allow(deprecated)] // logging: gone from 2026-07-28 (SEP-2577), used by clients before it
    async fn set_level(&self, request: SetLevelRequestParams, context: RequestContext<RoleServer>) -> Result<(), ErrorData> {
        self.session(&context, "logging/setLevel")?.set_level(request.level);
        self.core.relay_log_level().await;
        Ok(())
    }

    #[allow(deprecated)] // `resources/subscribe`: replaced by `subscriptions/listen` in 2026-07-28, used by clients before it
    async fn subscribe(&self, request: SubscribeRequestParams, context: RequestContext<RoleServer>) -> Result<(), ErrorData> {
        self.core.subscribe(&*self.session(&context, "resources/subscribe")?, &request.uri).await
    }

    #[allow(deprecated)]
    async fn unsubscribe(&self, request: UnsubscribeRequestParams, context: RequestContext<RoleServer>) -> Result<(), ErrorData> {
        self.core.unsubscribe(&*self.session(&context, "resources/unsubscribe")?, &request.uri).await;
        Ok(())
    }

    // rmcp intersects this with what was requested and what `get_info` advertises (prompts and
    // resources only while a connected server has them). Resource updates are not carried.
    fn accepted_subscription_filter(&self, _requested: &SubscriptionFilter) -> Option<SubscriptionFilter> {
        Some(SubscriptionFilter::builder().tools_list_changed().prompts_list_changed().resources_list_changed().build())
    }

    async fn listen(&self, context: SubscriptionContext) -> Result<(), ErrorData> {
        let mut changed = self.core.changed.subscribe();
        loop {
            tokio::select! {
                () = context.cancelled() => return Ok(()),
                () = self.core.shutdown.cancelled() => return Ok(()),
                event = changed.recv() => {
                    let accepted = context.accepted();
                    let wanted = |flag: Option<bool>| flag == Some(true);
                    // Lagged: what changed meanwhile is not known, so every list the stream takes.
                    let (tools, prompts, resources) = match event {
                        Ok(Changed::Tools) => (true, false, false),
                        Ok(Changed::Prompts) => (false, true, false),
                        Ok(Changed::Resources) => (false, false, true),
                        Err(RecvError::Lagged(_)) => (true, true, true),
                        Err(RecvError::Closed) => return Ok(()),
                    };
                    let sink = context.sink();
                    let sent = async {
                        if tools && wanted(accepted.tools_list_changed) {
                            sink.notify_tool_list_changed().await?;
                        }
                        if prompts && wanted(accepted.prompts_list_changed) {
                            sink.notify_prompt_list_changed().await?;
                        }
                        if resources && wanted(accepted.resources_list_changed) {
                            sink.notify_resource_list_changed().await?;
                        }
                        Ok::<(), rmcp::service::SubscriptionSendError>(())
                    };
                    if let Err(e) = sent.await {
                        tracing::debug!(target: "toolseal::gateway", "list_changed not delivered: {e}");
                        return Ok(());
                    }
                }
            }
        }
    }
}
