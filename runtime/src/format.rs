//! Validators for the `format` values toolseal enforces. Each follows the RFC
//! JSON Schema names; where a validator simplifies, the README says how.

/// RFC 3339 `date-time` (`T`/`Z` in either case, fraction optional, offset required).
pub fn is_date_time(s: &str) -> bool {
    match s.find(['T', 't']) {
        Some(i) => is_date(&s[..i]) && is_time(&s[i + 1..]),
        None => false,
    }
}

fn digits(s: &str, n: usize) -> Option<u32> {
    (s.len() == n && s.bytes().all(|b| b.is_ascii_digit())).then(|| s.parse().ok()).flatten()
}

/// RFC 3339 `full-date`: `YYYY-MM-DD` with a real day of that month.
pub fn is_date(s: &str) -> bool {
    let b = s.as_bytes();
    if b.len() != 10 || b[4] != b'-' || b[7] != b'-' {
        return false;
    }
    let (Some(y), Some(m), Some(d)) = (digits(&s[0..4], 4), digits(&s[5..7], 2), digits(&s[8..10], 2)) else {
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

/// RFC 3339 `full-time`: `HH:MM:SS[.frac](Z|±HH:MM)`.
pub fn is_time(s: &str) -> bool {
    let b = s.as_bytes();
    if b.len() < 9 || b[2] != b':' || b[5] != b':' {
        return false;
    }
    let (Some(h), Some(m), Some(sec)) = (digits(&s[0..2], 2), digits(&s[3..5], 2), digits(&s[6..8], 2)) else {
        return false;
    };
    if h > 23 || m > 59 || sec > 59 {
        return false;
    }
    let mut rest = &s[8..];
    if let Some(frac) = rest.strip_prefix('.') {
        let n = frac.bytes().take_while(u8::is_ascii_digit).count();
        if n == 0 {
            return false;
        }
        rest = &frac[n..];
    }
    match rest {
        "Z" | "z" => true,
        _ => {
            let o = rest.as_bytes();
            o.len() == 6
                && (o[0] == b'+' || o[0] == b'-')
                && o[3] == b':'
                && digits(&rest[1..3], 2).is_some_and(|h| h <= 23)
                && digits(&rest[4..6], 2).is_some_and(|m| m <= 59)
        }
    }
}

/// An e-mail address: a dot-atom local part (at most 64 octets), `@`, and a
/// host name or a bracketed IP literal. Quoted local parts are not accepted.
pub fn is_email(s: &str) -> bool {
    let Some(at) = s.bytes().rposition(|b| b == b'@') else { return false };
    let (local, domain) = (&s[..at], &s[at + 1..]);
    // `atext`, byte by byte: every byte of a non-ASCII character is >= 0x80.
    let atext = |c: &u8| c.is_ascii_alphanumeric() || matches!(c, b'!' | b'#' | b'$' | b'%' | b'&' | b'\'' | b'*' | b'+' | b'-' | b'/' | b'=' | b'?' | b'^' | b'_' | b'`' | b'{' | b'|' | b'}' | b'~') || !c.is_ascii();
    let local_ok = !local.is_empty()
        && local.len() <= 64
        && local.as_bytes().split(|c| *c == b'.').all(|part| !part.is_empty() && part.iter().all(atext));
    let domain_ok = match domain.strip_prefix('[').and_then(|d| d.strip_suffix(']')) {
        Some(lit) => match lit.strip_prefix("IPv6:") {
            Some(v6) => v6.parse::<std::net::Ipv6Addr>().is_ok(),
            None => lit.parse::<std::net::Ipv4Addr>().is_ok(),
        },
        None => is_hostname(domain),
    };
    local_ok && domain_ok
}

/// An RFC 1123 host name: dot-separated labels of letters, digits and inner
/// hyphens, each 1–63 octets, 253 in all.
pub fn is_hostname(s: &str) -> bool {
    let s = s.strip_suffix('.').unwrap_or(s);
    !s.is_empty()
        && s.len() <= 253
        && s.as_bytes().split(|c| *c == b'.').all(|b| {
            !b.is_empty()
                && b.len() <= 63
                && b.iter().all(|c| c.is_ascii_alphanumeric() || *c == b'-')
                && b[0] != b'-'
                && b[b.len() - 1] != b'-'
        })
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

/// An absolute URI: a scheme, `:`, and a valid reference body.
pub fn is_uri(s: &str) -> bool {
    match s.split_once(':') {
        Some((scheme, rest)) => is_scheme(scheme) && is_reference_body(rest),
        None => false,
    }
}

/// A URI or a relative reference.
pub fn is_uri_reference(s: &str) -> bool {
    match s.split_once(':') {
        Some((scheme, rest)) if is_scheme(scheme) => is_reference_body(rest),
        _ => is_reference_body(s) && !s.split(['/', '?', '#']).next().unwrap_or("").contains(':'),
    }
}

fn is_scheme(s: &str) -> bool {
    let mut chars = s.chars();
    chars.next().is_some_and(|c| c.is_ascii_alphabetic())
        && chars.all(|c| c.is_ascii_alphanumeric() || matches!(c, '+' | '-' | '.'))
}

/// RFC 3986 characters only, `%` followed by two hex digits, at most one `#`,
/// and a valid authority when there is one.
fn is_reference_body(s: &str) -> bool {
    let b = s.as_bytes();
    let mut i = 0;
    while i < b.len() {
        let c = b[i];
        if c == b'%' {
            if i + 2 >= b.len() || !(b[i + 1].is_ascii_hexdigit() && b[i + 2].is_ascii_hexdigit()) {
                return false;
            }
            i += 3;
            continue;
        }
        let allowed = c.is_ascii_alphanumeric() || b"-._~:/?#[]@!$&'()*+,;=".contains(&c);
        if !allowed {
            return false;
        }
        i += 1;
    }
    if s.matches('#').count() > 1 {
        return false;
    }
    match s.strip_prefix("//") {
        Some(rest) => {
            let authority = rest.split(['/', '?', '#']).next().unwrap_or("");
            let host_port = authority.rsplit_once('@').map_or(authority, |(_, h)| h);
            if let Some(v6) = host_port.strip_prefix('[') {
                return v6.split_once(']').is_some_and(|(addr, port)| {
                    addr.parse::<std::net::Ipv6Addr>().is_ok() && (port.is_empty() || is_port(port))
                });
            }
            match host_port.rsplit_once(':') {
                Some((host, port)) => !host.contains(['[', ']']) && is_port(port),
                None => !host_port.contains(['[', ']']),
            }
        }
        None => true,
    }
}

fn is_port(p: &str) -> bool {
    p.strip_prefix(':').unwrap_or(p).bytes().all(|b| b.is_ascii_digit())
}

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
}
