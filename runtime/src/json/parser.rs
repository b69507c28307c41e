//! The parser behind [`Json::parse`]: one pass over UTF-8 text straight into
//! the tree, strings borrowed unless they hold escapes.
//!
//! It accepts exactly what `serde_json` accepts (RFC 8259; nesting up to 127
//! levels; numbers whose magnitude fits an `f64`; no lone surrogates in `\u`
//! escapes) and builds the tree `serde_json` would, number kinds included, with
//! floats correctly rounded (as `serde_json` rounds them with its
//! `float_roundtrip` feature). `tests/json_parser.rs` compares the two on
//! generated and mutated texts, the `json` fuzz target on arbitrary bytes.
//! Going without serde's visitor machinery makes it the cheaper half of
//! resolving a call.

use std::borrow::Cow;

use super::{Json, Number, ParseError};

/// Nesting deeper than this is an error (`serde_json`'s limit: 128 levels are too many).
const MAX_DEPTH: usize = 127;

/// The bytes that end a run of plain string contents: `"`, `\` and control characters.
static SPECIAL: [bool; 256] = {
    let mut table = [false; 256];
    let mut b = 0;
    while b < 0x20 {
        table[b] = true;
        b += 1;
    }
    table[b'"' as usize] = true;
    table[b'\\' as usize] = true;
    table
};

/// Whether JSON writes `key` as it is between its quotes (no quote, backslash
/// or control character to escape), so that [`Reader::key_is`] may compare
/// the text with it.
pub const fn is_plain_key(key: &str) -> bool {
    let bytes = key.as_bytes();
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i] < 0x20 || bytes[i] == b'"' || bytes[i] == b'\\' {
            return false;
        }
        i += 1;
    }
    true
}

/// Parses `text` as one JSON value with nothing but whitespace after it.
pub(super) fn parse(text: &str) -> Result<Json<'_>, ParseError> {
    let mut p = Parser { text, bytes: text.as_bytes(), pos: 0, depth: 0, members: Vec::with_capacity(16), items: Vec::new() };
    let value = p.value::<true>().map_err(|e| p.error(e))?;
    p.skip_whitespace();
    if p.pos < p.bytes.len() {
        return Err(p.error("trailing characters"));
    }
    Ok(value)
}

/// Why bytes that are not UTF-8 cannot be parsed, with where.
pub(super) fn not_utf8(bytes: &[u8], e: std::str::Utf8Error) -> ParseError {
    located(bytes, e.valid_up_to(), "invalid UTF-8")
}

/// `what` at the line and column (1-based, in bytes) of byte `pos`.
fn located(bytes: &[u8], pos: usize, what: &str) -> ParseError {
    let before = &bytes[..pos.min(bytes.len())];
    let line = before.iter().filter(|b| **b == b'\n').count() + 1;
    let column = before.len() - before.iter().rposition(|b| *b == b'\n').map_or(0, |i| i + 1) + 1;
    ParseError { message: format!("{what} at line {line} column {column}") }
}

struct Parser<'a> {
    text: &'a str,
    bytes: &'a [u8],
    pos: usize,
    depth: usize,
    /// Members of the objects being read, innermost last: each object's are
    /// moved out into a vector of exactly their number when it closes (no
    /// growing, no spare capacity left in the tree).
    members: Vec<(Cow<'a, str>, Json<'a>)>,
    /// The same for the items of arrays.
    items: Vec<Json<'a>>,
}

/// A parse failure: what went wrong (the position is the parser's).
type Fail = &'static str;

impl<'a> Parser<'a> {
    fn error(&self, what: Fail) -> ParseError {
        located(self.bytes, self.pos, what)
    }

    fn peek(&self) -> Option<u8> {
        self.bytes.get(self.pos).copied()
    }

    #[inline]
    fn skip_whitespace(&mut self) {
        // Counted in a local: the position is stored once, not at every byte.
        let mut pos = self.pos;
        while let Some(b' ' | b'\n' | b'\r' | b'\t') = self.bytes.get(pos) {
            pos += 1;
        }
        self.pos = pos;
    }

    /// The next value: as a tree when `KEEP`, else only checked (the same
    /// errors, nothing built: `Json::Null` stands for it).
    fn value<const KEEP: bool>(&mut self) -> Result<Json<'a>, Fail> {
        self.skip_whitespace();
        match self.peek() {
            None => Err("EOF while parsing a value"),
            Some(b'{') => self.nested(Parser::object::<KEEP>),
            Some(b'[') => self.nested(Parser::array::<KEEP>),
            Some(b'"') => {
                self.pos += 1;
                let s = self.string()?;
                Ok(if KEEP { Json::String(s) } else { Json::Null })
            }
            Some(b't') => self.literal("true", Json::Bool(true)),
            Some(b'f') => self.literal("false", Json::Bool(false)),
            Some(b'n') => self.literal("null", Json::Null),
            Some(b'-' | b'0'..=b'9') => self.number().map(Json::Number),
            Some(_) => Err("expected value"),
        }
    }

    /// Runs `inner` one level deeper (past the opening bracket), within the depth limit.
    fn nested(&mut self, inner: fn(&mut Parser<'a>) -> Result<Json<'a>, Fail>) -> Result<Json<'a>, Fail> {
        if self.depth == MAX_DEPTH {
            return Err("recursion limit exceeded");
        }
        self.depth += 1;
        self.pos += 1;
        let value = inner(self)?;
        self.depth -= 1;
        Ok(value)
    }

    fn literal(&mut self, word: &'static str, value: Json<'a>) -> Result<Json<'a>, Fail> {
        for expected in word.bytes() {
            match self.peek() {
                Some(b) if b == expected => self.pos += 1,
                None => return Err("EOF while parsing a value"),
                Some(_) => return Err("expected ident"),
            }
        }
        Ok(value)
    }

    fn object<const KEEP: bool>(&mut self) -> Result<Json<'a>, Fail> {
        let start = self.members.len();
        self.skip_whitespace();
        if self.peek() == Some(b'}') {
            self.pos += 1;
            return Ok(Json::Object(Vec::new()));
        }
        loop {
            self.skip_whitespace();
            match self.peek() {
                Some(b'"') => self.pos += 1,
                None => return Err("EOF while parsing an object"),
                Some(_) => return Err("key must be a string"),
            }
            let key = self.string()?;
            self.skip_whitespace();
            match self.peek() {
                Some(b':') => self.pos += 1,
                None => return Err("EOF while parsing an object"),
                Some(_) => return Err("expected `:`"),
            }
            let value = self.value::<KEEP>()?;
            if KEEP {
                self.members.push((key, value));
            }
            self.skip_whitespace();
            match self.peek() {
                Some(b',') => self.pos += 1,
                Some(b'}') => {
                    self.pos += 1;
                    return Ok(if KEEP { Json::Object(self.members.drain(start..).collect()) } else { Json::Null });
                }
                None => return Err("EOF while parsing an object"),
                Some(_) => return Err("expected `,` or `}`"),
            }
        }
    }

    fn array<const KEEP: bool>(&mut self) -> Result<Json<'a>, Fail> {
        let start = self.items.len();
        self.skip_whitespace();
        if self.peek() == Some(b']') {
            self.pos += 1;
            return Ok(Json::Array(Vec::new()));
        }
        loop {
            let item = self.value::<KEEP>()?;
            if KEEP {
                self.items.push(item);
            }
            self.skip_whitespace();
            match self.peek() {
                Some(b',') => self.pos += 1,
                Some(b']') => {
                    self.pos += 1;
                    return Ok(if KEEP { Json::Array(self.items.drain(start..).collect()) } else { Json::Null });
                }
                None => return Err("EOF while parsing a list"),
                Some(_) => return Err("expected `,` or `]`"),
            }
        }
    }

    /// Moves to the next `"`, `\` or control character at or after the position.
    #[inline(always)]
    fn skip_plain(&mut self) {
        // Eight bytes at a time: a byte is special when it is below 0x20, or `"`, or `\`.
        const ONES: u64 = 0x0101_0101_0101_0101;
        const HIGH: u64 = 0x8080_8080_8080_8080;
        let has_zero = |x: u64| x.wrapping_sub(ONES) & !x & HIGH;
        let mut pos = self.pos;
        while let Some(chunk) = self.bytes.get(pos..pos + 8) {
            let x = u64::from_le_bytes([chunk[0], chunk[1], chunk[2], chunk[3], chunk[4], chunk[5], chunk[6], chunk[7]]);
            let special = (x.wrapping_sub(ONES * 0x20) & !x & HIGH) | has_zero(x ^ (ONES * u64::from(b'"'))) | has_zero(x ^ (ONES * u64::from(b'\\')));
            if special != 0 {
                self.pos = pos + (special.trailing_zeros() / 8) as usize;
                return;
            }
            pos += 8;
        }
        while let Some(b) = self.bytes.get(pos) {
            if SPECIAL[usize::from(*b)] {
                break;
            }
            pos += 1;
        }
        self.pos = pos;
    }

    /// A string's contents, the opening quote already consumed. Always inlined
    /// (and so is [`Parser::skip_plain`]): most strings of a call are short and
    /// plain, done in fewer instructions than a call out of line costs; with the
    /// reader's small steps inlined too, an accepted call took 7-9 % less time.
    #[inline(always)]
    fn string(&mut self) -> Result<Cow<'a, str>, Fail> {
        let start = self.pos;
        self.skip_plain();
        if self.peek() == Some(b'"') {
            let s = &self.text[start..self.pos];
            self.pos += 1;
            return Ok(Cow::Borrowed(s));
        }
        self.string_rest(start)
    }

    /// The rest of a string that holds an escape, or is not closed (not inlined).
    #[inline(never)]
    fn string_rest(&mut self, start: usize) -> Result<Cow<'a, str>, Fail> {
        match self.peek() {
            Some(b'\\') => {}
            Some(_) => return Err("control character (\\u0000-\\u001F) found while parsing a string"),
            None => return Err("EOF while parsing a string"),
        }
        let mut out = String::from(&self.text[start..self.pos]);
        loop {
            match self.peek() {
                Some(b'"') => {
                    self.pos += 1;
                    return Ok(Cow::Owned(out));
                }
                Some(b'\\') => {
                    self.pos += 1;
                    self.escape(&mut out)?;
                }
                Some(_) => return Err("control character (\\u0000-\\u001F) found while parsing a string"),
                None => return Err("EOF while parsing a string"),
            }
            let run = self.pos;
            self.skip_plain();
            out.push_str(&self.text[run..self.pos]);
        }
    }

    /// One escape, the backslash already consumed.
    fn escape(&mut self, out: &mut String) -> Result<(), Fail> {
        let Some(b) = self.peek() else { return Err("EOF while parsing a string") };
        self.pos += 1;
        let c = match b {
            b'"' => '"',
            b'\\' => '\\',
            b'/' => '/',
            b'b' => '\u{8}',
            b'f' => '\u{c}',
            b'n' => '\n',
            b'r' => '\r',
            b't' => '\t',
            b'u' => self.unicode_escape()?,
            _ => return Err("invalid escape"),
        };
        out.push(c);
        Ok(())
    }

    /// The character of a `\uXXXX` escape (and of its low surrogate, when it is a high one).
    fn unicode_escape(&mut self) -> Result<char, Fail> {
        let high = self.hex4()?;
        let code = match high {
            0xDC00..=0xDFFF => return Err("lone leading surrogate in hex escape"),
            0xD800..=0xDBFF => {
                if self.bytes.get(self.pos..self.pos + 2) != Some(b"\\u") {
                    return Err(if self.pos + 2 > self.bytes.len() { "EOF while parsing a string" } else { "unexpected end of hex escape" });
                }
                self.pos += 2;
                let low = self.hex4()?;
                if !(0xDC00..=0xDFFF).contains(&low) {
                    return Err("lone leading surrogate in hex escape");
                }
                0x10000 + ((high - 0xD800) << 10) + (low - 0xDC00)
            }
            _ => high,
        };
        char::from_u32(code).ok_or("invalid unicode code point")
    }

    fn hex4(&mut self) -> Result<u32, Fail> {
        let mut code = 0;
        for _ in 0..4 {
            let Some(b) = self.peek() else { return Err("EOF while parsing a string") };
            let digit = (b as char).to_digit(16).ok_or("invalid escape")?;
            code = code * 16 + digit;
            self.pos += 1;
        }
        Ok(code)
    }

    /// A run of digits: how many, with `m` folded over them (`m * 10 + digit`,
    /// wrapping: exact while there are at most 19 digits in all).
    fn digits(&mut self, m: &mut u64) -> usize {
        let start = self.pos;
        while let Some(c @ b'0'..=b'9') = self.peek() {
            *m = m.wrapping_mul(10).wrapping_add(u64::from(c - b'0'));
            self.pos += 1;
        }
        self.pos - start
    }

    fn number(&mut self) -> Result<Number, Fail> {
        let start = self.pos;
        let negative = self.peek() == Some(b'-');
        self.pos += usize::from(negative);
        // The significand's digits as an integer, exact while there are at most 19 of them.
        let mut m = 0u64;
        let mut digits = match self.peek() {
            Some(b'0') => {
                self.pos += 1;
                1
            }
            Some(b'1'..=b'9') => self.digits(&mut m),
            None => return Err("EOF while parsing a value"),
            Some(_) => return Err("invalid number"),
        };
        let mut integer = true;
        // The power of ten the significand is scaled by (capped far beyond any finite double).
        let mut scale = 0i64;
        if self.peek() == Some(b'.') {
            self.pos += 1;
            let fraction = self.digits(&mut m);
            if fraction == 0 {
                return Err(if self.peek().is_none() { "EOF while parsing a value" } else { "invalid number" });
            }
            digits += fraction;
            scale = -(fraction as i64);
            integer = false;
        }
        if let Some(b'e' | b'E') = self.peek() {
            self.pos += 1;
            let minus = self.peek() == Some(b'-');
            if let Some(b'+' | b'-') = self.peek() {
                self.pos += 1;
            }
            let at = self.pos;
            while let Some(b'0'..=b'9') = self.peek() {
                self.pos += 1;
            }
            if self.pos == at {
                return Err(if self.peek().is_none() { "EOF while parsing a value" } else { "invalid number" });
            }
            let e = self.text[at..self.pos].parse::<i64>().unwrap_or(i64::MAX).min(100_000);
            scale = scale.saturating_add(if minus { -e } else { e });
            integer = false;
        }
        if digits <= 19
            && let Some(n) = exact_number(negative, m, integer, scale)
        {
            return Ok(n);
        }
        let literal = &self.text[start..self.pos];
        if integer {
            // As serde_json reads integers: `u64`, negative `i64` (`-0` is the float -0.0), else a float.
            if !negative {
                if let Ok(u) = literal.parse::<u64>() {
                    return Ok(Number::PosInt(u));
                }
            } else if let Ok(i) = literal.parse::<i64>()
                && i != 0
            {
                return Ok(Number::NegInt(i));
            }
        }
        match literal.parse::<f64>() {
            Ok(f) if f.is_finite() => Ok(Number::Float(f)),
            _ => Err("number out of range"),
        }
    }
}

/// Powers of ten a double holds exactly.
const EXACT_POWERS: [f64; 23] = [1e0, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10, 1e11, 1e12, 1e13, 1e14, 1e15, 1e16, 1e17, 1e18, 1e19, 1e20, 1e21, 1e22];

/// The number `m × 10^scale` (negated when `negative`), as the full parse reads
/// it, when that takes no rounding beyond one correctly rounded operation:
/// an integer literal that fits its kind, or a float whose significand a double
/// holds exactly scaled by a power of ten it holds exactly (Clinger's fast
/// path). `None` sends the literal to the full parse.
fn exact_number(negative: bool, m: u64, integer: bool, scale: i64) -> Option<Number> {
    if integer {
        return match (negative, i64::try_from(m)) {
            (false, _) => Some(Number::PosInt(m)),
            // `-0` is the float -0.0, as `serde_json` reads it.
            (true, Ok(i)) if i != 0 => Some(Number::NegInt(-i)),
            _ => None,
        };
    }
    if m > 1 << 53 || scale.unsigned_abs() >= EXACT_POWERS.len() as u64 {
        return None;
    }
    let f = m as f64;
    let f = if scale >= 0 { f * EXACT_POWERS[scale as usize] } else { f / EXACT_POWERS[scale.unsigned_abs() as usize] };
    Some(Number::Float(if negative { -f } else { f }))
}

/// A pull reader over JSON text: the generated types read a call's arguments
/// with it straight into their values, checking while they read, instead of
/// building the tree first. It is the parser above stepped one token at a time
/// (same grammar, same nesting limit, same numbers, strings borrowed unless
/// they hold escapes); a value it does not step through, it parses as a tree.
///
/// It reports no errors: anything it cannot read is `None`, and the caller then
/// parses and resolves the whole call as a tree, which says what is wrong and
/// where. A reader is therefore only a shortcut to an accepted call.
pub struct Reader<'a> {
    p: Parser<'a>,
    stop: Option<KeyStop<'a>>,
}

/// Where a [`Reader`] stopped on a key of a closed object: the object's nesting
/// depth (1 for the outermost), the declared keys, and the problem. The caller
/// may reject the call with it once the rest of the text is read.
#[derive(Debug)]
pub struct KeyStop<'a> {
    /// How deep the object is (1: the outermost value).
    pub depth: usize,
    /// The object's declared keys.
    pub declared: &'static [&'static str],
    /// What is wrong with its keys.
    pub miss: KeyMiss<'a>,
}

/// A key problem of a closed object.
#[derive(Debug)]
pub enum KeyMiss<'a> {
    /// A key the object does not declare (the first, in member order).
    Undeclared(Cow<'a, str>),
    /// A declared key given a second time.
    Duplicate(Cow<'a, str>),
    /// The first required key absent, in declaration order (every key given was
    /// declared, once).
    Missing(&'static str),
    /// The call object's `name` is not one of the tools read into (`depth` 1,
    /// no declared keys).
    UnknownName,
}

impl<'a> Reader<'a> {
    /// A reader at the start of `bytes`, or `None` when they are not UTF-8.
    #[inline]
    pub fn new(bytes: &'a [u8]) -> Option<Reader<'a>> {
        let text = std::str::from_utf8(bytes).ok()?;
        Some(Reader { p: Parser { text, bytes, pos: 0, depth: 0, members: Vec::new(), items: Vec::new() }, stop: None })
    }

    /// The next value, parsed as a tree.
    pub fn value(&mut self) -> Option<Json<'a>> {
        self.p.value::<true>().ok()
    }

    /// Reads past the next value, checked as [`Reader::value`] checks it
    /// (the same grammar and limits), without building it.
    pub fn skip_value(&mut self) -> Option<()> {
        self.p.value::<false>().ok().map(drop)
    }

    /// The next value when it is a string.
    #[inline(always)]
    pub fn string(&mut self) -> Option<Cow<'a, str>> {
        self.p.skip_whitespace();
        if self.p.peek() != Some(b'"') {
            return None;
        }
        self.p.pos += 1;
        self.p.string().ok()
    }

    /// The next value when it is a number.
    #[inline]
    pub fn number(&mut self) -> Option<Number> {
        self.p.skip_whitespace();
        match self.p.peek()? {
            b'-' | b'0'..=b'9' => self.p.number().ok(),
            _ => None,
        }
    }

    /// The next value when it is `true` or `false`.
    #[inline]
    pub fn boolean(&mut self) -> Option<bool> {
        self.p.skip_whitespace();
        let rest = self.p.bytes.get(self.p.pos..)?;
        let (value, len) = if rest.starts_with(b"true") {
            (true, 4)
        } else if rest.starts_with(b"false") {
            (false, 5)
        } else {
            return None;
        };
        self.p.pos += len;
        Some(value)
    }

    /// Consumes the next value when it is `null`.
    #[inline]
    pub fn null(&mut self) -> bool {
        self.p.skip_whitespace();
        let is_null = self.p.bytes.get(self.p.pos..self.p.pos + 4) == Some(b"null");
        self.p.pos += if is_null { 4 } else { 0 };
        is_null
    }

    /// Opens the object that is the next value: `Some(true)` when a member
    /// follows (read it with [`Reader::key`], then its value, then
    /// [`Reader::more_members`]), `Some(false)` when it is `{}` (already closed).
    #[inline]
    pub fn object(&mut self) -> Option<bool> {
        self.open(b'{', b'}')
    }

    /// The key of the next member and its colon.
    #[inline]
    pub fn key(&mut self) -> Option<Cow<'a, str>> {
        let key = self.string()?;
        self.p.skip_whitespace();
        if self.p.peek() != Some(b':') {
            return None;
        }
        self.p.pos += 1;
        Some(key)
    }

    /// Consumes the next member's key and its colon when the key is written
    /// exactly as `key` (quoted, no escapes); otherwise reads nothing. The
    /// shortcut for keys that come in the order the schema declares them: a
    /// comparison of the text instead of a scan and a lookup. `key` must be
    /// [`plain`](is_plain_key) (a key with a quote, a backslash or a control
    /// character is written escaped, so its text never matches).
    #[inline(always)]
    pub fn key_is(&mut self, key: &str) -> bool {
        self.p.skip_whitespace();
        let start = self.p.pos;
        let n = key.len();
        // The closing quote first: most keys of another length fail there.
        let matches = self.p.bytes.get(start..start + n + 2).is_some_and(|text| text[n + 1] == b'"' && text[0] == b'"' && &text[1..=n] == key.as_bytes());
        if !matches {
            return false;
        }
        self.p.pos = start + n + 2;
        self.p.skip_whitespace();
        if self.p.peek() != Some(b':') {
            self.p.pos = start;
            return false;
        }
        self.p.pos += 1;
        true
    }

    /// After a member's value: `Some(true)` when another member follows,
    /// `Some(false)` when the object closes here.
    #[inline]
    pub fn more_members(&mut self) -> Option<bool> {
        self.more(b'}')
    }

    /// Opens the array that is the next value: `Some(true)` when an item follows
    /// (read it, then [`Reader::more_items`]), `Some(false)` when it is `[]`.
    pub fn array(&mut self) -> Option<bool> {
        self.open(b'[', b']')
    }

    /// After an item: `Some(true)` when another follows, `Some(false)` when the array closes here.
    pub fn more_items(&mut self) -> Option<bool> {
        self.more(b']')
    }

    /// Stops reading at `key`, a key of the object being read that is not
    /// declared or given twice: records it and returns `None`.
    pub fn stop_at_key<T>(&mut self, key: Cow<'a, str>, declared: &'static [&'static str], twice: bool) -> Option<T> {
        let miss = if twice { KeyMiss::Duplicate(key) } else { KeyMiss::Undeclared(key) };
        self.stop = Some(KeyStop { depth: self.p.depth, declared, miss });
        None
    }

    /// Stops reading after the object just closed, which lacks its required
    /// `key`: records it (the caller then returns `None`). Not generic, so that
    /// the generated objects share one copy.
    pub fn stop_missing(&mut self, key: &'static str, declared: &'static [&'static str]) {
        self.stop = Some(KeyStop { depth: self.p.depth + 1, declared, miss: KeyMiss::Missing(key) });
    }

    /// Stops reading at the arguments of a call whose name is none of the
    /// tools': records it and returns `None`.
    pub fn stop_unknown_name<T>(&mut self) -> Option<T> {
        self.stop = Some(KeyStop { depth: 1, declared: &[], miss: KeyMiss::UnknownName });
        None
    }

    /// Where the reading stopped on a key, if it did (taken out).
    pub fn take_stop(&mut self) -> Option<KeyStop<'a>> {
        self.stop.take()
    }

    /// Steps over the next value, an object or an array, without reading it
    /// (brackets matched outside strings; nothing else checked): the reader
    /// for that value alone, to read once what comes after it is known. Every
    /// byte is still read by one reader or the other, so the whole text is
    /// checked. `None` for any other value.
    pub fn set_aside(&mut self) -> Option<Reader<'a>> {
        self.p.skip_whitespace();
        let (bytes, start) = (self.p.bytes, self.p.pos);
        if !matches!(self.p.peek(), Some(b'{' | b'[')) {
            return None;
        }
        let (mut depth, mut i) = (0usize, start);
        loop {
            match *bytes.get(i)? {
                b'"' => {
                    // To the closing quote, over escapes.
                    i += 1;
                    loop {
                        match *bytes.get(i)? {
                            b'"' => break,
                            b'\\' => i += 2,
                            _ => i += 1,
                        }
                    }
                }
                b'{' | b'[' => depth += 1,
                b'}' | b']' => {
                    depth -= 1;
                    if depth == 0 {
                        break;
                    }
                }
                _ => {}
            }
            i += 1;
        }
        // Just past a closing bracket: a character boundary.
        let text = self.p.text.get(..=i)?;
        self.p.pos = i + 1;
        let p = Parser { text, bytes: text.as_bytes(), pos: start, depth: self.p.depth, members: Vec::new(), items: Vec::new() };
        Some(Reader { p, stop: None })
    }

    /// Whether nothing but whitespace is left.
    pub fn at_end(&mut self) -> bool {
        self.p.skip_whitespace();
        self.p.pos == self.p.bytes.len()
    }

    #[inline]
    fn open(&mut self, open: u8, close: u8) -> Option<bool> {
        self.p.skip_whitespace();
        if self.p.peek() != Some(open) || self.p.depth == MAX_DEPTH {
            return None;
        }
        self.p.pos += 1;
        self.p.skip_whitespace();
        if self.p.peek() == Some(close) {
            self.p.pos += 1;
            return Some(false);
        }
        self.p.depth += 1;
        Some(true)
    }

    #[inline]
    fn more(&mut self, close: u8) -> Option<bool> {
        self.p.skip_whitespace();
        match self.p.peek()? {
            b',' => {
                self.p.pos += 1;
                Some(true)
            }
            b if b == close => {
                self.p.pos += 1;
                self.p.depth -= 1;
                Some(false)
            }
            _ => None,
        }
    }
}
