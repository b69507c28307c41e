//! A registry's tools as tools of a [rig](https://docs.rs/rig-agent) agent
//! (feature `rig`; rig-core and rig-agent 0.44).
//!
//! Each tool is a rig handler that receives the arguments as the JSON text rig
//! hands its tools and resolves them before your function runs: an H2 or H3 is
//! the call's failed tool result, its text the [`Feedback`] the model retries
//! from, and the loop goes on. A name that is no tool (H1) never reaches a
//! handler: rig offers it to its invalid-call hook, and [`InvalidCalls`]
//! answers it with the closest names. What rig advertises for each tool is the
//! registry's own definition (name, description, `inputSchema`), as
//! [`definitions`] writes it; a quarantined tool is not offered.
//!
//! ```ignore
//! use toolseal::rig::{InvalidCalls, sealed, tool_server};
//!
//! let tools = sealed::<bank::ToolCall, _, _>(Options::strict(), |call| async move {
//!     Ok(ToolOutput::text(run(call)))
//! })?;
//! let agent = AgentBuilder::new(model).tool_server_handle(tool_server(tools)).add_hook(InvalidCalls::of::<bank::ToolCall>()).build();
//! ```
//!
//! Built against rig-core and rig-agent `=0.44.0`: depend on exactly those
//! versions. rig parses a call's arguments before its tools see them: a key
//! given twice is its last value, blank or `null` arguments are `{}`, and a JSON
//! string holding an object is that object. Arguments that are not a JSON
//! object go to the hook instead, with the model's text, and [`InvalidCalls`]
//! answers them with toolseal's verdict on that text.

use std::future::Future;
use std::sync::Arc;

use rig_agent::agent::{AgentHook, HookContext, InvalidToolCallAction, InvalidToolCallContext, InvalidToolCallReason};
use rig_agent::tool::RegisteredTool;
use rig_agent::tool::server::{ToolServer, ToolServerHandle};
use rig_core::effect::{EffectKind, FamilyDescriptor, HandlerDescriptor, Outcome, family, tool_key};
use rig_core::error::{ErrorKind, ErrorReport};
use rig_core::serve::{Dispatch, Reply, Serve};
use rig_core::tool::{ToolErrorKind, ToolExecutionError, ToolOutput, ToolResult};
use serde_json::Value;

use crate::call::{Options, ToolSet};
use crate::check::Cx;
use crate::definitions;
use crate::dynamic::{DynamicCall, DynamicRegistry};
use crate::feedback::Feedback;
use crate::rejection::{Class, Rejection};
use crate::wire::{WireFormat, parse_arguments, resolve_text};

/// What a tool's function returns: its output, or its own failure.
pub type ToolReturn = Result<ToolOutput, ToolExecutionError>;

type Resolve<T> = Arc<dyn Fn(&str, &str) -> Result<T, Rejection> + Send + Sync>;
type Run<T> = Arc<dyn Fn(T) -> std::pin::Pin<Box<dyn Future<Output = ToolReturn> + Send>> + Send + Sync>;

/// One tool of a registry as a rig tool handler: its arguments resolved, then
/// the function run with the resolved call.
struct SealedTool<T> {
    name: String,
    description: String,
    parameters: Value,
    resolve: Resolve<T>,
    run: Run<T>,
}

impl<T: Send + 'static> Serve for SealedTool<T> {
    type Family = family::Tool;

    fn descriptor(&self) -> HandlerDescriptor {
        HandlerDescriptor {
            key: tool_key(&self.name),
            family: FamilyDescriptor::Tool { name: self.name.clone(), description: self.description.clone(), parameters: self.parameters.clone(), embedding: None },
            layers: Vec::new(),
        }
    }

    async fn serve(&self, kind: EffectKind, _dispatch: Dispatch) -> Reply {
        let EffectKind::ToolCall { name, args } = kind else {
            return Reply::Outcome(Err(ErrorReport::new(ErrorKind::Internal, format!("the toolseal tool `{}` serves tool calls only", self.name))));
        };
        let result = match (self.resolve)(&name, &args) {
            Ok(call) => match (self.run)(call).await {
                Ok(output) => ToolResult::success(output),
                Err(error) => ToolResult::failed(error),
            },
            Err(rejection) => ToolResult::failed(rejection_error(&rejection)),
        };
        Reply::Outcome(Ok(Outcome::ToolResult { result }))
    }
}

/// The tool error rig reports for a rejected call: `InvalidArgs` (`NotFound`
/// for H1), `rejection`'s class as its code, the feedback as what the model reads.
pub fn rejection_error(rejection: &Rejection) -> ToolExecutionError {
    let kind = if matches!(rejection.class(), Class::H1 | Class::M1) { ToolErrorKind::NotFound } else { ToolErrorKind::InvalidArgs };
    ToolExecutionError::new(kind, Feedback::from(rejection).text).with_code(rejection.class().as_str()).with_retryable(true)
}

/// Every tool of the sealed set `C` as a rig tool: `run` gets the resolved call
/// (a variant of `C`) of each call that resolves under `options`. rig refuses a
/// tool without a name (the error).
pub fn sealed<C, F, Fut>(options: Options, run: F) -> Result<Vec<RegisteredTool>, Box<ErrorReport>>
where
    C: ToolSet + Send + 'static,
    F: Fn(C) -> Fut + Send + Sync + 'static,
    Fut: Future<Output = ToolReturn> + Send + 'static,
{
    let resolve: Resolve<C> = Arc::new(move |name, arguments| resolve_text::<C>(None, name, arguments, &options).map(|r| r.call));
    let run: Run<C> = Arc::new(move |call| Box::pin(run(call)));
    registered(&definitions::of_set::<C>(WireFormat::Mcp, |_| true), &resolve, &run)
}

/// Every tool of a registry loaded at run time as a rig tool: `run` gets each
/// call that resolves under `options`, its arguments checked.
pub fn dynamic<F, Fut>(registry: Arc<DynamicRegistry>, options: Options, run: F) -> Result<Vec<RegisteredTool>, Box<ErrorReport>>
where
    F: Fn(DynamicCall<'static>) -> Fut + Send + Sync + 'static,
    Fut: Future<Output = ToolReturn> + Send + 'static,
{
    let offered = registry.definitions(WireFormat::Mcp);
    let resolve: Resolve<DynamicCall<'static>> = Arc::new(move |name, arguments| {
        let tree = parse_arguments(name, arguments, &options)?;
        let mut cx = options.cx();
        registry.resolve_parts(name, Some(&tree), &mut cx)?;
        Ok(DynamicCall { name: name.to_owned().into(), arguments: tree.into_owned(), coercions: cx.into_coercions() })
    });
    let run: Run<DynamicCall<'static>> = Arc::new(move |call| Box::pin(run(call)));
    registered(&offered, &resolve, &run)
}

/// A handler per tool of `offered` (definitions in the MCP shape), each resolving with `resolve` and running `run`.
fn registered<T: Send + 'static>(offered: &Value, resolve: &Resolve<T>, run: &Run<T>) -> Result<Vec<RegisteredTool>, Box<ErrorReport>> {
    let text = |tool: &Value, key: &str| tool[key].as_str().unwrap_or_default().to_owned();
    offered
        .as_array()
        .into_iter()
        .flatten()
        .map(|tool| {
            let handler = SealedTool { name: text(tool, "name"), description: text(tool, "description"), parameters: tool["inputSchema"].clone(), resolve: resolve.clone(), run: run.clone() };
            RegisteredTool::from_handler(handler).map_err(Box::new)
        })
        .collect()
}

/// A running tool server holding `tools`, for `AgentBuilder::tool_server_handle`.
pub fn tool_server(tools: Vec<RegisteredTool>) -> ToolServerHandle {
    tools.into_iter().fold(ToolServer::new(), ToolServer::registered_tool).run()
}

/// rig's invalid-call hook for a registry's tools: a name that is no tool (H1)
/// is answered with toolseal's feedback (the closest names) as that call's
/// tool result, and the loop goes on (so is a tool of the registry that this
/// agent does not offer, naming the ones it does); arguments that are not a
/// JSON object are answered with toolseal's verdict on the model's text, in
/// strict mode. Other invalid calls (a tool the turn's tool choice excludes)
/// are left to rig.
pub struct InvalidCalls {
    resolve: Check,
}

/// A call's rejection, if it has one.
type Check = Arc<dyn Fn(&str, &str) -> Option<Rejection> + Send + Sync>;

impl InvalidCalls {
    /// For the sealed set `C`.
    pub fn of<C: ToolSet + 'static>() -> InvalidCalls {
        InvalidCalls { resolve: Arc::new(|name, arguments| resolve_text::<C>(None, name, arguments, &Options::strict()).err()) }
    }

    /// For a registry loaded at run time.
    pub fn dynamic(registry: Arc<DynamicRegistry>) -> InvalidCalls {
        InvalidCalls {
            resolve: Arc::new(move |name, arguments| match parse_arguments(name, arguments, &Options::strict()) {
                Ok(tree) => registry.resolve_parts(name, Some(&tree), &mut Cx::strict()).err(),
                Err(rejection) => Some(rejection),
            }),
        }
    }

    /// The action for one invalid call (what the hook answers).
    pub fn action(&self, event: &InvalidToolCallContext) -> Option<InvalidToolCallAction> {
        let arguments = event.args.as_deref().unwrap_or("{}");
        match &event.reason {
            InvalidToolCallReason::UnknownTool => Some(InvalidToolCallAction::skip(match (self.resolve)(&event.tool_name, arguments) {
                Some(rejection) => Feedback::from(&rejection).text,
                None => format!("The tool {:?} is not offered here; call one of: {}.", event.tool_name, event.available_tools.join(", ")),
            })),
            InvalidToolCallReason::MalformedArguments { .. } => {
                let rejection = (self.resolve)(&event.tool_name, arguments)?;
                Some(InvalidToolCallAction::retry(Feedback::from(&rejection).text))
            }
            _ => None,
        }
    }
}

impl AgentHook for InvalidCalls {
    async fn on_invalid_tool_call(&self, _context: &HookContext, event: &InvalidToolCallContext) -> Option<InvalidToolCallAction> {
        self.action(event)
    }
}
