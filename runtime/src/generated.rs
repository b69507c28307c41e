//! Support for the code toolseal-build generates; not a public API.
//!
//! A generated value type is a table here (a [`StringType`], a [`NumberType`], a
//! [`StringEnum`], ...), kept in a `static` beside the type; one interpreter per
//! kind checks a value against its table and writes the table's JSON Schema
//! keywords. Generated code therefore holds data, not function bodies, and a
//! change to how a keyword is checked is made here once, for every type.
//!
//! Everything else generated code calls is here too: a closed object's key table
//! and member loops ([`ObjectKeys`], [`convert_members`], [`read_members`]), field and union helpers, the tool-name
//! lookup ([`NameTable`]), lazily compiled patterns ([`LazyPattern`]), element conversion,
//! the strict `Deserialize` and `TryFrom` ([`deserialize_via`],
//! [`try_from_serialize`]) and a generated deployment's [`catalog`] and [`route_of`].

use std::borrow::Cow;
use std::marker::PhantomData;
use std::sync::OnceLock;

use serde::de::{Deserialize, Deserializer, Error as _};
use serde_json::{Map, Value};

use crate::call::{EMPTY_ARGUMENTS, ToolInfo};
use crate::check::{self, Cx, Format, NumberBounds};
use crate::json::{Json, JsonKind, Reader};
use crate::mcp;
use crate::name_hash::NameHash;
use crate::names::NameIndex;
use crate::path::Path;
use crate::pattern::{Pattern, PatternError};
use crate::rejection::{Class, Keyword, Names, Reason, Rejection};
use crate::schema::spec::LazySpec;
use crate::typed::{FromJson, convert_elements, read_elements, read_number};

/// The table of a generated value type: how a JSON value becomes the type's
/// inner value, and the JSON Schema keywords the type shows.
pub trait ValueRule: Sync {
    /// What a value converts to (the inner value of the generated newtype).
    type Value;

    /// Checks `v`, found at `at`, and converts it.
    fn check(&self, v: &Json<'_>, at: &Path<'_>, cx: &mut Cx) -> Result<Self::Value, Rejection>;

    /// Reads a value straight from `r` in strict mode: `Some` exactly when
    /// [`ValueRule::check`] accepts it (see [`FromJson::read`]). The default
    /// parses the value as a tree and checks it (one copy per table type, not
    /// inlined into every generated type that holds one).
    #[inline(never)]
    fn read(&self, r: &mut Reader<'_>) -> Option<Self::Value> {
        let v = r.value()?;
        self.check(&v, &Path::root(), &mut Cx::strict()).ok()
    }

    /// The type's JSON Schema keywords (without subschemas of other generated types).
    fn keywords(&self) -> Map<String, Value>;
}

/// The paragraphs the generator adds to an item's docs after its description.
const FACTS: [&str; 2] = ["Constraints:", "Default:"];

/// The description `#[derive(toolseal::Args)]` reads from an item's `#[doc]`
/// strings (`/// text` is the string `" text"`): the strings, each without one
/// leading space, joined by newlines, up to the first paragraph that begins
/// `Constraints:` or `Default:` (the facts the generator adds); `None` if that
/// leaves nothing. The generator checks each item's docs with this same function
/// and names the description in an attribute where they would not give it exactly.
pub fn description_from_docs<'a>(docs: impl IntoIterator<Item = &'a str>) -> Option<String> {
    let text = docs.into_iter().map(|d| d.strip_prefix(' ').unwrap_or(d)).collect::<Vec<_>>().join("\n");
    let mut end = text.len();
    let mut at = 0;
    while let Some(i) = text[at..].find("\n\n") {
        let paragraph = at + i + 2;
        if FACTS.iter().any(|f| text[paragraph..].starts_with(f)) {
            end = at + i;
            break;
        }
        at = paragraph;
    }
    if FACTS.iter().any(|f| text.starts_with(f)) {
        end = 0;
    }
    Some(text[..end].to_owned()).filter(|d| !d.is_empty())
}

fn describe(s: &mut Map<String, Value>, description: Option<&'static str>) {
    if let Some(d) = description {
        s.insert("description".into(), d.into());
    }
}

fn count(s: &mut Map<String, Value>, keyword: &str, n: Option<u64>) {
    if let Some(n) = n {
        s.insert(keyword.into(), n.into());
    }
}

/// A JSON number, written as an integer when it is one.
pub fn number_value(x: f64) -> Value {
    if x.fract() == 0.0 && x.abs() < 9.0e15 { Value::from(x as i64) } else { Value::from(x) }
}

/// A `serde_json::Value` from JSON text the generator wrote. Text that does not
/// parse is a bug in toolseal-build, never read as `null`.
pub fn json_literal(text: &str) -> Value {
    serde_json::from_str(text).unwrap_or_else(|e| panic!("toolseal-build wrote a JSON literal that does not parse ({e}): {text:.200}"))
}

/// A JSON tree from JSON text the generator wrote. Text that does not parse
/// is a bug in toolseal-build, never read as `null`.
pub fn json_tree(text: &'static str) -> Json<'static> {
    Json::parse(text.as_bytes()).unwrap_or_else(|e| panic!("toolseal-build wrote a JSON literal that does not parse ({}): {text:.200}", e.message))
}

/// A string with length bounds, patterns and a format. Immutable (the patterns,
/// compiled on first use, live in their own `static`), so that a check inlined
/// into a generated type folds the table's constants away.
#[derive(Debug)]
pub struct StringType {
    min_length: Option<u64>,
    max_length: Option<u64>,
    patterns: &'static [LazyPattern],
    format: Option<Format>,
    description: Option<&'static str>,
}

impl StringType {
    /// Any string.
    pub const fn new() -> StringType {
        StringType { min_length: None, max_length: None, patterns: &[], format: None, description: None }
    }

    /// `minLength`.
    pub const fn min_length(mut self, n: u64) -> StringType {
        self.min_length = Some(n);
        self
    }

    /// `maxLength`.
    pub const fn max_length(mut self, n: u64) -> StringType {
        self.max_length = Some(n);
        self
    }

    /// `pattern`s, every one of which must match.
    pub const fn patterns(mut self, patterns: &'static [LazyPattern]) -> StringType {
        self.patterns = patterns;
        self
    }

    /// `format`.
    pub const fn format(mut self, f: Format) -> StringType {
        self.format = Some(f);
        self
    }

    /// `description`.
    pub const fn description(mut self, d: &'static str) -> StringType {
        self.description = Some(d);
        self
    }
}

impl StringType {
    /// Checks the string `s`, found at `at`, against every keyword of the table.
    #[inline]
    fn check_str(&self, s: &str, at: &Path<'_>) -> Result<(), Rejection> {
        if self.min_length.is_some() || self.max_length.is_some() {
            check::length(s, at, self.min_length, self.max_length)?;
        }
        for p in self.patterns {
            p.check(s, at)?;
        }
        if let Some(f) = self.format {
            check::format(s, at, f)?;
        }
        Ok(())
    }
}

impl Default for StringType {
    fn default() -> StringType {
        StringType::new()
    }
}

impl ValueRule for StringType {
    type Value = String;

    #[inline]
    fn check(&self, v: &Json<'_>, at: &Path<'_>, _: &mut Cx) -> Result<String, Rejection> {
        let s = check::string(v, at)?;
        self.check_str(s, at)?;
        Ok(s.to_owned())
    }

    // Not inlined: one copy for every string type (the edit loop of a large
    // registry pays for each copy); a call per string costs next to nothing.
    fn read(&self, r: &mut Reader<'_>) -> Option<String> {
        let s = r.string()?;
        self.check_str(&s, &Path::root()).ok()?;
        Some(s.into_owned())
    }

    fn keywords(&self) -> Map<String, Value> {
        let mut s = Map::new();
        s.insert("type".into(), "string".into());
        count(&mut s, "minLength", self.min_length);
        count(&mut s, "maxLength", self.max_length);
        if let Some((first, more)) = self.patterns.split_first() {
            s.insert("pattern".into(), first.source().into());
            if !more.is_empty() {
                s.insert("allOf".into(), more.iter().map(|p| serde_json::json!({ "pattern": p.source() })).collect());
            }
        }
        if let Some(f) = self.format {
            s.insert("format".into(), f.name().into());
        }
        describe(&mut s, self.description);
        s
    }
}

/// A number (`f64`) or an integer (`i64`, `u64`) within bounds.
#[derive(Debug)]
pub struct NumberType<T> {
    bounds: NumberBounds,
    description: Option<&'static str>,
    repr: PhantomData<fn() -> T>,
}

impl<T> NumberType<T> {
    /// Any value of the type.
    pub const fn new() -> NumberType<T> {
        let bounds = NumberBounds { minimum: None, maximum: None, exclusive_minimum: None, exclusive_maximum: None, multiple_of: None };
        NumberType { bounds, description: None, repr: PhantomData }
    }

    /// `minimum`.
    pub const fn minimum(mut self, x: f64) -> NumberType<T> {
        self.bounds.minimum = Some(x);
        self
    }

    /// `maximum`.
    pub const fn maximum(mut self, x: f64) -> NumberType<T> {
        self.bounds.maximum = Some(x);
        self
    }

    /// `exclusiveMinimum`.
    pub const fn exclusive_minimum(mut self, x: f64) -> NumberType<T> {
        self.bounds.exclusive_minimum = Some(x);
        self
    }

    /// `exclusiveMaximum`.
    pub const fn exclusive_maximum(mut self, x: f64) -> NumberType<T> {
        self.bounds.exclusive_maximum = Some(x);
        self
    }

    /// `multipleOf`.
    pub const fn multiple_of(mut self, x: f64) -> NumberType<T> {
        self.bounds.multiple_of = Some(x);
        self
    }

    /// `description`.
    pub const fn description(mut self, d: &'static str) -> NumberType<T> {
        self.description = Some(d);
        self
    }

    fn number_keywords(&self, kind: &str) -> Map<String, Value> {
        let mut s = Map::new();
        s.insert("type".into(), kind.into());
        let b = &self.bounds;
        for (k, v) in [("minimum", b.minimum), ("maximum", b.maximum), ("exclusiveMinimum", b.exclusive_minimum), ("exclusiveMaximum", b.exclusive_maximum), ("multipleOf", b.multiple_of)] {
            if let Some(x) = v {
                s.insert(k.into(), number_value(x));
            }
        }
        describe(&mut s, self.description);
        s
    }
}

impl<T> Default for NumberType<T> {
    fn default() -> NumberType<T> {
        NumberType::new()
    }
}

/// `ValueRule` for `NumberType<$t>`: checked by `check::$check`, shown as JSON Schema `type` `$kind`.
macro_rules! number_rule {
    ($($t:ty => $check:ident, $kind:literal;)*) => {$(
        impl ValueRule for NumberType<$t> {
            type Value = $t;

            #[inline]
            fn check(&self, v: &Json<'_>, at: &Path<'_>, cx: &mut Cx) -> Result<$t, Rejection> {
                check::$check(v, at, cx, &self.bounds)
            }

            fn read(&self, r: &mut Reader<'_>) -> Option<$t> {
                read_number(r, |v, at, cx| self.check(v, at, cx))
            }

            fn keywords(&self) -> Map<String, Value> {
                self.number_keywords($kind)
            }
        }
    )*};
}

number_rule! {
    i64 => integer_i64, "integer";
    u64 => integer_u64, "integer";
    f64 => number_f64, "number";
}

/// An array of `T` with item counts and uniqueness (no `prefixItems`).
#[derive(Debug)]
pub struct ArrayType<T> {
    min_items: Option<u64>,
    max_items: Option<u64>,
    unique: bool,
    /// Whether the schema declares `items` (otherwise any element is allowed).
    typed: bool,
    description: Option<&'static str>,
    item: PhantomData<fn() -> T>,
}

impl<T> ArrayType<T> {
    /// Elements that each match `T`'s schema.
    pub const fn new() -> ArrayType<T> {
        ArrayType { min_items: None, max_items: None, unique: false, typed: true, description: None, item: PhantomData }
    }

    /// Elements of any value (the schema has no `items`).
    pub const fn untyped(mut self) -> ArrayType<T> {
        self.typed = false;
        self
    }

    /// `minItems`.
    pub const fn min_items(mut self, n: u64) -> ArrayType<T> {
        self.min_items = Some(n);
        self
    }

    /// `maxItems`.
    pub const fn max_items(mut self, n: u64) -> ArrayType<T> {
        self.max_items = Some(n);
        self
    }

    /// `uniqueItems: true`.
    pub const fn unique(mut self) -> ArrayType<T> {
        self.unique = true;
        self
    }

    /// `description`.
    pub const fn description(mut self, d: &'static str) -> ArrayType<T> {
        self.description = Some(d);
        self
    }

    /// Whether the schema shows `items` (the subschema of `T`).
    pub fn typed(&self) -> bool {
        self.typed
    }
}

impl<T> Default for ArrayType<T> {
    fn default() -> ArrayType<T> {
        ArrayType::new()
    }
}

impl<T: FromJson> ValueRule for ArrayType<T> {
    type Value = Vec<T>;

    fn check(&self, v: &Json<'_>, at: &Path<'_>, cx: &mut Cx) -> Result<Vec<T>, Rejection> {
        let items = check::array(v, at)?;
        check::items(items, at, self.min_items, self.max_items, self.unique)?;
        elements(items, at, cx)
    }

    fn read(&self, r: &mut Reader<'_>) -> Option<Vec<T>> {
        if self.unique {
            // Uniqueness compares the items as JSON: read them as a tree.
            let v = r.value()?;
            return self.check(&v, &Path::root(), &mut Cx::strict()).ok();
        }
        let items = read_elements(r)?;
        check::item_count(items.len(), &Path::root(), self.min_items, self.max_items).ok()?;
        Some(items)
    }

    fn keywords(&self) -> Map<String, Value> {
        let mut s = Map::new();
        s.insert("type".into(), "array".into());
        count(&mut s, "minItems", self.min_items);
        count(&mut s, "maxItems", self.max_items);
        if self.unique {
            s.insert("uniqueItems".into(), true.into());
        }
        describe(&mut s, self.description);
        s
    }
}

/// A string `enum` (or `const`): the generated Rust enum has one variant per
/// value, in this order.
#[derive(Debug)]
pub struct StringEnum {
    /// The values, in registry order.
    pub values: &'static [&'static str],
    /// [`Keyword::Enum`] or [`Keyword::Const`].
    pub keyword: Keyword,
    /// What a rejection says was expected.
    pub expected: &'static str,
    /// `description`.
    pub description: Option<&'static str>,
}

impl StringEnum {
    /// The index of `v` among the values.
    #[inline]
    pub fn index(&self, v: &Json<'_>, at: &Path<'_>) -> Result<usize, Rejection> {
        if let Json::String(s) = v
            && let Some(i) = self.position(s)
        {
            return Ok(i);
        }
        Err(Rejection::violation(at, self.keyword, self.expected, v.kind()))
    }

    /// The index of the value that is the reader's next, read in strict mode:
    /// `Some` exactly when [`StringEnum::index`] accepts it.
    pub fn read(&self, r: &mut Reader<'_>) -> Option<usize> {
        self.position(&r.string()?)
    }

    fn position(&self, s: &str) -> Option<usize> {
        self.values.iter().position(|x| *x == s)
    }

    /// The type's JSON Schema keywords.
    pub fn keywords(&self) -> Map<String, Value> {
        let mut s = Map::new();
        match self.keyword {
            Keyword::Const => s.insert("const".into(), self.values.first().copied().unwrap_or_default().into()),
            _ => s.insert("enum".into(), self.values.iter().map(|v| Value::from(*v)).collect()),
        };
        describe(&mut s, self.description);
        s
    }
}

/// An `enum` or `const` of values that are not all strings, kept as JSON.
#[derive(Debug)]
pub struct ValueSet {
    texts: &'static [&'static str],
    keyword: Keyword,
    expected: &'static str,
    description: Option<&'static str>,
    values: OnceLock<Vec<Json<'static>>>,
}

impl ValueSet {
    /// The values written as JSON `texts`; `keyword` is [`Keyword::Enum`] or [`Keyword::Const`]
    /// (one text); `expected` is what a rejection says.
    pub const fn new(keyword: Keyword, texts: &'static [&'static str], expected: &'static str) -> ValueSet {
        ValueSet { texts, keyword, expected, description: None, values: OnceLock::new() }
    }

    /// `description`.
    pub const fn description(mut self, d: &'static str) -> ValueSet {
        self.description = Some(d);
        self
    }
}

impl ValueRule for ValueSet {
    type Value = Value;

    fn check(&self, v: &Json<'_>, at: &Path<'_>, _: &mut Cx) -> Result<Value, Rejection> {
        let values = self.values.get_or_init(|| self.texts.iter().map(|t| json_tree(t)).collect());
        match self.keyword {
            Keyword::Const if values.first() != Some(v) => return Err(Rejection::violation(at, Keyword::Const, self.expected, v.kind())),
            Keyword::Const => {}
            _ => check::one_of_values(v, at, values, || Cow::Borrowed(self.expected))?,
        }
        Ok(v.to_value())
    }

    fn keywords(&self) -> Map<String, Value> {
        let mut s = Map::new();
        match self.keyword {
            Keyword::Const => s.insert("const".into(), self.texts.first().map_or(Value::Null, |t| json_literal(t))),
            _ => s.insert("enum".into(), self.texts.iter().map(|t| json_literal(t)).collect()),
        };
        describe(&mut s, self.description);
        s
    }
}

/// A subschema the specification validator checks (keywords the typed code does not model).
#[derive(Debug)]
pub struct SpecType {
    /// The validator of the tool's whole schema document.
    pub spec: &'static LazySpec,
    /// The subschema's JSON pointer in that document.
    pub pointer: &'static str,
    /// The subschema as written (with the document's definitions), as JSON text.
    pub schema: &'static str,
}

impl ValueRule for SpecType {
    type Value = Value;

    fn check(&self, v: &Json<'_>, at: &Path<'_>, cx: &mut Cx) -> Result<Value, Rejection> {
        self.spec.check(self.pointer, v, at, cx)?;
        Ok(v.to_value())
    }

    fn keywords(&self) -> Map<String, Value> {
        match json_literal(self.schema) {
            Value::Object(m) => m,
            _ => Map::new(),
        }
    }
}

/// A type no value converts to.
#[derive(Debug)]
pub enum Refusal {
    /// The schema admits no value (`false`, `not: {}`).
    Never,
    /// The tool is quarantined: its schema cannot be enforced, for the reason given.
    Quarantined {
        /// The tool's name.
        tool: &'static str,
        /// Why its schema cannot be enforced.
        problem: &'static str,
    },
}

impl ValueRule for Refusal {
    type Value = Value;

    fn check(&self, v: &Json<'_>, at: &Path<'_>, _: &mut Cx) -> Result<Value, Rejection> {
        Err(match self {
            Refusal::Never => Rejection::violation(at, Keyword::False, "no value (the schema here admits none)", v.kind()),
            Refusal::Quarantined { tool, problem } => Rejection::quarantined(tool, problem),
        })
    }

    fn keywords(&self) -> Map<String, Value> {
        let mut s = Map::new();
        s.insert("not".into(), Value::Object(Map::new()));
        s
    }
}

/// The declared properties of a generated object type.
#[derive(Debug)]
pub struct ObjectKeys {
    /// Property names, in declaration order.
    pub declared: &'static [&'static str],
    /// The index of a key in `declared` (a generated `match`, which compares
    /// against constant strings faster than a search through `declared` could).
    pub index: fn(&str) -> Option<usize>,
    /// Whether every declared key is [plain](crate::json::is_plain_key), so that the
    /// reader may compare the text with the key it expects next ([`plain_keys`]).
    pub plain: bool,
    /// Indices (into `declared`) of the required ones.
    pub required: &'static [usize],
    /// `minProperties`
    pub min_properties: Option<u64>,
    /// `maxProperties`
    pub max_properties: Option<u64>,
}

/// The members of the closed object at `at`, one slot per declared property:
/// a key not declared, a key twice or a required key missing is H2 (in that
/// order, keys in the order given), then the member count is checked (H3).
fn slots<'j, 'a, const N: usize>(v: &'j Json<'a>, at: &Path<'_>, keys: &ObjectKeys) -> Result<[Option<&'j Json<'a>>; N], Rejection> {
    let mut slots = [None; N];
    fill_slots(check::object(v, at)?, at, keys, &mut slots)?;
    Ok(slots)
}

fn fill_slots<'j, 'a>(members: &'j [(Cow<'a, str>, Json<'a>)], at: &Path<'_>, keys: &ObjectKeys, slots: &mut [Option<&'j Json<'a>>]) -> Result<(), Rejection> {
    for (k, x) in members {
        let Some(i) = (keys.index)(k) else {
            return Err(Rejection::undeclared_key(at, k, Names::Static(keys.declared)));
        };
        if slots[i].replace(x).is_some() {
            return Err(Rejection::duplicate_key(at, k));
        }
    }
    if let Some(&i) = keys.required.iter().find(|&&i| slots[i].is_none()) {
        return Err(Rejection::missing_key(at, keys.declared[i], Names::Static(keys.declared)));
    }
    check::property_count(members.len(), at, keys.min_properties, keys.max_properties)
}

/// What [`convert_members`] calls for each member given: converts the value of
/// the declared key `i` (at its path) into its field.
pub type FieldConversion<'f> = dyn FnMut(usize, &Json<'_>, &Path<'_>, &mut Cx) -> Result<(), Rejection> + 'f;

/// Converts the members of the closed object `v` at `at` into a generated
/// type's fields. The keys are checked first: a key not declared, a key twice
/// or a required key missing is H2 (in that order, keys in the order given),
/// then the member count. Then `field(i, value, at, cx)` converts the value of
/// each declared key `i` given, in declaration order, into its field (`at` the
/// member's path). An H2 from a field is the object's at once; otherwise the
/// first field's rejection is, once every field was tried. When this is `Ok`,
/// every required field has its value.
pub fn convert_members<const N: usize>(v: &Json<'_>, at: &Path<'_>, cx: &mut Cx, keys: &ObjectKeys, field: &mut FieldConversion<'_>) -> Result<(), Rejection> {
    let slots = slots::<N>(v, at, keys)?;
    let mut first = None;
    for (i, slot) in slots.iter().enumerate() {
        if let Some(x) = slot {
            keep(field(i, x, &at.key(keys.declared[i]), cx), &mut first)?;
        }
    }
    first.map_or(Ok(()), Err)
}

/// What a generated object's reader made of one member's value.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Member {
    /// Read and stored.
    Read,
    /// Its key was given before: not read.
    Twice,
    /// Not accepted by the field's type.
    Failed,
}

/// Whether every key of `keys` is [plain](crate::json::is_plain_key) (for [`ObjectKeys::plain`]).
pub const fn plain_keys(keys: &[&str]) -> bool {
    let mut i = 0;
    while i < keys.len() {
        if !crate::json::is_plain_key(keys[i]) {
            return false;
        }
        i += 1;
    }
    true
}

/// Reads the members of the closed object that is the reader's next value:
/// `field(i, r)` reads the value of the `i`-th declared key into its field
/// (the generated `match` on the index is the type's own, so each member costs
/// one indirect call). The key expected next (the one declared after the last
/// one read) is compared with the text first; any other key is read and
/// looked up. A key not declared or given twice stops the reading there
/// (recorded on the reader); the member count is checked at the end. `Some`
/// with the count when every member was read.
pub fn read_members(r: &mut Reader<'_>, keys: &ObjectKeys, field: &mut dyn FnMut(usize, &mut Reader<'_>) -> Member) -> Option<usize> {
    let mut count = 0;
    // The declared key expected next: models write the keys in the schema's order.
    let mut next = 0;
    if r.object()? {
        loop {
            let (i, key) = match keys.declared.get(next) {
                Some(expected) if keys.plain && r.key_is(expected) => (next, Cow::Borrowed(*expected)),
                _ => {
                    let key = r.key()?;
                    match (keys.index)(&key) {
                        Some(i) => (i, key),
                        None => return r.stop_at_key(key, keys.declared, false),
                    }
                }
            };
            match field(i, r) {
                Member::Read => {}
                Member::Twice => return r.stop_at_key(key, keys.declared, true),
                Member::Failed => return None,
            }
            count += 1;
            next = i + 1;
            if !r.more_members()? {
                break;
            }
        }
    }
    if keys.min_properties.is_some() || keys.max_properties.is_some() {
        check::property_count(count, &Path::root(), keys.min_properties, keys.max_properties).ok()?;
    }
    Some(count)
}

/// A union's options, each trying its own type and wrapping it in its variant.
pub type UnionOption<T> = fn(&Json<'_>, &Path<'_>, &mut Cx) -> Result<T, Rejection>;

/// `anyOf` (the first option that accepts `v`) or `oneOf` (exactly one option
/// accepts `v`; keyword [`Keyword::OneOf`]), with `expected` for the rejection.
pub fn union<T>(v: &Json<'_>, at: &Path<'_>, cx: &mut Cx, keyword: Keyword, expected: &'static str, options: &[UnionOption<T>]) -> Result<T, Rejection> {
    let mut errors = Vec::new();
    let mut found: Option<(T, Cx)> = None;
    for option in options {
        let mut trial = cx.child();
        match option(v, at, &mut trial) {
            Ok(_) if found.is_some() => return Err(check::one_of_ambiguous(at, v, Cow::Owned(format!("exactly {expected}")))),
            Ok(x) if keyword != Keyword::OneOf => {
                cx.absorb(trial);
                return Ok(x);
            }
            Ok(x) => found = Some((x, trial)),
            Err(e) => errors.push(e),
        }
    }
    match found {
        Some((x, trial)) => {
            cx.absorb(trial);
            Ok(x)
        }
        None => Err(check::union_error(at, v, keyword, Cow::Borrowed(expected), errors)),
    }
}

/// The first H3 of an object's fields, kept while the others are converted: an H2
/// anywhere wins (returned at once), otherwise the first H3 is reported.
fn keep<T>(result: Result<T, Rejection>, first: &mut Option<Rejection>) -> Result<Option<T>, Rejection> {
    match result {
        Ok(x) => Ok(Some(x)),
        Err(e) if e.class() == Class::H2 => Err(e),
        Err(e) => {
            first.get_or_insert(e);
            Ok(None)
        }
    }
}

/// How an object's field converts its value (`FromJson::from_json`, or a field's own table).
pub trait Convert<T>: FnOnce(&Json<'_>, &Path<'_>, &mut Cx) -> Result<T, Rejection> {}

impl<T, F: FnOnce(&Json<'_>, &Path<'_>, &mut Cx) -> Result<T, Rejection>> Convert<T> for F {}

/// A required property (its presence is checked before), converted by `convert`:
/// `Some` value, `None` after keeping its H3 in `first`, or its H2.
pub fn required<T>(slot: Option<&Json<'_>>, at: &Path<'_>, key: &str, cx: &mut Cx, first: &mut Option<Rejection>, convert: impl Convert<T>) -> Result<Option<T>, Rejection> {
    keep(convert(slot.unwrap_or(&EMPTY_ARGUMENTS), &at.key(key), cx), first)
}

/// An optional property without a default, as [`required`].
pub fn optional<T>(slot: Option<&Json<'_>>, at: &Path<'_>, key: &str, cx: &mut Cx, first: &mut Option<Rejection>, convert: impl Convert<T>) -> Result<Option<Option<T>>, Rejection> {
    match slot {
        Some(x) => keep(convert(x, &at.key(key), cx).map(Some), first),
        None => Ok(Some(None)),
    }
}

/// An optional property with a default, applied when it is absent, as [`required`].
pub fn defaulted<T>(
    slot: Option<&Json<'_>>,
    at: &Path<'_>,
    key: &str,
    cx: &mut Cx,
    first: &mut Option<Rejection>,
    convert: impl Convert<T>,
    default: impl FnOnce() -> T,
) -> Result<Option<T>, Rejection> {
    match slot {
        Some(x) => keep(convert(x, &at.key(key), cx), first),
        None => Ok(Some(default())),
    }
}

/// The rejection a generated object keeps after converting every field: the first
/// H3 (a field that failed always left one; the fallback only keeps the type total).
pub fn first_rejection(first: Option<Rejection>, at: &Path<'_>, v: &Json<'_>) -> Rejection {
    first.unwrap_or_else(|| Rejection::violation(at, Keyword::Type, "object", v.kind()))
}

/// A property's default, parsed from the registry's JSON once (a default the
/// generator cannot write as a Rust expression).
pub fn default_value<T: FromJson + Clone>(cell: &OnceLock<T>, text: &'static str) -> T {
    cell.get_or_init(|| {
        let tree = json_tree(text);
        T::from_json(&tree, &Path::root(), &mut Cx::strict()).unwrap_or_else(|e| panic!("toolseal-build checked this default against its schema, yet: {e}"))
    })
    .clone()
}

/// A `pattern` compiled on first use: `const`-constructible, so that generated
/// code keeps one in a `static` without a closure of its own.
#[derive(Debug)]
pub struct LazyPattern {
    source: &'static str,
    compiled: OnceLock<Result<Pattern, PatternError>>,
}

impl LazyPattern {
    /// The pattern `source`, not compiled yet.
    pub const fn new(source: &'static str) -> LazyPattern {
        LazyPattern { source, compiled: OnceLock::new() }
    }

    /// The pattern as written.
    pub fn source(&self) -> &'static str {
        self.source
    }

    /// The compiled pattern (compiled on the first call), or why it does not compile.
    pub fn get(&self) -> &Result<Pattern, PatternError> {
        self.compiled.get_or_init(|| Pattern::new(self.source))
    }

    /// Checks `s`, found at `at`; a pattern that does not compile rejects every
    /// value (fail closed: the build has already refused such a pattern).
    pub fn check(&self, s: &str, at: &Path<'_>) -> Result<(), Rejection> {
        match self.get() {
            Ok(p) => check::pattern(s, at, &p.regex, self.source),
            Err(_) => Err(Rejection::violation(at, Keyword::Pattern, check::pattern_expected(self.source), JsonKind::String)),
        }
    }
}

/// A generated `ToolCall`'s tool names, sorted, with a hash index built on
/// first use: the exact lookup of a call's name (case-sensitive, no normalisation);
/// and the index of the closest names an unknown name is told of, built on the
/// first unknown name.
#[derive(Debug)]
pub struct NameTable {
    names: &'static [&'static str],
    index: OnceLock<NameHash>,
    closest: NameIndex,
}

impl NameTable {
    /// The table of the sorted `names` (`ToolSet::NAMES`).
    pub const fn new(names: &'static [&'static str]) -> NameTable {
        NameTable { names, index: OnceLock::new(), closest: NameIndex::compiled(names) }
    }

    /// The names, for a rejection: an unknown name's closest names are searched
    /// through this table's index.
    pub fn names(&'static self) -> Names {
        Names::Compiled(&self.closest)
    }

    /// The position of `name` among the names, if it is one of them.
    #[inline]
    pub fn get(&self, name: &str) -> Option<usize> {
        self.index.get_or_init(|| NameHash::new(self.names.iter().copied())).get(name, |i| self.names[i])
    }
}

/// Converts every element of an array found at `at`.
pub fn elements<T: FromJson>(items: &[Json<'_>], at: &Path<'_>, cx: &mut Cx) -> Result<Vec<T>, Rejection> {
    convert_elements(items, 0, at, cx)
}

/// Converts the elements of an array from index `start` on (after a tuple prefix).
pub fn elements_from<T: FromJson>(items: &[Json<'_>], start: usize, at: &Path<'_>, cx: &mut Cx) -> Result<Vec<T>, Rejection> {
    convert_elements(items, start, at, cx)
}

/// A strict `Deserialize` for any [`FromJson`] type: the input is read as a tree
/// and resolved exactly as a call's arguments are; a rejection becomes the error text.
pub fn deserialize_via<'de, T: FromJson, D: Deserializer<'de>>(deserializer: D) -> Result<T, D::Error> {
    let tree = Json::deserialize(deserializer)?;
    T::from_json(&tree, &Path::root(), &mut Cx::strict()).map_err(D::Error::custom)
}

/// `TryFrom` for generated newtypes: the inner value is checked against the
/// schema exactly as it would be in a call. A value that cannot be written as
/// JSON is a `Malformed` rejection (never checked as `null`).
pub fn try_from_serialize<T: FromJson, S: serde::Serialize>(inner: &S) -> Result<T, Rejection> {
    let value = serde_json::to_value(inner).map_err(|e| {
        let message = Cow::Owned(format!("the value cannot be written as JSON, so it cannot be checked against its schema: {e}"));
        Rejection::malformed(Reason::WireShape { message }, &Path::root())
    })?;
    T::from_json(&Json::from_value(&value), &Path::root(), &mut Cx::strict())
}

/// The catalog of a generated deployment, from its servers' compiled tool
/// tables; toolseal-build has validated the same data already.
pub fn catalog(servers: &[(&str, usize, &str, &[ToolInfo])], pins: &[(&str, &str)], policy: mcp::Policy) -> mcp::Catalog {
    let specs = servers
        .iter()
        .map(|(name, tier, tier_name, tools)| mcp::ServerSpec {
            name: (*name).to_owned(),
            tier: *tier,
            tier_name: (*tier_name).to_owned(),
            tools: tools.iter().map(|t| mcp::ToolSpec { name: t.name.to_owned(), digest: t.digest.to_owned() }).collect(),
        })
        .collect();
    let pins: Vec<(String, String)> = pins.iter().map(|(t, s)| ((*t).to_owned(), (*s).to_owned())).collect();
    mcp::Catalog::new(specs, &pins, policy).expect("toolseal-build validated this deployment")
}

/// The route of a generated call (its variant fixes the server, its tool is in that server's table).
pub fn route_of(catalog: &mcp::Catalog, server: usize, tool: &str) -> mcp::Route {
    catalog.route_to(server, tool).expect("a generated call names a tool of its server")
}

#[cfg(test)]
mod tests {
    use super::description_from_docs;

    #[test]
    fn the_description_is_the_docs_before_the_generated_facts() {
        let d = |docs: &[&str]| description_from_docs(docs.iter().copied());
        assert_eq!(d(&[" Amount.", "", " Constraints: `0 < value`."]).as_deref(), Some("Amount."));
        assert_eq!(d(&[" Two", " lines.", "", " More.", "", " Default: `1`."]).as_deref(), Some("Two\nlines.\n\nMore."));
        assert_eq!(d(&[" Constraints: at most 140 characters."]), None);
        assert_eq!(d(&["no space", "  two spaces"]).as_deref(), Some("no space\n two spaces"));
        assert_eq!(d(&[" Constraints are listed below.", "", " Constraints: one."]).as_deref(), Some("Constraints are listed below."), "only a paragraph's start counts");
        assert_eq!(d(&[]), None);
    }
}
