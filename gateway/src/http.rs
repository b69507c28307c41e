//! Streamable HTTP at `/mcp`: sessions for clients up to 2025-11-25,
//! stateless requests for 2026-07-28, `Host` checked against the allowed
//! hosts, and a bearer token on every request when one is configured
//! (required by the command for any address but loopback).

use std::sync::Arc;

use axum::extract::{Request, State};
use axum::http::{StatusCode, header};
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};
use rmcp::transport::streamable_http_server::session::local::LocalSessionManager;
use rmcp::transport::{StreamableHttpServerConfig, StreamableHttpService};

use super::{Gateway, GatewayError};

/// The largest request body accepted (a call over the resolver's 1 MiB limit is refused with a clear error before it).
const MAX_BODY: usize = 2 << 20;

/// How the gateway serves HTTP.
#[derive(Debug, Clone, Default)]
pub struct HttpOptions {
    /// A token every request must carry as `Authorization: Bearer …` (none: no check).
    pub bearer: Option<String>,
    /// `Host` values accepted (DNS-rebinding protection); empty: loopback names only.
    pub allowed_hosts: Vec<String>,
}

/// Compares without stopping at the first difference.
fn same(a: &[u8], b: &[u8]) -> bool {
    a.len() == b.len() && a.iter().zip(b).fold(0u8, |acc, (x, y)| acc | (x ^ y)) == 0
}

async fn bearer(State(token): State<Arc<str>>, request: Request, next: Next) -> Response {
    let given = request.headers().get(header::AUTHORIZATION).and_then(|v| v.to_str().ok()).and_then(|v| v.strip_prefix("Bearer "));
    if given.is_some_and(|g| same(g.as_bytes(), token.as_bytes())) {
        next.run(request).await
    } else {
        (StatusCode::UNAUTHORIZED, [(header::WWW_AUTHENTICATE, "Bearer")], "a bearer token is required").into_response()
    }
}

/// Serves `gateway` until it shuts down.
pub(super) async fn serve(gateway: Gateway, listener: tokio::net::TcpListener, options: HttpOptions) -> Result<(), GatewayError> {
    let stop = gateway.core.shutdown.clone();
    let mut config = StreamableHttpServerConfig::default().with_legacy_session_mode(true).with_cancellation_token(stop.child_token()).with_max_request_body_bytes(MAX_BODY);
    if !options.allowed_hosts.is_empty() {
        config = config.with_allowed_hosts(options.allowed_hosts.clone());
    }
    let factory = gateway.clone();
    let service = StreamableHttpService::new(move || Ok(factory.service()), Arc::new(LocalSessionManager::default()), config);
    let mut router = axum::Router::new().route_service("/mcp", service);
    if let Some(token) = &options.bearer {
        router = router.layer(axum::middleware::from_fn_with_state(Arc::<str>::from(token.as_str()), bearer));
    }
    axum::serve(listener, router).with_graceful_shutdown(stop.cancelled_owned()).await.map_err(|e| GatewayError::Serve(e.to_string()))
}
