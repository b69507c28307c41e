//! A resolver built at run time from registry JSON, with the same semantics,
//! classes and pointers as generated code (it interprets the same IR with the
//! same checks). For registries known only at run time, and as a second
//! resolver that tests compare generated code against.

use std::borrow::Cow;
use std::collections::HashMap;
use std::sync::Arc;

use crate::call::{EMPTY_ARGUMENTS, Options, parse_call, split_call, take_parts};
use crate::check::{Coercion, Cx};
use crate::definitions::{self, Offer};
use crate::json::Json;
use crate::mcp::{Catalog, CatalogError, McpRequest, Policy, Route, ServerSpec, resolve_routed};
use crate::name_hash::NameHash;
use crate::path::Path;
use crate::registry::{Registry, ToolDef};
use crate::rejection::{NameIndex, Names, Rejection};
use crate::schema::{CompileOptions, SchemaDoc, SchemaError, compile_tool_schema};
use crate::validate::validate_at;
use crate::wire::WireFormat;

/// A registry compiled at run time, tool by tool: a tool whose schema cannot be
/// enforced is quarantined (every call to it is refused with the reason, class
/// [`crate::Class::Quarantined`]) and every other tool resolves.
#[derive(Debug, Clone)]
pub struct DynamicRegistry {
    /// Tools sorted by name, with their compiled schemas or why they are quarantined.
    tools: Vec<(ToolDef, Result<SchemaDoc, SchemaError>)>,
    /// The tool names and their closest-name index.
    names: Arc<NameIndex>,
    /// The exact lookup of a call's name into `tools`.
    exact: NameHash,
    /// Indices into `tools` in registry file order (the order tools are offered in).
    order: Vec<usize>,
}

/// A call resolved by a [`DynamicRegistry`]: the checked tree itself, borrowing
/// from the call's bytes (nothing is copied out; [`DynamicCall::into_owned`]
/// detaches it, [`DynamicCall::arguments_value`] converts the arguments).
#[derive(Debug, Clone)]
pub struct DynamicCall<'a> {
    /// The tool's name as declared.
    pub name: Cow<'a, str>,
    /// The arguments, validated, as given: members in the call's order (absent
    /// or `null` arguments are `{}`; numbers that lenient mode read out of
    /// strings stay strings here; see `coercions`).
    pub arguments: Json<'a>,
    /// Numbers lenient mode read out of strings.
    pub coercions: Vec<Coercion>,
}

impl DynamicCall<'_> {
    /// The arguments as a `serde_json::Value` (a copy; member order is the map's).
    pub fn arguments_value(&self) -> serde_json::Value {
        self.arguments.to_value()
    }

    /// The same call, owning its strings, to keep beyond the call's bytes.
    pub fn into_owned(self) -> DynamicCall<'static> {
        DynamicCall { name: Cow::Owned(self.name.into_owned()), arguments: self.arguments.into_owned(), coercions: self.coercions }
    }
}

impl DynamicRegistry {
    /// Compiles every tool of `registry`, quarantining those whose schema cannot be
    /// enforced (their errors point into the registry file, as build errors do).
    pub fn new(registry: &Registry, options: &CompileOptions) -> DynamicRegistry {
        let compile = |def: &ToolDef| compile_tool_schema(&def.input_schema, options).map_err(|e| SchemaError { pointer: format!("{}{}", def.input_pointer, e.pointer), ..e });
        let mut tools: Vec<_> = registry.tools.iter().enumerate().map(|(i, def)| (i, (def.clone(), compile(def)))).collect();
        tools.sort_by(|a, b| a.1.0.name.cmp(&b.1.0.name));
        let mut order = vec![0; tools.len()];
        for (sorted, (file, _)) in tools.iter().enumerate() {
            order[*file] = sorted;
        }
        let tools: Vec<_> = tools.into_iter().map(|(_, tool)| tool).collect();
        let names = Arc::new(NameIndex::new(tools.iter().map(|(d, _)| d.name.clone().into_boxed_str()).collect()));
        let exact = NameHash::new(tools.iter().map(|(d, _)| d.name.as_str()));
        DynamicRegistry { tools, names, exact, order }
    }

    /// [`DynamicRegistry::new`], refusing the whole registry if any tool's schema
    /// cannot be enforced (`--strict`); the error names the first such tool.
    pub fn strict(registry: &Registry, options: &CompileOptions) -> Result<DynamicRegistry, Refused> {
        let compiled = DynamicRegistry::new(registry, options);
        let first = compiled.quarantined().next().map(|(tool, e)| Refused { tool: tool.to_owned(), error: e.clone() });
        match first {
            Some(refused) => Err(refused),
            None => Ok(compiled),
        }
    }

    /// The quarantined tools, by name, with why.
    pub fn quarantined(&self) -> impl Iterator<Item = (&str, &SchemaError)> {
        self.tools.iter().filter_map(|(d, r)| r.as_ref().err().map(|e| (d.name.as_str(), e)))
    }

    /// The compiled schemas of the tools that resolve (quarantined ones left out).
    pub fn schemas(&self) -> impl Iterator<Item = (&ToolDef, &SchemaDoc)> {
        self.tools.iter().filter_map(|(d, r)| r.as_ref().ok().map(|s| (d, s)))
    }

    /// The tools that resolve, in registry order, as `format`'s request lists
    /// them (see [`crate::definitions`]); quarantined tools are not offered.
    pub fn definitions(&self, format: WireFormat) -> serde_json::Value {
        self.definitions_for(format, |_| true)
    }

    /// [`DynamicRegistry::definitions`] of the tools whose names `visible` keeps (a gate's visible set).
    pub fn definitions_for(&self, format: WireFormat, mut visible: impl FnMut(&str) -> bool) -> serde_json::Value {
        let offered = self.order.iter().filter_map(|&i| self.offered(i)).filter(|d| visible(&d.name));
        definitions::render(format, offered.map(|d| Offer::read(&d.name, d)))
    }

    /// The definition of `tools[i]` when it resolves (not quarantined).
    fn offered(&self, i: usize) -> Option<&ToolDef> {
        let (def, compiled) = &self.tools[i];
        compiled.is_ok().then_some(def)
    }

    /// Resolves a call object `{"name": ..., "arguments": {...}}`; the call
    /// borrows from `bytes` ([`DynamicCall::into_owned`] detaches it).
    pub fn resolve<'a>(&self, bytes: &'a [u8], options: &Options) -> Result<DynamicCall<'a>, Rejection> {
        let call = parse_call(bytes, options)?;
        let (name, arguments) = split_call(&call)?;
        let mut cx = options.cx();
        self.resolve_parts(name, arguments, &mut cx)?;
        let (name, arguments) = take_parts(call);
        Ok(DynamicCall { name, arguments, coercions: cx.into_coercions() })
    }

    /// Resolves `arguments` for the tool `name`.
    pub fn resolve_parts(&self, name: &str, arguments: Option<&Json<'_>>, cx: &mut Cx) -> Result<(), Rejection> {
        let Some(i) = self.exact.get(name, |i| &self.tools[i].0.name) else {
            return Err(Rejection::unknown_tool(name, Names::Indexed(self.names.clone())));
        };
        let doc = match &self.tools[i].1 {
            Ok(doc) => doc,
            Err(problem) => return Err(Rejection::quarantined(name, problem)),
        };
        let root = Path::root();
        validate_at(doc, &doc.root, arguments.unwrap_or(&EMPTY_ARGUMENTS), &root.key("arguments"), cx).map_err(|r| r.with_tool(name))
    }
}

/// Why [`DynamicRegistry::strict`] refuses a registry: the first tool whose schema cannot be enforced.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[error("tool {tool:?}: {error}")]
pub struct Refused {
    /// The tool.
    pub tool: String,
    /// Why its schema cannot be enforced.
    #[source]
    pub error: SchemaError,
}

/// A merged deployment compiled at run time (servers a user adds to a host):
/// the same routing rules (M1–M5) as a generated `McpCall`, on dynamic registries.
pub struct DynamicDeployment {
    catalog: Catalog,
    servers: Vec<DynamicRegistry>,
}

impl DynamicDeployment {
    /// Compiles every server's registry; `servers` holds each server's name,
    /// tier (0 most trusted), tier name and registry.
    /// A tool whose schema cannot be enforced is quarantined, not an error; the
    /// names, pins and qualified names must form a [`Catalog`].
    pub fn new(servers: &[(String, usize, String, Registry)], pins: &[(String, String)], policy: Policy, options: &CompileOptions) -> Result<DynamicDeployment, CatalogError> {
        let mut specs = Vec::with_capacity(servers.len());
        let mut compiled = Vec::with_capacity(servers.len());
        for (name, tier, tier_name, registry) in servers {
            specs.push(ServerSpec::listing(name, *tier, tier_name, registry));
            compiled.push(DynamicRegistry::new(registry, options));
        }
        let catalog = Catalog::new(specs, pins, policy)?;
        Ok(DynamicDeployment { catalog, servers: compiled })
    }

    /// The quarantined tools: server, tool and why.
    pub fn quarantined(&self) -> impl Iterator<Item = (&str, &str, &SchemaError)> {
        self.catalog.servers().iter().zip(&self.servers).flat_map(|(s, r)| r.quarantined().map(move |(t, e)| (s.name.as_str(), t, e)))
    }

    /// The merged namespace.
    pub fn catalog(&self) -> &Catalog {
        &self.catalog
    }

    /// Every tool that resolves, under its qualified name (what the model must
    /// send back), in manifest and listing order, as `format`'s request lists them.
    pub fn definitions(&self, format: WireFormat) -> serde_json::Value {
        self.definitions_for(format, |_| true)
    }

    /// [`DynamicDeployment::definitions`] of the tools whose qualified names `visible` keeps.
    pub fn definitions_for(&self, format: WireFormat, mut visible: impl FnMut(&str) -> bool) -> serde_json::Value {
        let offered = self.catalog.routes().filter_map(|route| {
            let server = &self.servers[route.server];
            let def = server.offered(server.order[route.tool])?;
            let name = self.catalog.qualified(route);
            visible(name).then(|| Offer::read(name, def))
        });
        definitions::render(format, offered)
    }

    /// Routes and resolves one request: the `(server, tool)` it goes to, or its M/H rejection.
    pub fn resolve_request(&self, request: &McpRequest<'_>, options: &Options) -> Result<Route, Rejection> {
        self.resolve_request_with(request, options, &HashMap::new())
    }

    /// [`DynamicDeployment::resolve_request`] where the routes in `stale` are M4
    /// (their live definitions differ from the compiled ones).
    pub fn resolve_request_with(&self, request: &McpRequest<'_>, options: &Options, stale: &HashMap<Route, String>) -> Result<Route, Rejection> {
        self.resolve_request_in(request, &mut options.cx(), stale)
    }

    /// [`DynamicDeployment::resolve_request_with`] in the resolution context `cx` (strict or
    /// lenient), which keeps the coercions lenient mode made for the routed tool.
    pub fn resolve_request_in(&self, request: &McpRequest<'_>, cx: &mut Cx, stale: &HashMap<Route, String>) -> Result<Route, Rejection> {
        let resolve_on = |route: Route, arguments: Option<&Json<'_>>, cx: &mut Cx| self.servers[route.server].resolve_parts(&self.catalog.tool(route).name, arguments, cx);
        resolve_routed(&self.catalog, stale, request.server.as_deref(), &request.name, request.arguments.as_ref(), cx, &resolve_on).map(|((), route)| route)
    }
}

/// A dynamic registry that can be replaced while other threads resolve with
/// it (a server's `list_changed`): each call is resolved against exactly one
/// listing, whose version the result carries.
#[derive(Debug)]
pub struct LiveRegistry {
    current: std::sync::RwLock<Arc<(u64, DynamicRegistry)>>,
}

impl LiveRegistry {
    /// Starts with `registry` as version 0.
    pub fn new(registry: DynamicRegistry) -> LiveRegistry {
        LiveRegistry { current: std::sync::RwLock::new(Arc::new((0, registry))) }
    }

    /// The listing in force: its version and registry (held by the caller for as long as it needs).
    pub fn snapshot(&self) -> Arc<(u64, DynamicRegistry)> {
        self.current.read().unwrap_or_else(|p| p.into_inner()).clone()
    }

    /// Replaces the listing; calls already resolving finish against the old one. Returns the new version.
    pub fn swap(&self, registry: DynamicRegistry) -> u64 {
        let mut current = self.current.write().unwrap_or_else(|p| p.into_inner());
        let version = current.0 + 1;
        *current = Arc::new((version, registry));
        version
    }

    /// Resolves a call object against the listing in force; returns that listing's version too.
    pub fn resolve<'a>(&self, bytes: &'a [u8], options: &Options) -> (u64, Result<DynamicCall<'a>, Rejection>) {
        let snapshot = self.snapshot();
        (snapshot.0, snapshot.1.resolve(bytes, options))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::registry::read_registry;

    fn registry() -> DynamicRegistry {
        let text = r#"{"tools":[{"name":"move","inputSchema":{"type":"object","properties":{"to":{"type":"string"},"n":{"type":"integer"}},"additionalProperties":false}}]}"#;
        DynamicRegistry::new(&read_registry(text.as_bytes()).expect("registry"), &CompileOptions::default())
    }

    #[test]
    fn a_resolved_call_is_its_checked_tree_borrowed_from_the_bytes() {
        let registry = registry();
        let bytes = br#"{"arguments":{"to":"b","n":"2"},"name":"move"}"#.to_vec();
        let call = registry.resolve(&bytes, &Options::lenient()).expect("lenient reads the number");
        assert!(matches!(call.name, Cow::Borrowed("move")), "the name is not copied");
        let Json::Object(members) = &call.arguments else { panic!("arguments are an object: {:?}", call.arguments) };
        let keys: Vec<&str> = members.iter().map(|(k, _)| k.as_ref()).collect();
        assert_eq!(keys, ["to", "n"], "members in the call's order");
        assert!(matches!(&members[0].1, Json::String(Cow::Borrowed("b"))), "string values are not copied");
        assert_eq!(call.arguments_value(), serde_json::json!({"to": "b", "n": "2"}), "a coerced number stays a string");
        assert_eq!(call.coercions.iter().map(|c| c.pointer.as_str()).collect::<Vec<_>>(), ["/arguments/n"]);
        let owned = call.into_owned();
        drop(bytes);
        assert_eq!((owned.name.as_ref(), owned.arguments_value()), ("move", serde_json::json!({"to": "b", "n": "2"})));
    }

    #[test]
    fn absent_or_null_arguments_resolve_to_an_empty_object() {
        let registry = registry();
        for bytes in [&br#"{"name":"move"}"#[..], br#"{"name":"move","arguments":null}"#] {
            let call = registry.resolve(bytes, &Options::strict()).expect("resolves");
            assert!(matches!(&call.arguments, Json::Object(m) if m.is_empty()), "{:?}", call.arguments);
        }
        let r = registry.resolve(br#"{"name":"move","arguments":{"to":1}}"#, &Options::strict()).expect_err("H3");
        assert_eq!((r.class(), r.pointer()), (crate::Class::H3, "/arguments/to"));
    }
}
