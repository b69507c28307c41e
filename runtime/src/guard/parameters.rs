//! The per-function way in: [`Parameters<T>`] in place of rmcp's own
//! `Parameters<T>` in one `#[tool]` function.

use rmcp::ErrorData;
use rmcp::handler::server::common::FromContextPart;
use rmcp::handler::server::tool::ToolCallContext;

use crate::check::Cx;
use crate::feedback::Feedback;
use crate::json::Json;
use crate::path::Path;
use crate::rejection::Rejection;
use crate::typed::FromJson;

/// The arguments of one rmcp `#[tool]` function, resolved as toolseal resolves
/// them: `T` is a toolseal type (a generated `…Args` struct), so an undeclared
/// or missing key (H2) and every value outside the schema (H3) are refused
/// before the function runs.
///
/// In place of rmcp's `Parameters<T>` in a `#[tool]` function (same name, so
/// rmcp's `#[tool]` macro takes the tool's `inputSchema` from `T`'s
/// `JsonSchema`, the schema `T` enforces); not for `#[prompt]` functions. A refused call is answered as a tool result with `isError: true`
/// whose text is the [`Feedback`] the model can act on; the function is not called.
///
/// ```ignore
/// use toolseal::guard::Parameters;
///
/// #[rmcp::tool_router]
/// impl Notes {
///     #[rmcp::tool(description = "Adds a note.")]
///     async fn add_note(&self, Parameters(args): Parameters<notes::AddNoteArgs>) -> String {
///         self.add(args.title.get(), args.body.get())
///     }
/// }
/// ```
///
/// rmcp answers an extractor's `invalid params` error whose message starts
/// with `failed to deserialize parameters:` as such a tool result (the
/// specification's way to report argument errors); the feedback follows that
/// prefix. The structured [`Feedback`] (class, pointer, suggestions) goes out
/// only through a [`GuardedServer`](super::GuardedServer), which answers before
/// rmcp's router.
#[derive(Debug, Clone, PartialEq)]
pub struct Parameters<T>(pub T);

/// The prefix rmcp's tool router turns into a tool result with `isError: true`.
const ARGUMENT_ERROR: &str = "failed to deserialize parameters: ";

impl<T: FromJson> Parameters<T> {
    /// Resolves `arguments` (absent means `{}`) of the tool `tool` as `T`, in strict mode.
    pub fn resolve(tool: &str, arguments: Option<&serde_json::Map<String, serde_json::Value>>) -> Result<Parameters<T>, Rejection> {
        let empty = serde_json::Map::new();
        let tree = Json::from_map(arguments.unwrap_or(&empty));
        T::from_json(&tree, &Path::root().key("arguments"), &mut Cx::strict()).map(Parameters).map_err(|r| r.with_tool(tool))
    }
}

/// The rmcp error that rmcp's router answers as a tool result with `isError:
/// true`, its text `rejection`'s feedback.
pub fn argument_error(rejection: &Rejection) -> ErrorData {
    let feedback = Feedback::from(rejection);
    ErrorData::invalid_params(format!("{ARGUMENT_ERROR}{}", feedback.text), serde_json::to_value(&feedback).ok())
}

impl<S, T: FromJson> FromContextPart<ToolCallContext<'_, S>> for Parameters<T> {
    fn from_context_part(context: &mut ToolCallContext<'_, S>) -> Result<Self, ErrorData> {
        let arguments = context.arguments.take();
        Parameters::resolve(&context.name, arguments.as_ref()).map_err(|rejection| {
            tracing::info!(target: "toolseal::guard", tool = %context.name, class = rejection.class().as_str(), pointer = rejection.pointer(), "tools/call refused before the function");
            argument_error(&rejection)
        })
    }
}

impl<T: schemars::JsonSchema> schemars::JsonSchema for Parameters<T> {
    fn schema_name() -> std::borrow::Cow<'static, str> {
        T::schema_name()
    }

    fn schema_id() -> std::borrow::Cow<'static, str> {
        T::schema_id()
    }

    fn json_schema(generator: &mut schemars::SchemaGenerator) -> schemars::Schema {
        T::json_schema(generator)
    }
}
