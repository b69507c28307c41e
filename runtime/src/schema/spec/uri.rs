//! URI references as `$id`, `$ref` and `$dynamicRef` use them: RFC 3986
//! section 5.2 resolution against a base, and the fragment split off.

/// The parts of a URI reference (RFC 3986 section 4.1); `None` where the part is absent.
struct Parts<'a> {
    scheme: Option<&'a str>,
    authority: Option<&'a str>,
    path: &'a str,
    query: Option<&'a str>,
    fragment: Option<&'a str>,
}

fn split(s: &str) -> Parts<'_> {
    let (rest, fragment) = match s.split_once('#') {
        Some((r, f)) => (r, Some(f)),
        None => (s, None),
    };
    let (rest, query) = match rest.split_once('?') {
        Some((r, q)) => (r, Some(q)),
        None => (rest, None),
    };
    let scheme_end = rest.find(':').filter(|&i| {
        let scheme = &rest[..i];
        !scheme.is_empty() && scheme.starts_with(|c: char| c.is_ascii_alphabetic()) && scheme.chars().all(|c| c.is_ascii_alphanumeric() || matches!(c, '+' | '-' | '.')) && !rest[..i].contains('/')
    });
    let (scheme, rest) = match scheme_end {
        Some(i) => (Some(&rest[..i]), &rest[i + 1..]),
        None => (None, rest),
    };
    let (authority, path) = match rest.strip_prefix("//") {
        Some(r) => {
            let end = r.find('/').unwrap_or(r.len());
            (Some(&r[..end]), &r[end..])
        }
        None => (None, rest),
    };
    Parts { scheme, authority, path, query, fragment }
}

/// RFC 3986 section 5.2.4.
fn remove_dot_segments(path: &str) -> String {
    let mut input = path;
    let mut out: Vec<&str> = Vec::new();
    let absolute = path.starts_with('/');
    let mut trailing = false;
    while !input.is_empty() {
        let (segment, rest) = match input.trim_start_matches('/').split_once('/') {
            Some((seg, rest)) => (seg, Some(rest)),
            None => (input.trim_start_matches('/'), None),
        };
        trailing = rest.is_some_and(str::is_empty) || matches!(segment, "." | "..");
        match segment {
            "." => {}
            ".." => {
                out.pop();
            }
            s => out.push(s),
        }
        input = match rest {
            Some(r) if !r.is_empty() => &input[input.len() - r.len() - 1..],
            _ => "",
        };
    }
    let mut s = if absolute { String::from("/") } else { String::new() };
    s.push_str(&out.join("/"));
    if trailing && !s.ends_with('/') {
        s.push('/');
    }
    s
}

fn merge_paths(base: &Parts<'_>, reference: &str) -> String {
    if base.authority.is_some() && base.path.is_empty() {
        return format!("/{reference}");
    }
    match base.path.rfind('/') {
        Some(i) => format!("{}{}", &base.path[..=i], reference),
        None => reference.to_owned(),
    }
}

fn recompose(scheme: Option<&str>, authority: Option<&str>, path: &str, query: Option<&str>, fragment: Option<&str>) -> String {
    let mut s = String::new();
    if let Some(x) = scheme {
        s.push_str(x);
        s.push(':');
    }
    if let Some(a) = authority {
        s.push_str("//");
        s.push_str(a);
    }
    s.push_str(path);
    if let Some(q) = query {
        s.push('?');
        s.push_str(q);
    }
    if let Some(f) = fragment {
        s.push('#');
        s.push_str(f);
    }
    s
}

/// `reference` resolved against `base` (RFC 3986 section 5.2.2).
pub(super) fn resolve(base: &str, reference: &str) -> String {
    let r = split(reference);
    let b = split(base);
    if r.scheme.is_some() {
        let path = remove_dot_segments(r.path);
        return recompose(r.scheme, r.authority, &path, r.query, r.fragment);
    }
    if r.authority.is_some() {
        return recompose(b.scheme, r.authority, &remove_dot_segments(r.path), r.query, r.fragment);
    }
    if r.path.is_empty() {
        return recompose(b.scheme, b.authority, b.path, r.query.or(b.query), r.fragment);
    }
    let path = if r.path.starts_with('/') { remove_dot_segments(r.path) } else { remove_dot_segments(&merge_paths(&b, r.path)) };
    recompose(b.scheme, b.authority, &path, r.query, r.fragment)
}

/// The URI without its fragment, and the fragment (empty when there is none).
pub(super) fn split_fragment(uri: &str) -> (&str, &str) {
    match uri.split_once('#') {
        Some((u, f)) => (u, f),
        None => (uri, ""),
    }
}

/// RFC 3986 percent-decoding of a fragment (a JSON pointer may be percent-encoded in a URI).
pub(in crate::schema) fn percent_decode(s: &str) -> String {
    let b = s.as_bytes();
    let mut out = Vec::with_capacity(b.len());
    let mut i = 0;
    while i < b.len() {
        if b[i] == b'%'
            && i + 2 < b.len()
            && let Ok(v) = u8::from_str_radix(&s[i + 1..i + 3], 16)
        {
            out.push(v);
            i += 3;
            continue;
        }
        out.push(b[i]);
        i += 1;
    }
    String::from_utf8_lossy(&out).into_owned()
}

#[cfg(test)]
mod tests {
    use super::resolve;

    #[test]
    fn rfc3986_examples() {
        let base = "http://a/b/c/d;p?q";
        for (r, want) in [
            ("g:h", "g:h"),
            ("g", "http://a/b/c/g"),
            ("./g", "http://a/b/c/g"),
            ("g/", "http://a/b/c/g/"),
            ("/g", "http://a/g"),
            ("//g", "http://g"),
            ("?y", "http://a/b/c/d;p?y"),
            ("#s", "http://a/b/c/d;p?q#s"),
            ("", "http://a/b/c/d;p?q"),
            (".", "http://a/b/c/"),
            ("..", "http://a/b/"),
            ("../g", "http://a/b/g"),
            ("../..", "http://a/"),
            ("../../g", "http://a/g"),
            ("../../../g", "http://a/g"),
            ("g.", "http://a/b/c/g."),
            ("./../g", "http://a/b/g"),
            ("g;x=1/../y", "http://a/b/c/y"),
        ] {
            assert_eq!(resolve(base, r), want, "{r}");
        }
        assert_eq!(resolve("urn:uuid:deadbeef-1234-ffff-ffff-4321feebdaed", "#/$defs/bar"), "urn:uuid:deadbeef-1234-ffff-ffff-4321feebdaed#/$defs/bar");
        assert_eq!(resolve("http://localhost:1234/draft2020-12/tree", "node"), "http://localhost:1234/draft2020-12/node");
    }
}
