//! Who calls: the principal a call is made by, named as the manifest's
//! `[principals]` name it. Over stdio it is the local caller (the principal
//! marked `local`, or `$USER`); over HTTP, the one whose bearer token the
//! request carries (checked before the request reaches MCP; without tokens,
//! the local caller). One interface, so validated OAuth claims can name
//! principals later.

use std::sync::Arc;

use rmcp::RoleServer;
use rmcp::service::RequestContext;
use toolseal_runtime::mcp::manifest::Deployment;

/// The bearer tokens an HTTP request may carry, each with the principal it names.
pub(crate) type Tokens = Arc<[(String, Arc<str>)]>;

/// The principal an HTTP request was authenticated as (put in its extensions by the bearer check).
#[derive(Debug, Clone)]
pub(crate) struct Caller(pub(crate) Arc<str>);

/// The deployment's principals and how a caller is told apart.
#[derive(Debug, Clone)]
pub(crate) struct Callers {
    /// The stdio caller (and HTTP's when no token is configured).
    local: Arc<str>,
    /// `(token, principal)`: the manifest's tokens.
    tokens: Vec<(String, Arc<str>)>,
}

impl Callers {
    /// The principals of `deployment` (expanded); the local caller is the one marked
    /// `local`, or one named after `$USER` (`local` when unset) with no groups.
    pub(crate) fn new(deployment: &Deployment) -> Callers {
        let local: Arc<str> = match deployment.principals.iter().find(|p| p.local) {
            Some(p) => p.name.as_str().into(),
            None => std::env::var("USER").or_else(|_| std::env::var("USERNAME")).ok().filter(|u| !u.is_empty()).unwrap_or_else(|| "local".to_owned()).into(),
        };
        let tokens = deployment.principals.iter().filter_map(|p| p.token.as_ref().map(|t| (t.expose().to_owned(), Arc::<str>::from(p.name.as_str())))).collect();
        Callers { local, tokens }
    }

    /// The local caller's name.
    #[cfg(feature = "policy")]
    pub(crate) fn local(&self) -> &str {
        &self.local
    }

    /// The tokens an HTTP request may carry and whom each names: the manifest's, and
    /// `bearer` (the command's `--token-env`) for the local caller.
    pub(crate) fn tokens(&self, bearer: Option<&str>) -> Tokens {
        let mut tokens = self.tokens.clone();
        if let Some(bearer) = bearer {
            tokens.push((bearer.to_owned(), self.local.clone()));
        }
        tokens.into()
    }

    /// Who made the request of `context`.
    pub(crate) fn of(&self, context: &RequestContext<RoleServer>) -> Arc<str> {
        context.extensions.get::<axum::http::request::Parts>().and_then(|parts| parts.extensions.get::<Caller>()).map_or_else(|| self.local.clone(), |caller| caller.0.clone())
    }
}
