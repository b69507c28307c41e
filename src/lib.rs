//! # toolseal: closed-world resolution of LLM tool calls
//!
//! A model emits a tool call `(name, arguments)`. Before any policy gate decides
//! whether the call is *allowed*, toolseal decides whether it *exists*:
//!
//! - **H1** the name is a tool of the trusted registry;
//! - **H2** no undeclared key, no missing required key, no duplicated key;
//! - **H3** every value meets its declared type, enum, const, range, length,
//!   pattern and format.
//!
//! It does so by generating, at build time, a **sealed enum of tool calls with
//! strictly typed argument structs** from your registry file. Parsing a model's
//! JSON into that enum *is* the check: a call either becomes a `ToolCall`
//! variant or a [`Rejection`] with its class, JSON pointer and retry hints.
//!
//! ## Tutorial
//!
//! 1. Put the registry next to your crate: an MCP `tools/list` result, OpenAI
//!    `tools`, Anthropic tools or a Bedrock `toolConfig` — the format is detected.
//! 2. Compile it from `build.rs` (with `toolseal-build` as a build dependency):
//!
//! ```no_run
//! // build.rs
//! fn main() -> Result<(), toolseal_build::Error> {
//!     toolseal_build::Config::new()
//!         .registry_as("registry/bank.json", "bank")
//!         .compile()
//! }
//! ```
//!
//! 3. Include the generated items in a module of your choice:
//!
//! ```ignore
//! mod bank {
//!     toolseal::include_registry!("bank");
//! }
//!
//! let call = bank::ToolCall::from_json(br#"{"name":"transfer_funds",
//!     "arguments":{"recipient_id":"acct-7","amount":"all of it","override":true}}"#);
//! let rejection = call.unwrap_err();
//! assert_eq!(rejection.class(), toolseal::Class::H2);
//! assert_eq!(rejection.pointer(), "/arguments/override");
//! ```
//!
//! `examples/transfer_funds` in the repository is this tutorial as a runnable crate.
//!
//! ## What is generated
//!
//! Per registry: `pub enum ToolCall` (one variant per tool, nothing else), one
//! `…Args` struct per tool, and a named type for every constrained value
//! (newtypes with a private field, validating `Deserialize` and `TryFrom`;
//! Rust enums for string `enum`s; untagged enums for unions). Every type derives
//! `Serialize`, implements `schemars::JsonSchema` from the same constraints, and
//! carries the registry's descriptions, with its constraints and defaults, as doc comments. `ToolCall` implements
//! [`ToolSet`]: `from_json`, `from_json_with` (lenient mode, size limit),
//! `from_value`, `name`, `info` (description, annotations, canonical definition,
//! SHA-256 digest) and `Serialize` back to the call object.
//!
//! ## Features
//!
//! No default features: nothing async, nothing HTTP. The `toolseal` command is the
//! crate `toolseal-cli`, the MCP gateway the crate `toolseal-gateway`.
//!
//! - `guard`: `toolseal::guard`, an rmcp server whose `tools/call`s are resolved first,
//!   and `guard::Parameters`, the same for one `#[tool]` function's arguments.
//! - `rig`: `toolseal::rig`, a registry's tools as the tools of a rig 0.44 agent.
//! - `async-openai`: `toolseal::async_openai`, the tool calls of async-openai's chat and
//!   Responses types resolved, rejections answered in them (its types only, no HTTP).
//! - `genai`: `toolseal::genai`, the same for a genai chat response.
//! - `testing`: `toolseal::testing` and `toolseal::mcp::trials`, calls whose verdict,
//!   class and pointer are known by construction (honest, H1–H3, M1–M5), built from a
//!   registry's own schemas: for tests and benchmarks, not for resolving calls.

#![deny(missing_docs)]

pub use toolseal_macros::{Args, ToolSet, tool, toolset};
pub use toolseal_runtime::call::{Annotations, Options, Resolution, ToolInfo, ToolSet};
pub use toolseal_runtime::check::Coercion;
pub use toolseal_runtime::dispatch::DispatchError;
pub use toolseal_runtime::json::JsonKind;
pub use toolseal_runtime::rejection::{Class, Keyword, Reason, Rejection};
pub use toolseal_runtime::typed::FromJson;
pub use toolseal_runtime::{definitions, feedback, fits, mcp, wire};

/// The runtime pipeline: resolve → contract → gate → execute → verify.
pub mod pipeline {
    #![doc = include_str!("../docs/pipeline.md")]
    pub use toolseal_runtime::pipeline::*;
}

#[cfg(feature = "guard")]
pub use toolseal_runtime::guard;

#[cfg(feature = "async-openai")]
pub use toolseal_runtime::async_openai;

#[cfg(feature = "genai")]
pub use toolseal_runtime::genai;

#[cfg(feature = "rig")]
pub use toolseal_runtime::rig;

/// Registry files (MCP `tools/list`, OpenAI, Anthropic, Bedrock), read into tool
/// definitions, and the options their schemas are compiled with.
pub mod registry {
    pub use toolseal_runtime::registry::{Registry, RegistryError, SourceFormat, ToolDef, read_registry};
    pub use toolseal_runtime::schema::{CompileOptions, SchemaError};
}

/// Registries and merged deployments compiled at run time, for tools that are not
/// known at build time: the same rules as the generated enums.
pub mod dynamic {
    pub use toolseal_runtime::dynamic::{DynamicCall, DynamicDeployment, DynamicRegistry, LiveRegistry, Refused};
    pub use toolseal_runtime::json::Json;
}

/// Calls with known verdicts, built from a registry's own schemas (feature `testing`):
/// for tests, benchmarks and checking a registry, not for resolving calls.
#[cfg(feature = "testing")]
pub mod testing {
    pub use toolseal_runtime::mcp::trials;
    pub use toolseal_runtime::probe::{Expect, Probe, probes};
    pub use toolseal_runtime::schema::{SchemaDoc, closed_world, compile_tool_schema};
}

/// Includes the code `toolseal-build` generated for a registry, like `include!`.
///
/// `include_registry!()` includes the registry added with `.registry(..)`;
/// `include_registry!("bank")` the one added with `.registry_as(.., "bank")`.
#[macro_export]
macro_rules! include_registry {
    () => {
        include!(concat!(env!("OUT_DIR"), "/toolseal/registry.rs"));
    };
    ($module:literal) => {
        include!(concat!(env!("OUT_DIR"), "/toolseal/", $module, ".rs"));
    };
}

/// Support for generated code; not a public API.
#[doc(hidden)]
pub mod __private {
    pub use schemars;
    pub use serde;
    pub use serde_json;
    pub use toolseal_runtime::call::{Annotations, EMPTY_ARGUMENTS, Options, Resolution, ToolInfo, ToolSet};
    pub use toolseal_runtime::check::{self, Cx, Format, NumberBounds};
    pub use toolseal_runtime::dispatch::{DispatchError, output_value};
    pub use toolseal_runtime::generated::*;
    pub use toolseal_runtime::json::{Json, Reader};
    pub use toolseal_runtime::mcp;
    pub use toolseal_runtime::path::Path;
    pub use toolseal_runtime::rejection::{Class, Keyword, Names, Reason, Rejection};
    pub use toolseal_runtime::schema::spec::LazySpec;
    pub use toolseal_runtime::typed::FromJson;
    pub use toolseal_runtime::{definitions, wire::WireFormat};

    /// A generated value type's table, as the type's JSON Schema.
    pub trait Describe {
        /// The schema, registering the subschemas it refers to with `g`.
        fn describe(&self, g: &mut schemars::SchemaGenerator) -> schemars::Schema;
    }

    macro_rules! describe_keywords {
        ($($t:ty),*) => {$(
            impl Describe for $t {
                fn describe(&self, _: &mut schemars::SchemaGenerator) -> schemars::Schema {
                    schemars::Schema::from(ValueRule::keywords(self))
                }
            }
        )*};
    }
    describe_keywords!(StringType, NumberType<i64>, NumberType<u64>, NumberType<f64>, ValueSet, SpecType, Refusal);

    impl Describe for StringEnum {
        fn describe(&self, _: &mut schemars::SchemaGenerator) -> schemars::Schema {
            schemars::Schema::from(self.keywords())
        }
    }

    impl<T: FromJson + schemars::JsonSchema> Describe for ArrayType<T> {
        fn describe(&self, g: &mut schemars::SchemaGenerator) -> schemars::Schema {
            let mut s = self.keywords();
            if self.typed() {
                s.insert("items".into(), subschema::<T>(g));
            }
            schemars::Schema::from(s)
        }
    }

    /// The JSON Schema of a generated union: `keyword` (`anyOf`, `oneOf`) over its options' schemas.
    pub fn union_schema(g: &mut schemars::SchemaGenerator, keyword: &str, options: &[SchemaFn], description: Option<&str>) -> schemars::Schema {
        let mut s = serde_json::Map::new();
        s.insert(keyword.into(), options.iter().map(|f| f(g)).collect());
        if let Some(d) = description {
            s.insert("description".into(), d.into());
        }
        schemars::Schema::from(s)
    }

    /// The JSON Schema of `T` as a value, registering its definition.
    pub fn subschema<T: schemars::JsonSchema + ?Sized>(g: &mut schemars::SchemaGenerator) -> serde_json::Value {
        g.subschema_for::<T>().to_value()
    }

    /// A function that returns a (sub)schema, registering definitions with the generator.
    pub type SchemaFn = fn(&mut schemars::SchemaGenerator) -> serde_json::Value;

    /// What an object schema says of keys beyond its `properties`
    /// (`additionalProperties`), or a tuple schema of elements beyond its prefix (`items`).
    pub enum AdditionalSchema {
        /// `false`: none.
        Closed,
        /// `true`: any.
        Open,
        /// `{...}`: each matches this schema.
        Schema(SchemaFn),
    }

    /// A generated tuple type's schema (`prefixItems`), as data.
    pub struct TupleSchema<'a> {
        /// The schema of each prefix element.
        pub prefix: &'a [SchemaFn],
        /// Elements after the prefix.
        pub items: AdditionalSchema,
        /// `minItems`
        pub min_items: Option<u64>,
        /// `maxItems`
        pub max_items: Option<u64>,
        /// `uniqueItems`
        pub unique: bool,
        /// `description`
        pub description: Option<&'a str>,
    }

    fn additional(g: &mut schemars::SchemaGenerator, a: &AdditionalSchema) -> serde_json::Value {
        match a {
            AdditionalSchema::Closed => serde_json::Value::Bool(false),
            AdditionalSchema::Open => serde_json::Value::Bool(true),
            AdditionalSchema::Schema(f) => f(g),
        }
    }

    /// The JSON Schema of a generated tuple type.
    pub fn tuple_schema(g: &mut schemars::SchemaGenerator, t: &TupleSchema<'_>) -> schemars::Schema {
        let mut s = serde_json::Map::new();
        s.insert("type".into(), "array".into());
        s.insert("prefixItems".into(), t.prefix.iter().map(|f| f(g)).collect());
        s.insert("items".into(), additional(g, &t.items));
        if let Some(n) = t.min_items {
            s.insert("minItems".into(), n.into());
        }
        if let Some(n) = t.max_items {
            s.insert("maxItems".into(), n.into());
        }
        if t.unique {
            s.insert("uniqueItems".into(), true.into());
        }
        if let Some(d) = t.description {
            s.insert("description".into(), d.into());
        }
        schemars::Schema::from(s)
    }

    /// A generated object type's schema, as data: one shared builder serves every type.
    pub struct ObjectSchema<'a> {
        /// Each property and its schema, in declaration order.
        pub properties: &'a [(&'a str, SchemaFn)],
        /// The required keys.
        pub required: &'a [&'a str],
        /// Keys beyond `properties`.
        pub additional: AdditionalSchema,
        /// `minProperties`
        pub min_properties: Option<u64>,
        /// `maxProperties`
        pub max_properties: Option<u64>,
        /// `description`
        pub description: Option<&'a str>,
    }

    /// The JSON Schema of a generated object type.
    pub fn object_schema(g: &mut schemars::SchemaGenerator, o: &ObjectSchema<'_>) -> schemars::Schema {
        let properties: serde_json::Map<String, serde_json::Value> = o.properties.iter().map(|(k, f)| ((*k).to_owned(), f(g))).collect();
        let mut s = serde_json::Map::new();
        s.insert("type".into(), "object".into());
        s.insert("properties".into(), properties.into());
        s.insert("required".into(), o.required.iter().map(|k| serde_json::Value::from(*k)).collect());
        s.insert("additionalProperties".into(), additional(g, &o.additional));
        if let Some(n) = o.min_properties {
            s.insert("minProperties".into(), n.into());
        }
        if let Some(n) = o.max_properties {
            s.insert("maxProperties".into(), n.into());
        }
        if let Some(d) = o.description {
            s.insert("description".into(), d.into());
        }
        schemars::Schema::from(s)
    }

    /// The root schema of an arguments type — what `SchemaGenerator::into_root_schema_for`
    /// builds (draft 2020-12: `title`, `$schema`, `$defs`), without an instance of it per type.
    pub fn root_schema(name: fn() -> std::borrow::Cow<'static, str>, json_schema: fn(&mut schemars::SchemaGenerator) -> schemars::Schema) -> schemars::Schema {
        let mut g = schemars::SchemaGenerator::default();
        let mut schema = json_schema(&mut g);
        let definitions = g.take_definitions(false);
        let meta_schema = g.settings().meta_schema.clone();
        let object = schema.ensure_object();
        object.entry("title").or_insert_with(|| name().into());
        if let Some(meta_schema) = meta_schema {
            object.insert("$schema".into(), meta_schema.into());
        }
        if !definitions.is_empty() {
            object.insert("$defs".into(), definitions.into());
        }
        schema
    }
}
