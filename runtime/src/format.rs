//! Validators for the `format` values toolseal enforces. Each follows the RFC
//! JSON Schema names; where a validator simplifies, the README says how.

use std::sync::OnceLock;

/// RFC 3339 `date-time` (`T`/`Z` in either case, fraction optional, offset required).
pub fn is_date_time(s: &str) -> bool {
    let b = s.as_bytes();
    b.len() > 11 && matches!(b[10], b'T' | b't') && date(&b[..10]) && time(&b[11..])
}

/// The value of `b` if it is nothing but ASCII digits (at most 9 of them).
fn num(b: &[u8]) -> Option<u32> {
    (!b.is_empty() && b.len() <= 9 && b.iter().all(u8::is_ascii_digit)).then(|| b.iter().fold(0, |n, c| n * 10 + u32::from(c - b'0')))
}

/// RFC 3339 `full-date`: `YYYY-MM-DD` with a real day of that month.
pub fn is_date(s: &str) -> bool {
    date(s.as_bytes())
}

fn date(b: &[u8]) -> bool {
    if b.len() != 10 || b[4] != b'-' || b[7] != b'-' {
        return false;
    }
    let (Some(y), Some(m), Some(d)) = (num(&b[0..4]), num(&b[5..7]), num(&b[8..10])) else {
        return false;
    };
    let leap = (y % 4 == 0 && y % 100 != 0) || y % 400 == 0;
    let days = match m {
        1 | 3 | 5 | 7 | 8 | 10 | 12 => 31,
        4 | 6 | 9 | 11 => 30,
        2 if leap => 29,
        2 => 28,
        _ => return false,
    };
    (1..=days).contains(&d)
}

/// RFC 3339 `full-time`: `HH:MM:SS[.frac](Z|±HH:MM)`. Second 60 (a leap
/// second) is valid only where it is 23:59:60 in UTC, the offset applied.
pub fn is_time(s: &str) -> bool {
    time(s.as_bytes())
}

fn time(b: &[u8]) -> bool {
    if b.len() < 9 || b[2] != b':' || b[5] != b':' {
        return false;
    }
    let (Some(h), Some(m), Some(sec)) = (num(&b[0..2]), num(&b[3..5]), num(&b[6..8])) else {
        return false;
    };
    if h > 23 || m > 59 || sec > 60 {
        return false;
    }
    let mut rest = &b[8..];
    if let Some(frac) = rest.strip_prefix(b".") {
        let n = frac.iter().take_while(|c| c.is_ascii_digit()).count();
        if n == 0 {
            return false;
        }
        rest = &frac[n..];
    }
    let offset = match rest {
        [b'Z' | b'z'] => 0,
        [sign @ (b'+' | b'-'), h1, h2, b':', m1, m2] => match (num(&[*h1, *h2]), num(&[*m1, *m2])) {
            (Some(oh), Some(om)) if oh <= 23 && om <= 59 => {
                let o = (oh * 60 + om) as i32;
                if *sign == b'+' { o } else { -o }
            }
            _ => return false,
        },
        _ => return false,
    };
    sec < 60 || ((h * 60 + m) as i32 - offset).rem_euclid(24 * 60) == 23 * 60 + 59
}

/// An e-mail address (RFC 5321 `Mailbox`): a dot-atom or quoted-string local
/// part (at most 64 octets), `@`, and a host name or an address literal
/// (`[IPv4]` or `[IPv6:…]`). Non-ASCII octets are accepted in the local part.
pub fn is_email(s: &str) -> bool {
    let Some(at) = s.bytes().rposition(|b| b == b'@') else { return false };
    let (local, domain) = (&s[..at], &s[at + 1..]);
    let local_ok = !local.is_empty()
        && local.len() <= 64
        && match local.strip_prefix('"').and_then(|l| l.strip_suffix('"')) {
            Some(quoted) => is_quoted_content(quoted.as_bytes()),
            None => is_dot_atom(local.as_bytes()),
        };
    let domain_ok = match domain.strip_prefix('[').and_then(|d| d.strip_suffix(']')) {
        Some(lit) => match lit.strip_prefix("IPv6:") {
            Some(v6) => is_ipv6(v6),
            None => is_ipv4(lit),
        },
        None => is_hostname(domain),
    };
    local_ok && domain_ok
}

/// RFC 5321 `atext`, byte by byte: every byte of a non-ASCII character is >= 0x80.
static ATEXT: [bool; 256] = {
    let mut table = [false; 256];
    let mut c = 0;
    while c < 256 {
        let b = c as u8;
        table[c] = b.is_ascii_alphanumeric()
            || !b.is_ascii()
            || matches!(b, b'!' | b'#' | b'$' | b'%' | b'&' | b'\'' | b'*' | b'+' | b'-' | b'/' | b'=' | b'?' | b'^' | b'_' | b'`' | b'{' | b'|' | b'}' | b'~');
        c += 1;
    }
    table
};

/// RFC 5321 `Dot-string`: `atext` runs joined by single dots, none empty.
fn is_dot_atom(b: &[u8]) -> bool {
    // At the start as after a dot: a dot here would end an empty run.
    let mut after_dot = true;
    for &c in b {
        if c == b'.' {
            if after_dot {
                return false;
            }
            after_dot = true;
        } else if ATEXT[usize::from(c)] {
            after_dot = false;
        } else {
            return false;
        }
    }
    !after_dot
}

/// RFC 5321 `qtextSMTP` and `quoted-pairSMTP` (plus non-ASCII octets).
fn is_quoted_content(b: &[u8]) -> bool {
    let mut i = 0;
    while i < b.len() {
        match b[i] {
            b'\\' if b.get(i + 1).is_some_and(|c| (32..=126).contains(c)) => i += 2,
            b'"' | b'\\' => return false,
            c if (32..=126).contains(&c) || !c.is_ascii() => i += 1,
            _ => return false,
        }
    }
    true
}

/// RFC 4122 UUID, hyphenated, any version.
pub fn is_uuid(s: &str) -> bool {
    let b = s.as_bytes();
    b.len() == 36
        && b.iter().enumerate().all(|(i, c)| match i {
            8 | 13 | 18 | 23 => *c == b'-',
            _ => c.is_ascii_hexdigit(),
        })
}

/// A dotted-quad IPv4 address (RFC 3986 `IPv4address`): four decimal octets
/// 0–255 in ASCII digits, without leading zeros.
pub fn is_ipv4(s: &str) -> bool {
    let mut parts = 0;
    s.split('.').all(|p| {
        parts += 1;
        let b = p.as_bytes();
        !b.is_empty() && b.len() <= 3 && (b[0] != b'0' || b.len() == 1) && num(b).is_some_and(|n| n <= 255)
    }) && parts == 4
}

/// An IPv6 address in RFC 4291 text form (RFC 3986 `IPv6address`): eight
/// groups of 1–4 hex digits, at most one `::`, an optional dotted-quad tail;
/// no zone, no prefix length, no brackets.
pub fn is_ipv6(s: &str) -> bool {
    // The number of 16-bit pieces in `part`, if it is well formed; an IPv4 tail
    // (two pieces) is allowed only when `last`.
    let pieces = |part: &str, last: bool| -> Option<usize> {
        if part.is_empty() {
            return Some(0);
        }
        let groups: Vec<&str> = part.split(':').collect();
        let mut n = 0;
        for (i, g) in groups.iter().enumerate() {
            if last && i == groups.len() - 1 && g.contains('.') {
                n += if is_ipv4(g) { 2 } else { return None };
            } else if (1..=4).contains(&g.len()) && g.bytes().all(|c| c.is_ascii_hexdigit()) {
                n += 1;
            } else {
                return None;
            }
        }
        Some(n)
    };
    match s.split_once("::") {
        Some((head, tail)) => !tail.contains("::") && matches!((pieces(head, false), pieces(tail, true)), (Some(h), Some(t)) if h + t <= 7),
        None => pieces(s, true) == Some(8),
    }
}

/// An absolute URI (RFC 3986 `URI`): a scheme, `:`, a hierarchical part, an
/// optional query and an optional fragment.
pub fn is_uri(s: &str) -> bool {
    scheme_end(s).is_some_and(|i| is_relative_part(&s[i + 1..], true))
}

/// A URI or a relative reference (RFC 3986 `URI-reference`).
pub fn is_uri_reference(s: &str) -> bool {
    match scheme_end(s) {
        Some(i) => is_relative_part(&s[i + 1..], true),
        None => is_relative_part(s, false),
    }
}

/// Where the `:` after a leading RFC 3986 `scheme` is. A reference whose first
/// `:` does not end a valid scheme can only be a relative reference.
fn scheme_end(s: &str) -> Option<usize> {
    let i = s.find(':')?;
    let mut chars = s[..i].chars();
    let ok = chars.next().is_some_and(|c| c.is_ascii_alphabetic()) && chars.all(|c| c.is_ascii_alphanumeric() || matches!(c, '+' | '-' | '.'));
    ok.then_some(i)
}

/// What follows the scheme's `:` (`hier-part [ "?" query ] [ "#" fragment ]`),
/// or a whole `relative-ref` when `!after_scheme`.
fn is_relative_part(s: &str, after_scheme: bool) -> bool {
    let (s, fragment) = s.split_once('#').map_or((s, None), |(a, f)| (a, Some(f)));
    let (s, query) = s.split_once('?').map_or((s, None), |(a, q)| (a, Some(q)));
    if ![fragment, query].into_iter().flatten().all(|part| is_component(part, b":@/?")) {
        return false;
    }
    let path = match s.strip_prefix("//") {
        Some(rest) => {
            // `"//" authority path-abempty`
            let end = rest.find('/').unwrap_or(rest.len());
            if !is_authority(&rest[..end]) {
                return false;
            }
            &rest[end..]
        }
        // `path-noscheme`: no `:` in the first segment of a relative reference.
        None if !after_scheme && s.split('/').next().is_some_and(|first| first.contains(':')) => return false,
        // `path-absolute`, `path-rootless`, `path-noscheme` or `path-empty`
        None => s,
    };
    path.split('/').all(|segment| is_component(segment, b":@"))
}

/// RFC 3986 `authority`: `[ userinfo "@" ] host [ ":" port ]`.
fn is_authority(a: &str) -> bool {
    let (userinfo, host_port) = a.split_once('@').map_or((None, a), |(u, h)| (Some(u), h));
    if userinfo.is_some_and(|u| !is_component(u, b":")) {
        return false;
    }
    let (host_ok, port) = match host_port.strip_prefix('[') {
        Some(literal) => match literal.split_once(']') {
            Some((inside, port)) => (is_ip_literal(inside), port),
            None => return false,
        },
        None => {
            let end = host_port.find(':').unwrap_or(host_port.len());
            // `reg-name` (an `IPv4address` is one syntactically)
            (is_component(&host_port[..end], b""), &host_port[end..])
        }
    };
    host_ok && (port.is_empty() || port.strip_prefix(':').is_some_and(|p| p.bytes().all(|c| c.is_ascii_digit())))
}

/// The inside of an RFC 3986 `IP-literal`: an `IPv6address` or an `IPvFuture`.
fn is_ip_literal(s: &str) -> bool {
    match s.strip_prefix(['v', 'V']) {
        Some(future) => future
            .split_once('.')
            .is_some_and(|(version, rest)| !version.is_empty() && version.bytes().all(|c| c.is_ascii_hexdigit()) && !rest.is_empty() && !rest.contains('%') && is_component(rest, b":")),
        None => is_ipv6(s),
    }
}

/// `unreserved`, `sub-delims`, `pct-encoded` and the bytes in `extra`.
fn is_component(s: &str, extra: &[u8]) -> bool {
    let b = s.as_bytes();
    let mut i = 0;
    while i < b.len() {
        match b[i] {
            b'%' if i + 2 < b.len() && b[i + 1].is_ascii_hexdigit() && b[i + 2].is_ascii_hexdigit() => i += 3,
            c if c.is_ascii_alphanumeric() || b"-._~!$&'()*+,;=".contains(&c) || extra.contains(&c) => i += 1,
            _ => return false,
        }
    }
    true
}

/// An RFC 1123 host name with RFC 5890/5891 IDNA2008 rules: dot-separated
/// labels of letters, digits and inner hyphens, each 1–63 octets, 253 in all,
/// no trailing dot. A label with `--` in its third and fourth positions must
/// be an A-label: `xn--` and Punycode (RFC 3492) that decodes to a valid
/// U-label (RFC 5891 §5.4, RFC 5892 rules: see `is_u_label`).
pub fn is_hostname(s: &str) -> bool {
    let b = s.as_bytes();
    if b.is_empty() || b.len() > 253 {
        return false;
    }
    // One pass: each label is checked when the dot (or the end) after it is reached.
    let mut start = 0;
    for (i, c) in b.iter().enumerate() {
        if LABEL_BYTE[usize::from(*c)] {
            continue;
        }
        if *c != b'.' || !is_label(&b[start..i]) {
            return false;
        }
        start = i + 1;
    }
    is_label(&b[start..])
}

/// Letters, digits and `-`: the bytes of a host name's labels.
static LABEL_BYTE: [bool; 256] = {
    let mut table = [false; 256];
    let mut c = 0;
    while c < 256 {
        table[c] = (c as u8).is_ascii_alphanumeric() || c == b'-' as usize;
        c += 1;
    }
    table
};

/// Whether `label`, made of [`LABEL_BYTE`]s, is a host name label: 1–63
/// octets, no hyphen first or last, an A-label if `--` is its third and fourth.
#[inline]
fn is_label(label: &[u8]) -> bool {
    let (Some(first), Some(last)) = (label.first(), label.last()) else { return false };
    label.len() <= 63 && *first != b'-' && *last != b'-' && (label.len() < 4 || &label[2..4] != b"--" || is_a_label(label))
}

/// Whether the ASCII label `b` (letters, digits, hyphens) is an A-label: `xn--`
/// and Punycode that decodes to a valid U-label.
fn is_a_label(b: &[u8]) -> bool {
    // The label is ASCII (checked by the caller), so its bytes are text.
    b[..2].eq_ignore_ascii_case(b"xn") && std::str::from_utf8(&b[4..]).ok().and_then(punycode_decode).is_some_and(|u| is_u_label(&u))
}

/// RFC 3492 Punycode decoding of the part of an A-label after `xn--`; `None`
/// when it is not well-formed Punycode or decodes to nothing but ASCII.
pub fn punycode_decode(input: &str) -> Option<Vec<char>> {
    const BASE: u32 = 36;
    const TMIN: u32 = 1;
    const TMAX: u32 = 26;
    let adapt = |delta: u32, points: u32, first: bool| {
        let mut delta = if first { delta / 700 } else { delta / 2 };
        delta += delta / points;
        let mut k = 0;
        while delta > ((BASE - TMIN) * TMAX) / 2 {
            delta /= BASE - TMIN;
            k += BASE;
        }
        k + (BASE - TMIN + 1) * delta / (delta + 38)
    };
    if !input.is_ascii() {
        return None;
    }
    let (basic, extended) = input.rsplit_once('-').unwrap_or(("", input));
    let mut out: Vec<char> = basic.chars().collect();
    let (mut n, mut i, mut bias) = (0x80u32, 0u32, 72u32);
    let mut digits = extended.bytes();
    let mut next = digits.next();
    while let Some(first) = next {
        let (old_i, mut w, mut k, mut c) = (i, 1u32, BASE, first);
        loop {
            let digit = match c {
                b'a'..=b'z' => c - b'a',
                b'A'..=b'Z' => c - b'A',
                b'0'..=b'9' => c - b'0' + 26,
                _ => return None,
            } as u32;
            i = i.checked_add(digit.checked_mul(w)?)?;
            let t = if k <= bias { TMIN } else { (k - bias).min(TMAX) };
            if digit < t {
                break;
            }
            w = w.checked_mul(BASE - t)?;
            k += BASE;
            c = digits.next()?;
        }
        let len = out.len() as u32 + 1;
        bias = adapt(i - old_i, len, old_i == 0);
        n = n.checked_add(i / len)?;
        i %= len;
        out.insert(i as usize, char::from_u32(n)?);
        i += 1;
        next = digits.next();
    }
    (!out.iter().all(char::is_ascii)).then_some(out)
}

/// Whether a decoded label is a valid IDNA2008 U-label: no leading or
/// trailing hyphen, no `--` in positions 3–4, no leading combining mark, every
/// code point PVALID (RFC 5892 derivation; the `Unstable` category is
/// approximated by `Changes_When_Casefolded`), and the CONTEXTJ/CONTEXTO rules
/// of RFC 5892 Appendix A. ASCII letters count as lower case. The RFC 5893
/// Bidi rule is not applied (neither does the JSON-Schema-Test-Suite).
fn is_u_label(label: &[char]) -> bool {
    let label: Vec<char> = label.iter().map(char::to_ascii_lowercase).collect();
    let t = idna_tables();
    let (Some(&first), Some(&last)) = (label.first(), label.last()) else { return false };
    if first == '-' || last == '-' || label.get(2..4) == Some(&['-', '-'][..]) || t.mark.contains(first) {
        return false;
    }
    let has = |lo: char, hi: char| label.iter().any(|c| (lo..=hi).contains(c));
    label.iter().enumerate().all(|(i, &c)| {
        let before = i.checked_sub(1).map(|j| label[j]);
        let after = label.get(i + 1).copied();
        match c {
            // Exceptions (RFC 5892 §2.6): PVALID
            '\u{DF}' | '\u{3C2}' | '\u{6FD}' | '\u{6FE}' | '\u{F0B}' | '\u{3007}' => true,
            // Exceptions: DISALLOWED
            '\u{640}' | '\u{7FA}' | '\u{302E}' | '\u{302F}' | '\u{3031}'..='\u{3035}' | '\u{303B}' => false,
            // CONTEXTO (Appendix A.3–A.9)
            '\u{B7}' => before == Some('l') && after == Some('l'),
            '\u{375}' => after.is_some_and(|a| t.greek.contains(a)),
            '\u{5F3}' | '\u{5F4}' => before.is_some_and(|b| t.hebrew.contains(b)),
            '\u{30FB}' => label.iter().any(|&o| o != '\u{30FB}' && t.kana_han.contains(o)),
            '\u{660}'..='\u{669}' => !has('\u{6F0}', '\u{6F9}'),
            '\u{6F0}'..='\u{6F9}' => !has('\u{660}', '\u{669}'),
            // CONTEXTJ (Appendix A.1–A.2)
            '\u{200D}' => before.is_some_and(|b| in_table(VIRAMA, b)),
            '\u{200C}' => {
                before.is_some_and(|b| in_table(VIRAMA, b)) || {
                    let transparent = |c: &&char| t.transparent.contains(**c);
                    label[..i].iter().rev().find(|c| !transparent(c)).is_some_and(|&b| in_table(JOINS_LEFT, b))
                        && label[i + 1..].iter().find(|c| !transparent(c)).is_some_and(|&a| in_table(JOINS_RIGHT, a))
                }
            }
            'a'..='z' | '0'..='9' | '-' => true,
            c => t.pvalid.contains(c),
        }
    })
}

/// Sorted code point ranges built from a `regex` class expression.
struct Ranges(Vec<(char, char)>);

impl Ranges {
    fn new(class: &str) -> Ranges {
        let hir = regex_syntax::parse(class).expect("a valid class");
        match hir.kind() {
            regex_syntax::hir::HirKind::Class(regex_syntax::hir::Class::Unicode(c)) => Ranges(c.ranges().iter().map(|r| (r.start(), r.end())).collect()),
            _ => panic!("not a Unicode class: {class}"),
        }
    }

    fn contains(&self, c: char) -> bool {
        self.0
            .binary_search_by(|&(lo, hi)| {
                if hi < c {
                    std::cmp::Ordering::Less
                } else if lo > c {
                    std::cmp::Ordering::Greater
                } else {
                    std::cmp::Ordering::Equal
                }
            })
            .is_ok()
    }
}

fn in_table(table: &[(u32, u32)], c: char) -> bool {
    let c = c as u32;
    table
        .binary_search_by(|&(lo, hi)| {
            if hi < c {
                std::cmp::Ordering::Less
            } else if lo > c {
                std::cmp::Ordering::Greater
            } else {
                std::cmp::Ordering::Equal
            }
        })
        .is_ok()
}

/// The Unicode properties IDNA2008 needs, from the `regex` crate's tables.
struct IdnaTables {
    /// RFC 5892 `LetterDigits` minus `Unstable` (approximated),
    /// `IgnorableProperties`, `IgnorableBlocks` and `OldHangulJamo`.
    pvalid: Ranges,
    /// General category M.
    mark: Ranges,
    greek: Ranges,
    hebrew: Ranges,
    kana_han: Ranges,
    /// `Joining_Type=T`: Mn, Me and Cf except the code points ArabicShaping.txt lists otherwise.
    transparent: Ranges,
}

fn idna_tables() -> &'static IdnaTables {
    static TABLES: OnceLock<IdnaTables> = OnceLock::new();
    TABLES.get_or_init(|| IdnaTables {
        pvalid: Ranges::new(concat!(
            r"[[\p{Ll}\p{Lu}\p{Lo}\p{Nd}\p{Lm}\p{Mn}\p{Mc}]--[\p{Changes_When_Casefolded}\p{Default_Ignorable_Code_Point}",
            r"\p{White_Space}\p{Noncharacter_Code_Point}\x{20D0}-\x{20FF}\x{1D100}-\x{1D24F}",
            r"\x{1100}-\x{11FF}\x{A960}-\x{A97F}\x{D7B0}-\x{D7FF}]]"
        )),
        mark: Ranges::new(r"\p{M}"),
        greek: Ranges::new(r"\p{sc=Greek}"),
        hebrew: Ranges::new(r"\p{sc=Hebrew}"),
        kana_han: Ranges::new(r"[\p{sc=Hiragana}\p{sc=Katakana}\p{sc=Han}]"),
        transparent: Ranges::new(concat!(r"[[\p{Mn}\p{Me}\p{Cf}\x{1E94B}]--[\x{600}-\x{605}\x{6DD}\x{890}\x{891}\x{8E2}\x{180E}\x{200C}\x{200D}", r"\x{2066}-\x{2069}\x{110BD}\x{110CD}]]")),
    })
}

// Unicode 14 `Joining_Type` (L or D; R or D) and `Canonical_Combining_Class=Virama`.
const JOINS_LEFT: &[(u32, u32)] = &[
    (0x620, 0x620),
    (0x626, 0x626),
    (0x628, 0x628),
    (0x62A, 0x62E),
    (0x633, 0x63F),
    (0x641, 0x647),
    (0x649, 0x64A),
    (0x66E, 0x66F),
    (0x678, 0x687),
    (0x69A, 0x6BF),
    (0x6C1, 0x6C2),
    (0x6CC, 0x6CC),
    (0x6CE, 0x6CE),
    (0x6D0, 0x6D1),
    (0x6FA, 0x6FC),
    (0x6FF, 0x6FF),
    (0x712, 0x714),
    (0x71A, 0x71D),
    (0x71F, 0x727),
    (0x729, 0x729),
    (0x72B, 0x72B),
    (0x72D, 0x72E),
    (0x74E, 0x758),
    (0x75C, 0x76A),
    (0x76D, 0x770),
    (0x772, 0x772),
    (0x775, 0x777),
    (0x77A, 0x77F),
    (0x7CA, 0x7EA),
    (0x841, 0x845),
    (0x848, 0x848),
    (0x84A, 0x853),
    (0x855, 0x855),
    (0x860, 0x860),
    (0x862, 0x865),
    (0x868, 0x868),
    (0x886, 0x886),
    (0x889, 0x88D),
    (0x8A0, 0x8A9),
    (0x8AF, 0x8B0),
    (0x8B3, 0x8B8),
    (0x8BA, 0x8C8),
    (0x1807, 0x1807),
    (0x1820, 0x1878),
    (0x1887, 0x18A8),
    (0x18AA, 0x18AA),
    (0xA840, 0xA872),
    (0x10AC0, 0x10AC4),
    (0x10ACD, 0x10ACD),
    (0x10AD3, 0x10ADC),
    (0x10ADE, 0x10AE0),
    (0x10AEB, 0x10AEE),
    (0x10B80, 0x10B80),
    (0x10B82, 0x10B82),
    (0x10B86, 0x10B88),
    (0x10B8A, 0x10B8B),
    (0x10B8D, 0x10B8D),
    (0x10B90, 0x10B90),
    (0x10BAD, 0x10BAE),
    (0x10D00, 0x10D21),
    (0x10D23, 0x10D23),
    (0x10F30, 0x10F32),
    (0x10F34, 0x10F44),
    (0x10F51, 0x10F53),
    (0x10F70, 0x10F73),
    (0x10F76, 0x10F81),
    (0x10FB0, 0x10FB0),
    (0x10FB2, 0x10FB3),
    (0x10FB8, 0x10FB8),
    (0x10FBB, 0x10FBC),
    (0x10FBE, 0x10FBF),
    (0x10FC1, 0x10FC1),
    (0x10FC4, 0x10FC4),
    (0x10FCA, 0x10FCB),
    (0x1E900, 0x1E943),
];
const JOINS_RIGHT: &[(u32, u32)] = &[
    (0x620, 0x620),
    (0x622, 0x63F),
    (0x641, 0x64A),
    (0x66E, 0x66F),
    (0x671, 0x673),
    (0x675, 0x6D3),
    (0x6D5, 0x6D5),
    (0x6EE, 0x6EF),
    (0x6FA, 0x6FC),
    (0x6FF, 0x6FF),
    (0x710, 0x710),
    (0x712, 0x72F),
    (0x74D, 0x77F),
    (0x7CA, 0x7EA),
    (0x840, 0x858),
    (0x860, 0x860),
    (0x862, 0x865),
    (0x867, 0x86A),
    (0x870, 0x882),
    (0x886, 0x886),
    (0x889, 0x88E),
    (0x8A0, 0x8AC),
    (0x8AE, 0x8C8),
    (0x1807, 0x1807),
    (0x1820, 0x1878),
    (0x1887, 0x18A8),
    (0x18AA, 0x18AA),
    (0xA840, 0xA871),
    (0x10AC0, 0x10AC5),
    (0x10AC7, 0x10AC7),
    (0x10AC9, 0x10ACA),
    (0x10ACE, 0x10AD6),
    (0x10AD8, 0x10AE1),
    (0x10AE4, 0x10AE4),
    (0x10AEB, 0x10AEF),
    (0x10B80, 0x10B91),
    (0x10BA9, 0x10BAE),
    (0x10D01, 0x10D23),
    (0x10F30, 0x10F44),
    (0x10F51, 0x10F54),
    (0x10F70, 0x10F81),
    (0x10FB0, 0x10FB0),
    (0x10FB2, 0x10FB6),
    (0x10FB8, 0x10FBF),
    (0x10FC1, 0x10FC4),
    (0x10FC9, 0x10FCA),
    (0x1E900, 0x1E943),
];
const VIRAMA: &[(u32, u32)] = &[
    (0x94D, 0x94D),
    (0x9CD, 0x9CD),
    (0xA4D, 0xA4D),
    (0xACD, 0xACD),
    (0xB4D, 0xB4D),
    (0xBCD, 0xBCD),
    (0xC4D, 0xC4D),
    (0xCCD, 0xCCD),
    (0xD3B, 0xD3C),
    (0xD4D, 0xD4D),
    (0xDCA, 0xDCA),
    (0xE3A, 0xE3A),
    (0xEBA, 0xEBA),
    (0xF84, 0xF84),
    (0x1039, 0x103A),
    (0x1714, 0x1715),
    (0x1734, 0x1734),
    (0x17D2, 0x17D2),
    (0x1A60, 0x1A60),
    (0x1B44, 0x1B44),
    (0x1BAA, 0x1BAB),
    (0x1BF2, 0x1BF3),
    (0x2D7F, 0x2D7F),
    (0xA806, 0xA806),
    (0xA82C, 0xA82C),
    (0xA8C4, 0xA8C4),
    (0xA953, 0xA953),
    (0xA9C0, 0xA9C0),
    (0xAAF6, 0xAAF6),
    (0xABED, 0xABED),
    (0x10A3F, 0x10A3F),
    (0x11046, 0x11046),
    (0x11070, 0x11070),
    (0x1107F, 0x1107F),
    (0x110B9, 0x110B9),
    (0x11133, 0x11134),
    (0x111C0, 0x111C0),
    (0x11235, 0x11235),
    (0x112EA, 0x112EA),
    (0x1134D, 0x1134D),
    (0x11442, 0x11442),
    (0x114C2, 0x114C2),
    (0x115BF, 0x115BF),
    (0x1163F, 0x1163F),
    (0x116B6, 0x116B6),
    (0x1172B, 0x1172B),
    (0x11839, 0x11839),
    (0x1193D, 0x1193E),
    (0x119E0, 0x119E0),
    (0x11A34, 0x11A34),
    (0x11A47, 0x11A47),
    (0x11A99, 0x11A99),
    (0x11C3F, 0x11C3F),
    (0x11D44, 0x11D45),
    (0x11D97, 0x11D97),
];

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn dates_and_times() {
        assert!(is_date_time("2024-02-29T12:30:00Z"));
        assert!(is_date_time("2024-02-29t12:30:00.123+01:00"));
        assert!(!is_date_time("2023-02-29T12:30:00Z"));
        assert!(!is_date_time("2024-02-29 12:30:00Z"));
        assert!(!is_date_time("2024-02-29T24:00:00Z"));
        assert!(is_date("2000-02-29"));
        assert!(!is_date("1900-02-29"));
        assert!(!is_time("12:00:00"));
    }

    #[test]
    fn addresses() {
        assert!(is_email("a.b+c@example.com"));
        assert!(!is_email("a..b@example.com"));
        assert!(!is_email("no-at-sign"));
        assert!(is_uuid("123e4567-e89b-12d3-a456-426614174000"));
        assert!(!is_uuid("123e4567e89b12d3a456426614174000"));
        assert!(is_uri("https://example.com/a?b=c#d"));
        assert!(is_uri("urn:isbn:0451450523"));
        assert!(!is_uri("/relative/path"));
        assert!(!is_uri("http://exa mple.com"));
        assert!(!is_uri("http://example.com/%zz"));
        assert!(is_uri_reference("/relative/path"));
        assert!(is_hostname("example.com"));
        assert!(!is_hostname("-bad.com"));
    }

    /// Asserts `f` on every `(data, valid)` case, naming the failures.
    fn agree(name: &str, f: fn(&str) -> bool, cases: &[(&str, bool)]) {
        let wrong: Vec<_> = cases.iter().filter(|(s, valid)| f(s) != *valid).collect();
        assert!(wrong.is_empty(), "{name}: disagrees with JSON-Schema-Test-Suite on {wrong:?}");
    }

    // Cases from JSON-Schema-Test-Suite 44401e0c (tests/draft2020-12/optional/format/*.json):
    // (data, valid).

    #[test]
    fn suite_hostname() {
        agree(
            "hostname",
            is_hostname,
            &[
                ("www.example.com", true),
                ("hostname", true),
                ("1host", true),
                ("host-name", true),
                ("a--b.com", true),
                ("", false),
                (".", false),
                (".example", false),
                ("example.", false),
                ("example\u{ff0e}com", false),
                ("-hostname", false),
                ("hostname-", false),
                ("host_name", false),
                ("example.com\n", false),
                ("\u{212a}elvin.example.com", false),
                ("abcdefghijklmnopqrstuvwxyzabcdefghijklmnopqrstuvwxyzabcdefghijk.com", true),
                ("abcdefghijklmnopqrstuvwxyzabcdefghijklmnopqrstuvwxyzabcdefghijkl.com", false),
                // A-labels
                ("xn--X", false),
                ("xn--9n2bp8q.xn--9t4b11yi5a", true),
                ("xn--07jt112bpxg.xn--9t4b11yi5a", false),
                ("xn--hello-txk", false),
                ("xn--hello-zed", false),
                ("xn--hello-6bf", false),
                ("xn--zca29lwxobi7a", true),
                ("xn--qmbc", true),
                ("xn--chb89f", false),
                ("xn--07jceefgh4c", false),
                ("xn--al-0ea", false),
                ("xn--l-fda", false),
                ("xn--la-0ea", false),
                ("xn--l-gda", false),
                ("xn--ll-0ea", true),
                ("xn--S-jib3p", false),
                ("xn--wva3j", false),
                ("xn--wva3je", true),
                ("xn--A-2hc5h", false),
                ("xn--5db1e", false),
                ("xn--4dbc5h", true),
                ("xn--A-2hc8h", false),
                ("xn--5db3e", false),
                ("xn--4dbc8h", true),
                ("xn--defabc-k64e", false),
                ("xn--vek", false),
                ("xn--k8j5u", true),
                ("xn--bck0j", true),
                ("xn--vek778f", true),
                ("xn--ngb6iyr", false),
                ("xn--ngba1o", true),
                ("xn--0-gyc", true),
                ("xn--11b2er09f", false),
                ("xn--02b508i", false),
                ("xn--11b2ezcw70k", true),
                ("xn--11b2ezcs70k", true),
                ("xn--ngba5hb2804a", true),
                ("XN--aa---o47jg78q", false),
            ],
        );
        let long = format!("{}.{}.{}.{}", "a".repeat(63), "b".repeat(63), "c".repeat(63), "d".repeat(61));
        assert!(is_hostname(&long) && !is_hostname(&format!("{long}e")), "253 octets in all");
        assert!(!is_hostname("ab--cd.com"), "`--` in positions 3-4 is reserved for A-labels");
    }

    #[test]
    fn punycode_rfc3492_samples() {
        let decode = |s: &str| punycode_decode(s).map(|u| u.into_iter().collect::<String>());
        // RFC 3492 §7.1 (A), (B), (L), and the usual German example.
        assert_eq!(decode("egbpdaj6bu4bxfgehfvwxn").as_deref(), Some("ليهمابتكلموشعربي؟"));
        assert_eq!(decode("ihqwcrb4cv8a8dqg056pqjye").as_deref(), Some("他们为什么不说中文"));
        assert_eq!(decode("3B-ww4c5e180e575a65lsy2b").as_deref(), Some("3年B組金八先生"));
        assert_eq!(decode("bcher-kva").as_deref(), Some("bücher"));
        assert_eq!(decode("X"), None, "truncated variable-length integer");
        assert_eq!(decode("abc-"), None, "only basic code points");
        assert_eq!(decode("99999999999"), None, "overflow");
    }

    #[test]
    fn suite_uri() {
        agree(
            "uri",
            is_uri,
            &[
                ("http://foo.bar/?baz=qux#quux", true),
                ("http://foo.com/blah_(wikipedia)_blah#cite-1", true),
                ("http://xn--nw2a.xn--j6w193g/", true),
                ("http://-.~_!$&'()*+,;=:%40:80%2f::::::@example.com", true),
                ("http://223.255.255.254", true),
                ("ldap://[2001:db8::7]/c=GB?objectClass?one", true),
                ("mailto:John.Doe@example.com", true),
                ("tel:+1-816-555-1212", true),
                ("urn:oasis:names:specification:docbook:dtd:xml:4.1.2", true),
                ("http://087.10.0.1/", true),
                ("http://999.999.999.999/", true),
                ("//foo.bar/?baz=qux#quux", false),
                ("/abc", false),
                ("\\\\WINDOWS\\fileshare", false),
                ("abc", false),
                ("http:// shouldfail.com", false),
                (":// should fail", false),
                ("bar,baz:foo", false),
                ("https://[@example.org/test.txt", false),
                ("https://example.org/foobar\u{ae}.txt", false),
                ("https://example.org/foobar\\.txt", false),
                ("https://example.org/foobar\".txt", false),
                ("https://example.org/foobar<>.txt", false),
                ("https://example.org/foobar{}.txt", false),
                ("https://example.org/foobar^.txt", false),
                ("https://example.org/foobar`.txt", false),
                ("https://example.org/foobar|.txt", false),
                ("http://example.com/%6G", false),
                ("http://example.com/%A", false),
                ("http://example.com/%", false),
                ("1http://example.com", false),
                ("ht_tp://example.com", false),
                ("http://example.com:abc/path", false),
                ("http://[::ffff:01.2.3.4]", false),
                ("http:/[::1]", false),
            ],
        );
        assert!(is_uri("http://[v7.a:b]/") && !is_uri("http://[v7.]/") && !is_uri("http://[::1/"), "IPvFuture");
    }

    #[test]
    fn suite_uri_reference() {
        agree(
            "uri-reference",
            is_uri_reference,
            &[
                ("http://foo.bar/?baz=qux#quux", true),
                ("//foo.bar/?baz=qux#quux", true),
                ("/abc", true),
                ("abc", true),
                ("#fragment", true),
                ("", true),
                ("?query=1", true),
                ("//", true),
                ("./this:that", true),
                ("http://087.10.0.1/", true),
                ("\\\\WINDOWS\\fileshare", false),
                ("#frag\\ment", false),
                ("/foobar\u{ae}.txt", false),
                ("https://example.org/foobar\\.txt", false),
                ("/%zz", false),
                ("/a\"b", false),
                ("/[::1]", false),
                ("//example.com:abc/p", false),
                ("//a@b@example.com/", false),
                ("//[::ffff:192.168.0.01]/p", false),
                ("1:b", false),
            ],
        );
    }

    #[test]
    fn suite_time_and_date_time() {
        agree(
            "time",
            is_time,
            &[
                ("08:30:06Z", true),
                ("23:59:60Z", true),
                ("23:59:60+00:00", true),
                ("01:29:60+01:30", true),
                ("23:29:60+23:30", true),
                ("15:59:60-08:00", true),
                ("00:29:60-23:30", true),
                ("12:34:56-00:00", true),
                ("08:30:06z", true),
                ("23:20:50.52Z", true),
                ("22:59:60Z", false),
                ("23:58:60Z", false),
                ("22:59:60+00:00", false),
                ("23:58:60+00:00", false),
                ("23:59:60+01:00", false),
                ("23:59:60+00:30", false),
                ("23:59:60-01:00", false),
                ("23:59:60-00:30", false),
                ("008:030:006Z", false),
                ("8:3:6Z", false),
                ("08:30:06-8:000", false),
                ("24:00:00Z", false),
                ("00:60:00Z", false),
                ("00:00:61Z", false),
                ("01:02:03+24:00", false),
                ("01:02:03+00:60", false),
                ("01:02:03Z+00:30", false),
                ("08:30:06 PST", false),
                ("01:01:01,1111", false),
                ("12:00:00.52", false),
                ("1\u{9e8}:00:00Z", false),
                ("08:30:06#00:20", false),
                ("2020-11-28T23:55:45Z", false),
            ],
        );
        agree(
            "date-time",
            is_date_time,
            &[
                ("1998-12-31T23:59:60Z", true),
                ("1998-12-31T15:59:60.123-08:00", true),
                ("1985-04-12T00:59:59.999999999999999Z", true),
                ("1963-06-19t08:30:06.283185z", true),
                ("1998-12-31T23:59:61Z", false),
                ("1998-12-31T23:58:60Z", false),
                ("1998-12-31T22:59:60Z", false),
                ("2016-12-31T24:59:60+01:00", false),
                ("1963-06-1\u{9ea}T00:00:00Z", false),
                ("1963-06-11T0\u{9ea}:00:00Z", false),
                ("1985-04-12T23:20:50+01", false),
                ("1985-04-12T23:20:50Z\n", false),
            ],
        );
        agree("date", is_date, &[("0400-02-29", true), ("2100-02-29", false), ("\u{9e8}0-01-01", false), ("2020-01-0:", false)]);
    }

    #[test]
    fn suite_email_and_ip() {
        agree(
            "email",
            is_email,
            &[
                ("te~st@example.com", true),
                ("\"joe bloggs\"@example.com", true),
                ("\"joe..bloggs\"@example.com", true),
                ("\"joe@bloggs\"@example.com", true),
                ("joe.bloggs@[127.0.0.1]", true),
                ("joe.bloggs@[IPv6:::1]", true),
                (".test@example.com", false),
                ("te..st@example.com", false),
                ("joe.bloggs@invalid=domain.com", false),
                ("joe.bloggs@[127.0.0.300]", false),
                ("user1@oceania.org, user2@oceania.org", false),
                ("@example.com", false),
                ("joe.bloggs@", false),
                ("joe bloggs@example.com", false),
                ("\"a\"b\"@example.com", false),
            ],
        );
        agree(
            "ipv4",
            is_ipv4,
            &[
                ("192.168.0.1", true),
                ("0.0.0.0", true),
                ("255.255.255.255", true),
                ("127.0.0.0.1", false),
                ("256.256.256.256", false),
                ("127.1", false),
                ("0x7f000001", false),
                ("087.10.0.1", false),
                ("1\u{9e8}7.0.0.1", false),
                ("192.168.0.1\n", false),
                ("+1.2.3.4", false),
                ("192.168..1", false),
            ],
        );
        agree(
            "ipv6",
            is_ipv6,
            &[
                ("::1", true),
                ("::", true),
                ("d6::", true),
                ("1:d6::42", true),
                ("1::d6:192.168.0.1", true),
                ("::ffff:192.168.0.1", true),
                ("1:2:3:4:5:6:7:8", true),
                ("1000:1000:1000:1000:1000:1000:255.255.255.255", true),
                ("12345::", false),
                ("::laptop", false),
                (":2:3:4:5:6:7:8", false),
                ("1:2:3:4:5:6:7:", false),
                (":2:3:4::8", false),
                ("1::d6::42", false),
                ("1:2:3:4:5:::8", false),
                ("1:2:3:4:5:6:7", false),
                ("1:2:3:4:1.2.3", false),
                ("fe80::a%eth1", false),
                ("[::1]", false),
                ("::ffff:192.168.0.01", false),
                ("100:100:100:100:100:100:100:255.255.255.255", false),
                ("1.2.3.4::", false),
            ],
        );
    }
}
