//! The typed outcome of a failed resolution: a class (H1–H3 or malformed),
//! a reason, the JSON pointer to the offending place, and hints for a retry.

use std::borrow::Cow;
use std::fmt;

use crate::json::JsonKind;
pub use crate::names::{NameIndex, Names, closest, edit_distance};
use crate::path::Path;

/// The class of a rejected call, as the study's taxonomy names them.
#[non_exhaustive]
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, serde::Serialize, serde::Deserialize)]
pub enum Class {
    /// Not a call at all: not JSON, not an object, no string `name`, a stray envelope key.
    Malformed,
    /// The tool name is not in the registry.
    H1,
    /// An undeclared key, a missing required key, or a duplicated key.
    H2,
    /// A declared key whose value violates its type, enum, const, range, length,
    /// pattern, format, item count or uniqueness.
    H3,
    /// Merged MCP servers: no connected server provides the tool (or the pinned server does not exist).
    M1,
    /// Merged MCP servers: several servers of the same trust tier provide it and the call is not pinned.
    M2,
    /// Merged MCP servers: a lower-tier server declares a name a higher-tier server provides (shadowing).
    M3,
    /// Merged MCP servers: the tool's live definition differs from the compiled one or from the listing the model saw.
    M4,
    /// Merged MCP servers: the arguments do not fit the routed server's signature but fit another server's tool of that name.
    M5,
    /// The tool exists, but its schema cannot be enforced (a reference that cannot be
    /// resolved, a pattern that cannot compile, a malformed keyword): every call to it is
    /// refused until its registry is fixed, while the other tools resolve.
    Quarantined,
}

impl Class {
    /// The short name (`"H2"`, `"Malformed"`).
    pub fn as_str(self) -> &'static str {
        match self {
            Class::Malformed => "Malformed",
            Class::H1 => "H1",
            Class::H2 => "H2",
            Class::H3 => "H3",
            Class::M1 => "M1",
            Class::M2 => "M2",
            Class::M3 => "M3",
            Class::M4 => "M4",
            Class::M5 => "M5",
            Class::Quarantined => "Quarantined",
        }
    }
}

impl fmt::Display for Class {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// The JSON Schema keyword an H3 value violated. Each is an entry of the keyword
/// vocabulary, [`crate::schema::keywords::VOCABULARY`], which takes its name from [`Keyword::as_str`].
#[non_exhaustive]
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "camelCase")]
pub enum Keyword {
    /// `type` (also: an integer outside the generated Rust type's range is `Minimum`/`Maximum`).
    Type,
    /// `enum`
    Enum,
    /// `const`
    Const,
    /// `minimum`
    Minimum,
    /// `maximum`
    Maximum,
    /// `exclusiveMinimum`
    ExclusiveMinimum,
    /// `exclusiveMaximum`
    ExclusiveMaximum,
    /// `multipleOf`
    MultipleOf,
    /// `minLength`
    MinLength,
    /// `maxLength`
    MaxLength,
    /// `pattern`
    Pattern,
    /// `format`
    Format,
    /// `minItems`
    MinItems,
    /// `maxItems`
    MaxItems,
    /// `uniqueItems`
    UniqueItems,
    /// `minProperties`
    MinProperties,
    /// `maxProperties`
    MaxProperties,
    /// `anyOf`: no option matched
    AnyOf,
    /// `oneOf`: no option, or more than one, matched
    OneOf,
    /// a `false` schema: no value is allowed here
    False,
    /// `not`: the value matches the schema it must not match
    Not,
    /// `contains`: no item matches
    Contains,
    /// `minContains`: too few items match `contains`
    MinContains,
    /// `maxContains`: too many items match `contains`
    MaxContains,
    /// `unevaluatedItems`: an item no other keyword evaluated
    UnevaluatedItems,
    /// `$ref` / `$dynamicRef`: the references loop without consuming the value
    Ref,
}

impl Keyword {
    /// The keyword as JSON Schema spells it.
    pub const fn as_str(self) -> &'static str {
        match self {
            Keyword::Type => "type",
            Keyword::Enum => "enum",
            Keyword::Const => "const",
            Keyword::Minimum => "minimum",
            Keyword::Maximum => "maximum",
            Keyword::ExclusiveMinimum => "exclusiveMinimum",
            Keyword::ExclusiveMaximum => "exclusiveMaximum",
            Keyword::MultipleOf => "multipleOf",
            Keyword::MinLength => "minLength",
            Keyword::MaxLength => "maxLength",
            Keyword::Pattern => "pattern",
            Keyword::Format => "format",
            Keyword::MinItems => "minItems",
            Keyword::MaxItems => "maxItems",
            Keyword::UniqueItems => "uniqueItems",
            Keyword::MinProperties => "minProperties",
            Keyword::MaxProperties => "maxProperties",
            Keyword::AnyOf => "anyOf",
            Keyword::OneOf => "oneOf",
            Keyword::False => "false",
            Keyword::Not => "not",
            Keyword::Contains => "contains",
            Keyword::MinContains => "minContains",
            Keyword::MaxContains => "maxContains",
            Keyword::UnevaluatedItems => "unevaluatedItems",
            Keyword::Ref => "$ref",
        }
    }
}

/// What exactly was wrong.
#[non_exhaustive]
#[derive(Debug, Clone, PartialEq)]
pub enum Reason {
    /// The bytes are not one JSON value.
    InvalidJson {
        /// The parser's message.
        message: String,
    },
    /// The call is larger than the configured limit (checked before parsing).
    TooLarge {
        /// The call's size in bytes.
        size: usize,
        /// The limit in bytes.
        limit: usize,
    },
    /// The call is not a JSON object.
    CallNotObject,
    /// The call has no `name`.
    MissingName,
    /// `name` is not a string.
    NameNotString,
    /// The call object has a key other than `name` and `arguments`, or one of them twice.
    BadEnvelopeKey {
        /// The key.
        key: String,
    },
    /// A vendor reply or tool-call item of an unexpected shape.
    WireShape {
        /// What was expected, in words.
        message: Cow<'static, str>,
    },
    /// `arguments` encoded other than the wire format says: an object where a
    /// JSON string is due (OpenAI), or a string where an object is due
    /// (Anthropic, Bedrock, Gemini, MCP: double encoding is not undone).
    ArgumentsEncoding {
        /// What the format carries: `a JSON-encoded string` or `an object`.
        expected: &'static str,
    },
    /// H1: no tool of this name.
    UnknownTool,
    /// M1: no connected server provides the tool, or the named server is not connected.
    NoProvider {
        /// The server the call named, if it named one.
        server: Option<String>,
    },
    /// M2: several servers of one tier provide the tool.
    Ambiguous {
        /// The qualified names of the candidates.
        candidates: Vec<String>,
    },
    /// M3: the name is declared by servers of different tiers.
    Shadowed {
        /// The qualified names of every provider, highest tier first.
        providers: Vec<String>,
    },
    /// M4: the definition changed (or vanished) since the build or since the listing the model saw.
    Stale {
        /// What changed.
        change: String,
    },
    /// M5: the arguments fit another server's tool of this name, not the routed one.
    OtherSignature {
        /// The qualified names whose signatures the arguments fit.
        fits: Vec<String>,
        /// The routed tool's own rejection, as one line.
        detail: String,
    },
    /// The tool's schema cannot be enforced, so the tool is quarantined.
    Quarantined {
        /// Where in the tool's `inputSchema`, which keyword, and what is wrong.
        problem: String,
    },
    /// H2: a key the schema does not declare.
    UndeclaredKey {
        /// The key as given (at most 64 characters kept).
        key: String,
    },
    /// H2: a required key is absent.
    MissingKey {
        /// The key the schema requires.
        key: Cow<'static, str>,
    },
    /// H2: a key given twice; parsers disagree on which one wins.
    DuplicateKey {
        /// The key.
        key: String,
    },
    /// H3: a value violates a keyword.
    Violation {
        /// The keyword violated.
        keyword: Keyword,
        /// What the schema expected, in words (e.g. `number >= 0.01`).
        expected: Cow<'static, str>,
    },
    /// H3: a number or integer was given as a string (`"42"`). Counted apart
    /// from genuine type errors, since a lenient bridge would coerce it.
    NumericString {
        /// What the schema expected (`integer` or `number`).
        expected: Cow<'static, str>,
    },
}

/// A rejected call: never a parsed error string.
#[derive(Debug, Clone)]
pub struct Rejection {
    class: Class,
    reason: Reason,
    /// Static where it is always the same (`/name`), so that it costs nothing.
    pointer: Cow<'static, str>,
    found: Option<JsonKind>,
    subject: Option<Box<Subject>>,
    hints: Option<Names>,
}

/// The tool (and server) a rejection is about; boxed, so that `Rejection` stays small.
#[derive(Debug, Clone, Default)]
struct Subject {
    /// Borrowed when it is a name compiled into the binary.
    tool: Option<Cow<'static, str>>,
    server: Option<Box<str>>,
}

/// Longest key or name a rejection keeps, so that feedback never echoes huge input.
const MAX_ECHO: usize = 64;

/// `s`, cut to 64 characters with an ellipsis.
pub(crate) fn clip(s: &str) -> Cow<'_, str> {
    clip_to(s, MAX_ECHO)
}

/// `s` cut to `max` characters, with an ellipsis where it was cut.
pub(crate) fn clip_to(s: &str, max: usize) -> Cow<'_, str> {
    // No more bytes than `max` means no more characters: nothing to count.
    if s.len() <= max {
        return Cow::Borrowed(s);
    }
    match s.char_indices().nth(max) {
        Some((i, _)) => Cow::Owned(format!("{}…", &s[..i])),
        None => Cow::Borrowed(s),
    }
}

/// `text` cut to `max` characters, with an ellipsis where it was cut (kept as it is when it fits).
pub(crate) fn bounded<'a>(text: Cow<'a, str>, max: usize) -> Cow<'a, str> {
    match clip_to(&text, max) {
        Cow::Borrowed(_) => text,
        Cow::Owned(cut) => Cow::Owned(cut),
    }
}

/// The names a rejection suggests (closest tool names, declared keys, rival
/// tools): a list compiled into the binary is borrowed whole, others are
/// collected. Serialized as an array of strings.
#[derive(Debug, Clone)]
pub enum Suggestions<'a> {
    /// A list as it is (a generated object's declared keys).
    Listed(&'a [&'a str]),
    /// Names searched or picked (each borrowed where it can be).
    Collected(Vec<Cow<'a, str>>),
}

impl<'a> Suggestions<'a> {
    /// How many names.
    pub fn len(&self) -> usize {
        match self {
            Suggestions::Listed(names) => names.len(),
            Suggestions::Collected(names) => names.len(),
        }
    }

    /// Whether there are none.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The `i`-th name.
    fn get(&self, i: usize) -> &str {
        match self {
            Suggestions::Listed(names) => names[i],
            Suggestions::Collected(names) => &names[i],
        }
    }

    /// The names, in order.
    pub fn iter(&self) -> impl ExactSizeIterator<Item = &str> + '_ {
        (0..self.len()).map(|i| self.get(i))
    }

    /// At most `count` names of at most `chars` characters each (cut with an
    /// ellipsis): a list whose first `count` names fit is still borrowed whole.
    pub(crate) fn bounded(self, count: usize, chars: usize) -> Suggestions<'a> {
        match self {
            Suggestions::Listed(names) => {
                let names = &names[..names.len().min(count)];
                // No more bytes than `chars` means no more characters.
                if names.iter().all(|name| name.len() <= chars) {
                    return Suggestions::Listed(names);
                }
                Suggestions::Collected(names.iter().map(|name| clip_to(name, chars)).collect())
            }
            Suggestions::Collected(mut names) => {
                // Cut in place: the vector is the one the names were searched into.
                names.truncate(count);
                for name in &mut names {
                    *name = bounded(std::mem::take(name), chars);
                }
                Suggestions::Collected(names)
            }
        }
    }
}

impl Default for Suggestions<'_> {
    fn default() -> Self {
        Suggestions::Listed(&[])
    }
}

impl PartialEq for Suggestions<'_> {
    fn eq(&self, other: &Self) -> bool {
        self.iter().eq(other.iter())
    }
}

impl<const N: usize> PartialEq<[&str; N]> for Suggestions<'_> {
    fn eq(&self, other: &[&str; N]) -> bool {
        self.iter().eq(other.iter().copied())
    }
}

impl serde::Serialize for Suggestions<'_> {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.collect_seq(self.iter())
    }
}

impl Rejection {
    fn new(class: Class, reason: Reason, pointer: impl Into<Cow<'static, str>>) -> Rejection {
        Rejection { class, reason, pointer: pointer.into(), found: None, subject: None, hints: None }
    }

    #[doc(hidden)]
    /// A call to `tool`, whose schema cannot be enforced (`problem` says why).
    pub fn quarantined(tool: &str, problem: impl fmt::Display) -> Rejection {
        Rejection::routing(Class::Quarantined, Reason::Quarantined { problem: problem.to_string() }, tool)
    }

    #[doc(hidden)]
    /// A merged-server rejection (M1–M4) of the call naming `tool`.
    pub fn routing(class: Class, reason: Reason, tool: &str) -> Rejection {
        let mut r = Rejection::new(class, reason, "/name");
        r.subject_mut().tool = Some(clip(tool).into_owned().into());
        r
    }

    #[doc(hidden)]
    /// M5: this rejection of the routed tool, where the arguments fit `fits` instead.
    pub fn other_signature(self, fits: Vec<String>) -> Rejection {
        let detail = clip(&self.to_string()).into_owned();
        Rejection { class: Class::M5, reason: Reason::OtherSignature { fits, detail }, ..self }
    }

    fn subject_mut(&mut self) -> &mut Subject {
        self.subject.get_or_insert_default()
    }

    #[doc(hidden)]
    /// Records the server the call was routed to.
    pub fn with_server(mut self, server: &str) -> Rejection {
        self.subject_mut().server = Some(clip(server).into());
        self
    }

    /// The server the call was routed to (merged MCP deployments).
    pub fn server(&self) -> Option<&str> {
        self.subject.as_ref().and_then(|s| s.server.as_deref())
    }

    #[doc(hidden)]
    /// A call that is not JSON, or not a call object.
    pub fn malformed(reason: Reason, pointer: &Path<'_>) -> Rejection {
        Rejection::new(Class::Malformed, reason, pointer.pointer())
    }

    #[doc(hidden)]
    /// H1: `name` is not in the registry whose tool names are `registry`.
    pub fn unknown_tool(name: &str, registry: Names) -> Rejection {
        let mut r = Rejection::new(Class::H1, Reason::UnknownTool, "/name");
        r.subject_mut().tool = Some(clip(name).into_owned().into());
        r.hints = Some(registry);
        r
    }

    #[doc(hidden)]
    /// H2: `key` of the object at `at` is not declared; `declared` lists what is.
    pub fn undeclared_key(at: &Path<'_>, key: &str, declared: Names) -> Rejection {
        let mut r = Rejection::new(Class::H2, Reason::UndeclaredKey { key: clip(key).into_owned() }, at.key(key).pointer());
        r.hints = Some(declared);
        r
    }

    #[doc(hidden)]
    /// H2: the required `key` of the object at `at` is absent.
    pub fn missing_key(at: &Path<'_>, key: impl Into<Cow<'static, str>>, declared: Names) -> Rejection {
        let key = key.into();
        let pointer = at.key(&key).pointer();
        let mut r = Rejection::new(Class::H2, Reason::MissingKey { key }, pointer);
        r.hints = Some(declared);
        r
    }

    #[doc(hidden)]
    /// H2: `key` appears twice in the object at `at`.
    pub fn duplicate_key(at: &Path<'_>, key: &str) -> Rejection {
        Rejection::new(Class::H2, Reason::DuplicateKey { key: clip(key).into_owned() }, at.key(key).pointer())
    }

    #[doc(hidden)]
    /// H3: the value at `at`, of kind `found`, violates `keyword`.
    pub fn violation(at: &Path<'_>, keyword: Keyword, expected: impl Into<Cow<'static, str>>, found: JsonKind) -> Rejection {
        let mut r = Rejection::new(Class::H3, Reason::Violation { keyword, expected: expected.into() }, at.pointer());
        r.found = Some(found);
        r
    }

    #[doc(hidden)]
    /// H3: a number given as a string where `expected` (integer or number) was due.
    pub fn numeric_string(at: &Path<'_>, expected: impl Into<Cow<'static, str>>) -> Rejection {
        let mut r = Rejection::new(Class::H3, Reason::NumericString { expected: expected.into() }, at.pointer());
        r.found = Some(JsonKind::String);
        r
    }

    #[doc(hidden)]
    /// Records the tool name as the call gave it (kept to 64 characters).
    pub fn with_tool(mut self, name: &str) -> Rejection {
        self.subject_mut().tool = Some(clip(name).into_owned().into());
        self
    }

    #[doc(hidden)]
    /// [`Rejection::with_tool`] for a name compiled into the binary (a generated
    /// enum's): borrowed, not copied.
    pub fn with_static_tool(mut self, name: &'static str) -> Rejection {
        self.subject_mut().tool = Some(clip(name));
        self
    }

    #[doc(hidden)]
    /// Records the kind of value found at the pointer.
    pub fn with_found(mut self, found: JsonKind) -> Rejection {
        self.found = Some(found);
        self
    }

    /// The class: `Malformed`, `H1`, `H2` or `H3`.
    pub fn class(&self) -> Class {
        self.class
    }

    /// What exactly was wrong.
    pub fn reason(&self) -> &Reason {
        &self.reason
    }

    /// JSON pointer into the call object (`/arguments/amount`); `/name` for H1.
    pub fn pointer(&self) -> &str {
        &self.pointer
    }

    /// [`Rejection::pointer`] cut to `max` characters, as a value that outlives
    /// `self` (a static pointer such as `/name` is not copied).
    pub(crate) fn pointer_clipped(&self, max: usize) -> Cow<'static, str> {
        match &self.pointer {
            Cow::Borrowed(pointer) => clip_to(pointer, max),
            Cow::Owned(pointer) => Cow::Owned(clip_to(pointer, max).into_owned()),
        }
    }

    /// The tool name as the call gave it, when the call had one.
    pub fn tool(&self) -> Option<&str> {
        self.subject.as_ref().and_then(|s| s.tool.as_deref())
    }

    /// The kind of value found at the pointer, for H3.
    pub fn found(&self) -> Option<JsonKind> {
        self.found
    }

    /// The keyword an H3 value violated.
    pub fn keyword(&self) -> Option<Keyword> {
        match &self.reason {
            Reason::Violation { keyword, .. } => Some(*keyword),
            Reason::NumericString { .. } => Some(Keyword::Type),
            _ => None,
        }
    }

    /// What the schema expected at the pointer, in words.
    pub fn expected(&self) -> Option<&str> {
        match &self.reason {
            Reason::Violation { expected, .. } | Reason::NumericString { expected } => Some(expected),
            _ => None,
        }
    }

    /// Whether this is a number given as a string (H3), which a lenient bridge would coerce.
    pub fn is_numeric_string(&self) -> bool {
        matches!(self.reason, Reason::NumericString { .. })
    }

    /// Suggestions for the model's retry, never applied automatically: for H1 the
    /// registry names closest to the one given (edit distance); for H2 the declared keys.
    pub fn suggestions(&self) -> Vec<&str> {
        let Some(hints) = &self.hints else { return Vec::new() };
        match self.closest_to() {
            Some((name, n)) => hints.closest(name, n),
            None => hints.iter().collect(),
        }
    }

    /// [`Rejection::suggestions`] as values that outlive the rejection: names
    /// compiled into the binary (a generated enum's) borrowed, a list of them
    /// whole; others copied.
    fn static_suggestions(&self) -> Suggestions<'static> {
        match (&self.hints, self.closest_to()) {
            (None, _) => Suggestions::default(),
            (Some(Names::Static(names)), None) => Suggestions::Listed(names),
            (Some(hints), closest_to) => Suggestions::Collected(hints.to_static(closest_to)),
        }
    }

    /// For an unknown tool, the name given and how many closest names to suggest.
    fn closest_to(&self) -> Option<(&str, usize)> {
        match (&self.reason, self.tool()) {
            (Reason::UnknownTool, Some(name)) => Some((name, 3)),
            _ => None,
        }
    }
}

/// A string as `{:?}` writes it: quoted, with escapes. Most names and keys need
/// none, and are written at once instead of a character at a time.
struct Quoted<'a>(&'a str);

impl fmt::Display for Quoted<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.write_to(f)
    }
}

impl Quoted<'_> {
    /// Writes the quoted string to `out` (what `{:?}` writes; printable ASCII
    /// without a quote or backslash is written as it is, not formatted).
    fn write_to(&self, out: &mut impl fmt::Write) -> fmt::Result {
        // Every byte looked at (no early exit), so that the check is a vector loop.
        let escaped = self.0.bytes().fold(false, |escaped, b| escaped | !(b' '..=b'~').contains(&b) | (b == b'"') | (b == b'\\'));
        if !escaped {
            out.write_char('"')?;
            out.write_str(self.0)?;
            out.write_char('"')
        } else {
            write!(out, "{:?}", self.0)
        }
    }
}

fn join_names<'n>(out: &mut impl fmt::Write, names: impl ExactSizeIterator<Item = &'n str>) -> fmt::Result {
    const SHOWN: usize = 8;
    let count = names.len();
    for (i, name) in names.take(SHOWN).enumerate() {
        if i > 0 {
            out.write_str(", ")?;
        }
        out.write_str(&clip(name))?;
    }
    if count > SHOWN {
        write!(out, ", … ({} more)", count - SHOWN)?;
    }
    Ok(())
}

impl fmt::Display for Rejection {
    /// One short line a model can act on.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.render(f, None)
    }
}

impl Rejection {
    /// The line [`Display`](fmt::Display) writes and the [`Rejection::suggestions`], the
    /// closest names searched once for both; the suggestions outlive the rejection
    /// (names compiled into the binary borrowed, others copied). The line has room
    /// for `room` more bytes (what the caller appends) without growing.
    pub fn line_and_suggestions(&self, room: usize) -> (String, Suggestions<'static>) {
        let suggestions = self.static_suggestions();
        let mut line = String::with_capacity(192 + room);
        // Written straight into the `String`, not through a `Formatter`: the
        // line's many short pieces are each a `push_str`.
        self.render(&mut line, Some(&suggestions)).expect("a String takes any text");
        (line, suggestions)
    }

    fn render(&self, f: &mut impl fmt::Write, suggestions: Option<&Suggestions<'_>>) -> fmt::Result {
        // Text without arguments is written as it is, not formatted: an H1's line
        // is the commonest a model reads.
        f.write_str(self.class.as_str())?;
        if !self.pointer.is_empty() {
            f.write_str(" at ")?;
            f.write_str(&clip(&self.pointer))?;
        }
        f.write_str(": ")?;
        let tool = Quoted(self.tool().unwrap_or("?"));
        // The suggestions an H1 or H2 line lists, searched once.
        let (computed, empty);
        let suggestions = match suggestions {
            Some(s) => s,
            None if matches!(self.reason, Reason::UnknownTool | Reason::UndeclaredKey { .. }) => {
                computed = Suggestions::Collected(self.suggestions().into_iter().map(Cow::Borrowed).collect());
                &computed
            }
            None => {
                empty = Suggestions::default();
                &empty
            }
        };
        match &self.reason {
            Reason::InvalidJson { message } => write!(f, "not valid JSON ({})", clip(message)),
            Reason::TooLarge { size, limit } => write!(f, "call is {size} bytes, over the {limit}-byte limit"),
            Reason::CallNotObject => write!(f, "a call must be a JSON object with \"name\" and \"arguments\""),
            Reason::MissingName => write!(f, "the call has no \"name\""),
            Reason::NameNotString => write!(f, "\"name\" must be a string"),
            Reason::BadEnvelopeKey { key } => {
                write!(f, "unexpected or repeated key {}; a call has only \"name\" and \"arguments\"", Quoted(key))
            }
            Reason::WireShape { message } => write!(f, "{}", clip(message)),
            Reason::NoProvider { server: Some(server) } => write!(f, "no connected server {:?} provides {tool}", clip(server)),
            Reason::NoProvider { server: None } => write!(f, "no connected server provides {tool}"),
            Reason::Ambiguous { candidates } => {
                write!(f, "{tool} is provided by several servers of one tier; call one of: ")?;
                join_names(f, candidates.iter().map(String::as_str))
            }
            Reason::Shadowed { providers } => {
                write!(f, "{tool} is declared by servers of different trust tiers (shadowing); name the server: ")?;
                join_names(f, providers.iter().map(String::as_str))
            }
            Reason::Stale { change } => write!(f, "{tool} is stale: {}", clip(change)),
            Reason::OtherSignature { fits, detail } => {
                write!(f, "the arguments fit ")?;
                join_names(f, fits.iter().map(String::as_str))?;
                write!(f, ", not the routed tool ({detail})")
            }
            Reason::ArgumentsEncoding { expected } => write!(f, "\"arguments\" must be {expected} in this wire format"),
            Reason::UnknownTool => {
                f.write_str("no tool named ")?;
                tool.write_to(f)?;
                f.write_str(" in the registry")?;
                if !suggestions.is_empty() {
                    f.write_str("; did you mean: ")?;
                    join_names(f, suggestions.iter())?;
                }
                Ok(())
            }
            Reason::UndeclaredKey { key } => {
                tool.write_to(f)?;
                f.write_str(" does not declare key ")?;
                Quoted(key).write_to(f)?;
                f.write_str("; declared: ")?;
                join_names(f, suggestions.iter())
            }
            Reason::MissingKey { key } => {
                tool.write_to(f)?;
                f.write_str(" requires key ")?;
                Quoted(key).write_to(f)
            }
            Reason::DuplicateKey { key } => {
                f.write_str("key ")?;
                Quoted(key).write_to(f)?;
                f.write_str(" is given more than once")
            }
            Reason::Violation { keyword, expected } => {
                write!(f, "expected {expected}")?;
                if let Some(found) = self.found {
                    write!(f, ", found {found}")?;
                }
                write!(f, " ({})", keyword.as_str())
            }
            Reason::NumericString { expected } => write!(f, "expected {expected}, found a number in a string"),
            Reason::Quarantined { problem } => write!(f, "{tool} is quarantined: its schema cannot be enforced ({problem}); the registry must be fixed"),
        }?;
        match self.server() {
            Some(server) => write!(f, " (server {})", Quoted(server)),
            None => Ok(()),
        }
    }
}

impl std::error::Error for Rejection {}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn closest_names_for_h1() {
        static NAMES: &[&str] = &["transfer_funds", "get_balance", "list_accounts"];
        let r = Rejection::unknown_tool("transfer_fund", Names::Static(NAMES));
        assert_eq!(r.class(), Class::H1);
        assert_eq!(r.suggestions(), ["transfer_funds"]);
        assert!(r.to_string().contains("did you mean: transfer_funds"), "{r}");
        let far = Rejection::unknown_tool("wipe_disk", Names::Static(NAMES));
        assert!(far.suggestions().is_empty());
    }

    #[test]
    fn quoted_writes_what_debug_writes() {
        for s in ["", "plain_name", "say \"hi\"", "back\\slash", "tab\there", "né", "zero\u{200b}width", "~ !'", "\u{7f}", "\u{0}"] {
            assert_eq!(Quoted(s).to_string(), format!("{s:?}"));
        }
    }

    #[test]
    fn text_is_cut_at_a_character_count_not_a_byte_count() {
        assert_eq!(bounded("abc".into(), 3), "abc");
        assert_eq!(bounded("abcd".into(), 3), "abc…");
        assert_eq!(bounded("ééé".into(), 3), "ééé", "6 bytes, 3 characters: kept whole");
        assert_eq!(bounded("éééé".into(), 3), "ééé…");
        assert_eq!(bounded("".into(), 0), "");
        assert_eq!(bounded("a".into(), 0), "…");
        // A name compiled into the binary that fits stays borrowed.
        assert!(matches!(bounded(Cow::Borrowed("get_balance"), 64), Cow::Borrowed("get_balance")));
    }

    #[test]
    fn clips_huge_keys() {
        let key = "k".repeat(10_000);
        let r = Rejection::undeclared_key(&Path::root(), &key, Names::Static(&[]));
        assert!(r.to_string().len() < 200);
    }
}
