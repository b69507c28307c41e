//! A guarded rmcp server (feature `rmcp`): every `tools/call` is resolved
//! against the server's own registry before its handler runs, so undeclared
//! keys (H2), wrong types and out-of-range values (H3) never reach it — rmcp
//! itself deserializes arguments leniently (unknown keys are dropped, declared
//! ranges are not checked). Every other request and notification passes
//! through unchanged.
//!
//! An unknown tool (H1) is answered with the JSON-RPC error the MCP
//! specification gives for it (`-32602`, the [`Feedback`] as `data`); every
//! other rejection is a tool result with `isError: true`, so that the model
//! reads it and can retry.
//!
//! ```ignore
//! use toolseal_runtime::guard::{GuardedServer, Sealed};
//! // Against the generated enum of the server's registry:
//! let service = GuardedServer::new(BankServer::new(), Sealed::<bank::ToolCall>::new());
//! // Or against the schemas the server itself lists (e.g. an rmcp `ToolRouter`):
//! let service = GuardedServer::listed(BankServer::new(), &BankServer::tool_router().list_all())?;
//! service.serve(rmcp::transport::stdio()).await?;
//! ```
//!
//! rmcp has parsed the request before the guard sees it: a key given twice
//! has already been collapsed to its last value.
//!
//! Inside one `#[tool]` function, [`Parameters<T>`] takes the place of rmcp's
//! own `Parameters<T>`: the same checks for that function's arguments alone.

mod parameters;

pub use parameters::{Parameters, argument_error};

use std::borrow::Cow;
use std::marker::PhantomData;

use rmcp::RoleServer;
use rmcp::model::{CallToolRequestParams, CallToolResult, ClientNotification, ClientRequest, ErrorData, ProtocolVersion, ResultType, ServerResult, Tool};
use rmcp::service::{NotificationContext, RequestContext, Service};

use crate::call::ToolSet;
use crate::check::Cx;
use crate::dynamic::{DynamicRegistry, LiveRegistry};
use crate::feedback::{self, Feedback};
use crate::json::Json;
use crate::mcp::{Change, ToolSpec, diff_listing};
use crate::registry::{Registry, RegistryError};
use crate::rejection::Rejection;
use crate::schema::CompileOptions;

/// What a guarded server resolves a `tools/call` against.
pub trait CallCheck: Send + Sync + 'static {
    /// Resolves `arguments` (absent means `{}`) for the tool `name`; `Ok` lets the call through.
    fn check(&self, name: &str, arguments: Option<&Json<'_>>) -> Result<(), Rejection>;

    /// Whether the tool `name` declares an `outputSchema` (see [`rejection_answer`]).
    fn typed_output(&self, name: &str) -> bool;
}

/// The sealed enum `T` generated from the server's registry.
pub struct Sealed<T>(PhantomData<fn() -> T>);

impl<T: ToolSet> Sealed<T> {
    /// Resolves calls as `T` does.
    pub fn new() -> Sealed<T> {
        Sealed(PhantomData)
    }
}

impl<T: ToolSet> Sealed<T> {
    /// How the tools a server lists compare with the registry `T` was generated
    /// from, by digest (the registry's tools first, then the ones only the
    /// server lists). Anything but `Unchanged` means the guard enforces another
    /// signature than the server declares: check it when the server starts.
    pub fn compare(&self, tools: &[Tool]) -> Result<Vec<(String, Change)>, RegistryError> {
        let live = listed_registry(tools)?;
        let compiled: Vec<ToolSpec> = T::TOOLS.iter().map(|t| ToolSpec { name: t.name.to_owned(), digest: t.digest.to_owned() }).collect();
        Ok(diff_listing(&compiled, &live))
    }
}

impl<T: ToolSet> Default for Sealed<T> {
    fn default() -> Self {
        Sealed::new()
    }
}

impl<T: ToolSet + 'static> CallCheck for Sealed<T> {
    fn check(&self, name: &str, arguments: Option<&Json<'_>>) -> Result<(), Rejection> {
        T::resolve_parts(name, arguments, &mut Cx::strict()).map(drop)
    }

    fn typed_output(&self, name: &str) -> bool {
        // Only on a rejection: read the definition's top-level keys.
        T::TOOLS.iter().any(|t| t.name == name && serde_json::from_str::<serde_json::Value>(t.definition).is_ok_and(|d| d.get("outputSchema").is_some()))
    }
}

impl CallCheck for DynamicRegistry {
    fn check(&self, name: &str, arguments: Option<&Json<'_>>) -> Result<(), Rejection> {
        self.resolve_parts(name, arguments, &mut Cx::strict())
    }

    fn typed_output(&self, name: &str) -> bool {
        self.schemas().any(|(t, _)| t.name == name && t.output_schema.is_some())
    }
}

/// Each call is checked against the listing in force when it arrives.
impl CallCheck for LiveRegistry {
    fn check(&self, name: &str, arguments: Option<&Json<'_>>) -> Result<(), Rejection> {
        self.snapshot().1.resolve_parts(name, arguments, &mut Cx::strict())
    }

    fn typed_output(&self, name: &str) -> bool {
        self.snapshot().1.typed_output(name)
    }
}

/// The registry of the tools a server lists (a tool that rmcp cannot write out is `null`, which is no tool).
fn listed_registry(tools: &[Tool]) -> Result<Registry, RegistryError> {
    let tools: Vec<serde_json::Value> = tools.iter().map(|tool| serde_json::to_value(tool).unwrap_or_default()).collect();
    Registry::from_listed(&tools)
}

/// Why the tools a server lists cannot guard it.
#[derive(Debug, thiserror::Error)]
pub enum ListedError {
    /// The tools do not form a registry (a name twice, a schema that is not an object…).
    /// A tool whose schema cannot be enforced is not an error: it is quarantined.
    #[error("the listed tools are not a registry: {0}")]
    Registry(#[from] RegistryError),
}

/// An rmcp server whose `tools/call` requests are resolved by `C` first.
pub struct GuardedServer<S, C> {
    inner: S,
    check: C,
}

impl<S, C: CallCheck> GuardedServer<S, C> {
    /// Guards `inner` with `check`.
    pub fn new(inner: S, check: C) -> GuardedServer<S, C> {
        GuardedServer { inner, check }
    }

    /// The wrapped server.
    pub fn inner(&self) -> &S {
        &self.inner
    }

    /// What calls are resolved against.
    pub fn check(&self) -> &C {
        &self.check
    }

    /// Resolves one `tools/call`: `None` lets it through, `Some` is the answer in its place.
    pub fn screen(&self, params: &CallToolRequestParams) -> Option<Result<CallToolResult, ErrorData>> {
        let arguments = params.arguments.as_ref().map(Json::from_map);
        let rejection = self.check.check(&params.name, arguments.as_ref()).err()?;
        tracing::info!(target: "toolseal::guard", tool = %params.name, class = rejection.class().as_str(), pointer = rejection.pointer(), "tools/call rejected before the handler");
        Some(rejection_answer(&rejection, self.check.typed_output(&params.name)))
    }
}

/// The MCP answer to a rejected `tools/call`. A tool that does not exist (H1,
/// or M1 when no server provides it) is the JSON-RPC error `-32602` with the
/// [`Feedback`] as `data`, as the specification gives for an unknown tool;
/// every other rejection is a tool result with `isError: true`, the feedback's
/// text as content and the `Feedback` as `structuredContent` (class, pointer,
/// expected, found, suggestions), so that the model reads it and can retry.
///
/// When the tool called declares an `outputSchema` (`typed_output`), clients
/// check `structuredContent` against it (the MCP Inspector does, even on
/// errors): the `Feedback` then goes as a second text block, as JSON, instead.
pub fn rejection_answer(rejection: &Rejection, typed_output: bool) -> Result<CallToolResult, ErrorData> {
    let feedback = Feedback::from(rejection);
    if feedback::is_unknown_tool(rejection) {
        return Err(ErrorData::invalid_params(feedback.text.clone(), serde_json::to_value(&feedback).ok()));
    }
    // The one shape `feedback` writes, read into rmcp's model; `resultType` as rmcp's own results carry it (2026-07-28 clients need it).
    let mut result: CallToolResult =
        serde_json::from_value(feedback::mcp_tool_result_for(rejection, typed_output)).map_err(|e| ErrorData::internal_error(format!("the rejection's answer is not a tool result: {e}"), None))?;
    result.result_type = Some(ResultType::COMPLETE);
    Ok(result)
}

impl<S> GuardedServer<S, DynamicRegistry> {
    /// Guards `inner` with the tools it lists (for example an rmcp
    /// `ToolRouter::list_all()`), compiled closed-world: undeclared keys are
    /// rejected even where the listed schema leaves `additionalProperties` open.
    pub fn listed(inner: S, tools: &[Tool]) -> Result<GuardedServer<S, DynamicRegistry>, ListedError> {
        let registry = listed_registry(tools)?;
        let compiled = DynamicRegistry::new(&registry, &CompileOptions::default());
        Ok(GuardedServer::new(inner, compiled))
    }
}

impl<S: Service<RoleServer>, C: CallCheck> Service<RoleServer> for GuardedServer<S, C> {
    async fn handle_request(&self, request: ClientRequest, context: RequestContext<RoleServer>) -> Result<ServerResult, ErrorData> {
        if let ClientRequest::CallToolRequest(call) = &request
            && let Some(answer) = self.screen(&call.params)
        {
            return answer.map(ServerResult::CallToolResult);
        }
        self.inner.handle_request(request, context).await
    }

    async fn handle_notification(&self, notification: ClientNotification, context: NotificationContext<RoleServer>) -> Result<(), ErrorData> {
        self.inner.handle_notification(notification, context).await
    }

    fn get_info(&self) -> <RoleServer as rmcp::service::ServiceRole>::Info {
        self.inner.get_info()
    }

    fn supported_protocol_versions(&self) -> Cow<'static, [ProtocolVersion]> {
        self.inner.supported_protocol_versions()
    }
}
