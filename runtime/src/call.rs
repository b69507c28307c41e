//! The canonical call object `{"name": ..., "arguments": {...}}`, resolution
//! options, and the [`ToolSet`] trait that every generated `ToolCall` implements.

use std::borrow::Cow;

use crate::check::{Coercion, Cx};
use crate::json::{Json, KeyMiss, Reader};
use crate::path::Path;
use crate::rejection::{Names, Reason, Rejection};

/// How a call is resolved.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Options {
    /// Largest call accepted, in bytes, checked before parsing (default 1 MiB).
    pub max_bytes: usize,
    /// Coerce numbers given as strings (`"42"`) instead of rejecting them (H3).
    /// Every coercion is recorded in [`Resolution::coercions`]. Default `false`.
    pub lenient: bool,
}

impl Default for Options {
    fn default() -> Self {
        Options { max_bytes: 1 << 20, lenient: false }
    }
}

impl Options {
    /// Strict resolution with the default size limit.
    pub fn strict() -> Options {
        Options::default()
    }

    /// Lenient resolution: numeric strings are coerced and recorded.
    pub fn lenient() -> Options {
        Options { lenient: true, ..Options::default() }
    }

    /// A check context for these options.
    pub fn cx(&self) -> Cx {
        if self.lenient { Cx::lenient() } else { Cx::strict() }
    }
}

/// A resolved call and what lenient mode had to coerce to get it.
#[derive(Debug, Clone, PartialEq)]
pub struct Resolution<C> {
    /// The call, a member of the sealed set.
    pub call: C,
    /// Numbers read out of strings (always empty in strict mode).
    pub coercions: Vec<Coercion>,
}

/// Registry metadata of one tool, compiled into generated code.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ToolInfo {
    /// The tool's name as declared.
    pub name: &'static str,
    /// MCP `title`.
    pub title: Option<&'static str>,
    /// The description the model reads.
    pub description: Option<&'static str>,
    /// MCP tool annotations, typed.
    pub annotations: Annotations,
    /// The canonical JSON (RFC 8785) of the definition.
    pub definition: &'static str,
    /// SHA-256 (hex) of `definition`.
    pub digest: &'static str,
    /// Why the tool's schema cannot be enforced, when it is quarantined: no call
    /// resolves to it and it is never offered to a model.
    pub quarantined: Option<&'static str>,
}

impl ToolInfo {
    /// The tool `name` with its canonical `definition` and its `digest`: no title,
    /// description or annotations, not quarantined (the builders below add them).
    pub const fn new(name: &'static str, definition: &'static str, digest: &'static str) -> ToolInfo {
        ToolInfo { name, title: None, description: None, annotations: Annotations::NONE, definition, digest, quarantined: None }
    }

    /// With MCP `title`.
    pub const fn title(mut self, title: &'static str) -> ToolInfo {
        self.title = Some(title);
        self
    }

    /// With the description the model reads.
    pub const fn description(mut self, description: &'static str) -> ToolInfo {
        self.description = Some(description);
        self
    }

    /// With MCP tool annotations.
    pub const fn annotations(mut self, annotations: Annotations) -> ToolInfo {
        self.annotations = annotations;
        self
    }

    /// Quarantined: its schema cannot be enforced, for the reason given.
    pub const fn quarantined(mut self, why: &'static str) -> ToolInfo {
        self.quarantined = Some(why);
        self
    }
}

/// MCP tool annotations (hints about behaviour, as the server declared them).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Annotations {
    /// `title`
    pub title: Option<&'static str>,
    /// `readOnlyHint`: the tool does not modify its environment.
    pub read_only_hint: Option<bool>,
    /// `destructiveHint`: the tool may perform destructive updates.
    pub destructive_hint: Option<bool>,
    /// `idempotentHint`: repeated calls with the same arguments have no further effect.
    pub idempotent_hint: Option<bool>,
    /// `openWorldHint`: the tool interacts with an open world of external entities.
    pub open_world_hint: Option<bool>,
}

impl Annotations {
    /// No annotation.
    pub const NONE: Annotations = Annotations { title: None, read_only_hint: None, destructive_hint: None, idempotent_hint: None, open_world_hint: None };
}

/// A sealed set of tool calls generated from one registry.
///
/// Generated `ToolCall` enums implement it; the provided methods parse a call
/// object and resolve it, so that only members of the set can be built from JSON.
pub trait ToolSet: Sized {
    /// The registry file the set was generated from, as the build script named it.
    const REGISTRY: &'static str;
    /// The registry's tools, in registry order.
    const TOOLS: &'static [ToolInfo];
    #[doc(hidden)]
    /// The registry's tool names, sorted, for lookup and H1 suggestions.
    const NAMES: &'static [&'static str];

    #[doc(hidden)]
    /// [`ToolSet::NAMES`] for a rejection (an unknown name's closest names are
    /// searched among them); generated code gives them with their index.
    fn tool_names() -> Names {
        Names::Static(Self::NAMES)
    }

    #[doc(hidden)]
    /// `name` as [`ToolSet::NAMES`] holds it, when it is one of the tools
    /// (so that a rejection borrows it instead of copying it); generated code
    /// finds it through its name index.
    fn static_name(name: &str) -> Option<&'static str> {
        Self::NAMES.binary_search(&name).ok().map(|i| Self::NAMES[i])
    }

    #[doc(hidden)]
    /// Resolves `arguments` (absent or `null` means `{}`) for the tool `name`.
    fn resolve_parts(name: &str, arguments: Option<&Json<'_>>, cx: &mut Cx) -> Result<Self, Rejection>;

    #[doc(hidden)]
    /// Reads the arguments of the tool `name` straight from the reader, in
    /// strict mode: `Some` exactly when [`ToolSet::resolve_parts`] accepts them,
    /// with the same call; `None` otherwise (see [`FromJson::read`](crate::FromJson::read)).
    /// The default reads nothing, so every call goes through the tree.
    fn read_parts(name: &str, r: &mut Reader<'_>) -> Option<Self> {
        let _ = (name, r);
        None
    }

    #[doc(hidden)]
    /// Resolves a call that pins its server (`mcp_call`, `mcp_tool_use`). A
    /// single registry is one server, so the pin is ignored; merged
    /// deployments route to the pinned server.
    fn resolve_pinned(server: &str, name: &str, arguments: Option<&Json<'_>>, cx: &mut Cx) -> Result<Self, Rejection> {
        let _ = server;
        Self::resolve_parts(name, arguments, cx)
    }

    /// The tool this call names.
    fn name(&self) -> &'static str;

    /// Registry metadata of the tool this call names.
    fn info(&self) -> &'static ToolInfo {
        let name = self.name();
        Self::TOOLS.iter().find(|t| t.name == name).expect("every variant has a registry entry")
    }

    /// Resolves a call object with `options`.
    ///
    /// In strict mode the call is first read straight into its typed value
    /// ([`ToolSet::read_parts`]); a call not accepted that way is parsed as a
    /// tree and resolved from it, which classifies the rejection.
    #[inline]
    fn resolve_with(bytes: &[u8], options: &Options) -> Result<Resolution<Self>, Rejection> {
        if fused(bytes, options) {
            return read_call::<Self, Result<Self, Rejection>>(bytes, options).map(|call| Resolution { call, coercions: Vec::new() });
        }
        resolve_parsed(bytes, options)
    }

    /// Resolves a call object in strict mode (1 MiB limit): what the generated
    /// `from_json` runs. The same as [`ToolSet::resolve_with`] with
    /// [`Options::strict`], without the [`Resolution`] a strict call has no
    /// coercions for (an accepted call is moved once less on its way out).
    #[inline(always)]
    fn resolve_strict(bytes: &[u8]) -> Result<Self, Rejection> {
        let strict = Options::strict();
        if fused(bytes, &strict) {
            return read_call(bytes, &strict);
        }
        resolve_parsed(bytes, &strict).map(|r| r.call)
    }

    /// Resolves a call object that is already a tree.
    fn resolve_tree_with(call: &Json<'_>, options: &Options) -> Result<Resolution<Self>, Rejection> {
        resolve_tree(call, options)
    }
}

/// Parses the call as a tree and resolves it.
fn resolve_parsed<C: ToolSet>(bytes: &[u8], options: &Options) -> Result<Resolution<C>, Rejection> {
    let call = parse_call(bytes, options)?;
    resolve_tree(&call, options)
}

fn resolve_tree<C: ToolSet>(call: &Json<'_>, options: &Options) -> Result<Resolution<C>, Rejection> {
    let (name, arguments) = split_call(call)?;
    let mut cx = options.cx();
    let call = C::resolve_parts(name, arguments, &mut cx)?;
    Ok(Resolution { call, coercions: cx.into_coercions() })
}

/// What the fused reader ([`read_call`]) makes of a call object: the call it
/// read, the rejection it found, or, where it cannot tell, what the tree says.
/// Each is built once, where the reader stops, so an accepted call is moved
/// into its answer once.
pub trait Outcome<C>: Sized {
    /// The call, read and accepted.
    fn accepted(call: C) -> Self;
    /// The rejection the reader found (the very one the tree gives).
    fn rejected(rejection: Rejection) -> Self;
    /// The reader cannot tell: the call `bytes` are left to the tree, resolved
    /// with `options` (strict mode, within whose size limit the bytes are).
    fn declined(bytes: &[u8], options: &Options) -> Self;
}

/// The answer `from_json` gives: a declined call is resolved as a tree (strict mode).
impl<C: ToolSet> Outcome<C> for Result<C, Rejection> {
    #[inline(always)]
    fn accepted(call: C) -> Self {
        Ok(call)
    }

    #[inline(always)]
    fn rejected(rejection: Rejection) -> Self {
        Err(rejection)
    }

    #[cold]
    #[inline(never)]
    fn declined(bytes: &[u8], options: &Options) -> Self {
        resolve_parsed(bytes, options).map(|r| r.call)
    }
}

/// The reader's own answer: `None` where it cannot tell (for tests that hold it
/// against the tree).
impl<C> Outcome<C> for Option<Result<C, Rejection>> {
    #[inline(always)]
    fn accepted(call: C) -> Self {
        Some(Ok(call))
    }

    #[inline(always)]
    fn rejected(rejection: Rejection) -> Self {
        Some(Err(rejection))
    }

    #[inline(always)]
    fn declined(_: &[u8], _: &Options) -> Self {
        None
    }
}

/// Reads a call object `{"name": ..., "arguments": {...}}` straight into `C`,
/// in strict mode: [`Outcome::accepted`] exactly for a call [`split_call`] and
/// [`ToolSet::resolve_parts`] accept, with the same value;
/// [`Outcome::rejected`] for a call naming none of the tools, or whose
/// arguments object itself has a key problem (undeclared, twice, required and
/// absent), with the rejection the tree gives; [`Outcome::declined`] for
/// anything else. The two keys may come in either order (the arguments first
/// are set aside until the name is read); absent or `null` arguments are left
/// to the tree.
#[inline(always)]
pub fn read_call<C: ToolSet, O: Outcome<C>>(bytes: &[u8], options: &Options) -> O {
    /// The value of an `Option` read, or the call declined.
    macro_rules! or_decline {
        ($read:expr) => {
            match $read {
                Some(x) => x,
                None => return O::declined(bytes, options),
            }
        };
    }
    let mut r = or_decline!(Reader::new(bytes));
    if !or_decline!(r.object()) {
        return O::declined(bytes, options);
    }
    // The keys compared as written: an escaped one is left to the tree.
    if r.key_is("name") {
        let name = or_decline!(r.string());
        if !or_decline!(r.more_members()) || !r.key_is("arguments") || r.null() {
            return O::declined(bytes, options);
        }
        read_arguments(&mut r, &name, bytes, options, at_call_end)
    } else if r.key_is("arguments") {
        // As `serde_json` writes a map: the arguments first.
        let mut arguments = or_decline!(r.set_aside());
        if !or_decline!(r.more_members()) || !r.key_is("name") {
            return O::declined(bytes, options);
        }
        let name = or_decline!(r.string());
        read_arguments(&mut arguments, &name, bytes, options, |arguments| arguments.at_end() && at_call_end(&mut r))
    } else {
        O::declined(bytes, options)
    }
}

/// Whether the call object ends after its second member, and the text with it.
#[inline(always)]
fn at_call_end(r: &mut Reader<'_>) -> bool {
    r.more_members() == Some(false) && r.at_end()
}

/// The call of the tool `name` whose arguments are the reader's next value,
/// given when `end` says the call's text ends well after them (otherwise
/// declined: the tree says what is wrong).
#[inline(always)]
fn read_arguments<C: ToolSet, O: Outcome<C>>(r: &mut Reader<'_>, name: &str, bytes: &[u8], options: &Options, end: impl FnOnce(&mut Reader<'_>) -> bool) -> O {
    match C::read_parts(name, r) {
        Some(call) => {
            if end(r) {
                return O::accepted(call);
            }
        }
        None => {
            if let Some(rejection) = key_rejection::<C>(r, name)
                && end(r)
            {
                return O::rejected(rejection);
            }
        }
    }
    O::declined(bytes, options)
}

/// Whether `options` let the fused reader read a call of `bytes` (strict mode,
/// within the size limit).
#[inline(always)]
fn fused(bytes: &[u8], options: &Options) -> bool {
    !options.lenient && bytes.len() <= options.max_bytes
}

/// The rejection of a call whose reading stopped on its name (none of the
/// tools) or on a key of its arguments object (not of an object inside it: the tree checks every key of an object
/// before any value, so a key problem deeper in is not necessarily the one it
/// reports), with the rest of the arguments read. The tree reports exactly this
/// one: every member before the key was read and accepted.
#[cold]
fn key_rejection<C: ToolSet>(r: &mut Reader<'_>, tool: &str) -> Option<Rejection> {
    /// The arguments object's depth: inside the call object.
    const ARGUMENTS: usize = 2;
    let stop = r.take_stop()?;
    if let KeyMiss::UnknownName = stop.miss {
        // H1 whatever the arguments are: the tree checks the name first.
        r.skip_value()?;
        return Some(Rejection::unknown_tool(tool, C::tool_names()));
    }
    if stop.depth != ARGUMENTS {
        return None;
    }
    let root = Path::root();
    let at = root.key("arguments");
    let (key, twice) = match stop.miss {
        KeyMiss::Missing(key) => return Some(with_tool::<C>(Rejection::missing_key(&at, key, Names::Static(stop.declared)), tool)),
        KeyMiss::Undeclared(key) => (key, false),
        KeyMiss::Duplicate(key) => (key, true),
        KeyMiss::UnknownName => return None,
    };
    // The key's value and the members after it, to the object's end.
    r.skip_value()?;
    while r.more_members()? {
        r.key()?;
        r.skip_value()?;
    }
    let rejection = if twice { Rejection::duplicate_key(&at, &key) } else { Rejection::undeclared_key(&at, &key, Names::Static(stop.declared)) };
    Some(with_tool::<C>(rejection, tool))
}

/// `rejection` of a call to `tool`, one of `C`'s tools: its name borrowed from
/// [`ToolSet::NAMES`], not copied.
fn with_tool<C: ToolSet>(rejection: Rejection, tool: &str) -> Rejection {
    match C::static_name(tool) {
        Some(name) => rejection.with_static_tool(name),
        None => rejection.with_tool(tool),
    }
}

/// Parses call bytes, enforcing the size limit before parsing.
pub fn parse_call<'a>(bytes: &'a [u8], options: &Options) -> Result<Json<'a>, Rejection> {
    if bytes.len() > options.max_bytes {
        return Err(Rejection::malformed(Reason::TooLarge { size: bytes.len(), limit: options.max_bytes }, &Path::root()));
    }
    Json::parse(bytes).map_err(|e| Rejection::malformed(Reason::InvalidJson { message: e.message }, &Path::root()))
}

/// Splits a call object into its name and arguments: exactly the keys `name`
/// (a string) and optionally `arguments`, each once.
pub fn split_call<'j, 'a>(call: &'j Json<'a>) -> Result<(&'j str, Option<&'j Json<'a>>), Rejection> {
    let Json::Object(members) = call else {
        return Err(Rejection::malformed(Reason::CallNotObject, &Path::root()).with_found(call.kind()));
    };
    let mut name = None;
    let mut arguments = None;
    for (k, v) in members {
        let slot = match k.as_ref() {
            "name" => &mut name,
            "arguments" => &mut arguments,
            _ => return Err(bad_envelope_key(k)),
        };
        if slot.replace(v).is_some() {
            return Err(bad_envelope_key(k));
        }
    }
    let name = match name {
        None => return Err(Rejection::malformed(Reason::MissingName, &Path::root().key("name"))),
        Some(Json::String(s)) => s.as_ref(),
        Some(other) => return Err(Rejection::malformed(Reason::NameNotString, &Path::root().key("name")).with_found(other.kind())),
    };
    let arguments = match arguments {
        None | Some(Json::Null) => None,
        Some(a) => Some(a),
    };
    Ok((name, arguments))
}

/// Moves the name and arguments out of a call object that [`split_call`] has
/// accepted (absent or `null` arguments are `{}`); nothing is copied.
pub(crate) fn take_parts(call: Json<'_>) -> (Cow<'_, str>, Json<'_>) {
    let mut name = Cow::Borrowed("");
    let mut arguments = Json::Object(Vec::new());
    if let Json::Object(members) = call {
        for (key, value) in members {
            match (key.as_ref(), value) {
                ("name", Json::String(s)) => name = s,
                ("name", other) => debug_assert!(false, "split_call accepts only a string name, not {other:?}"),
                ("arguments", Json::Null) => {}
                ("arguments", value) => arguments = value,
                _ => {}
            }
        }
    }
    (name, arguments)
}

fn bad_envelope_key(key: &str) -> Rejection {
    Rejection::malformed(Reason::BadEnvelopeKey { key: key.chars().take(64).collect() }, &Path::root().key(key))
}

/// The empty object that absent or `null` arguments stand for.
pub static EMPTY_ARGUMENTS: Json<'static> = Json::Object(Vec::new());
