//! RFC 8785 (JCS) canonical JSON and SHA-256 digests of tool definitions.

use sha2::{Digest, Sha256};

use crate::json::{Json, Number};

/// The RFC 8785 canonical form of `v`: members sorted by UTF-16 code units,
/// no whitespace, ECMAScript number and string serialization.
pub fn canonical_json(v: &Json<'_>) -> String {
    let mut out = String::new();
    write(v, &mut out);
    out
}

fn write(v: &Json<'_>, out: &mut String) {
    match v {
        Json::Null => out.push_str("null"),
        Json::Bool(b) => out.push_str(if *b { "true" } else { "false" }),
        Json::Number(n) => {
            let x = match *n {
                Number::PosInt(u) => u as f64,
                Number::NegInt(i) => i as f64,
                Number::Float(f) => f,
            };
            let mut buf = ryu_js::Buffer::new();
            out.push_str(buf.format(x));
        }
        Json::String(s) => write_string(s, out),
        Json::Array(a) => {
            out.push('[');
            for (i, x) in a.iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                write(x, out);
            }
            out.push(']');
        }
        Json::Object(o) => {
            let mut members: Vec<(Vec<u16>, &str, &Json<'_>)> = o.iter().map(|(k, v)| (k.encode_utf16().collect(), k.as_ref(), v)).collect();
            members.sort_by(|a, b| a.0.cmp(&b.0));
            out.push('{');
            for (i, (_, k, v)) in members.iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                write_string(k, out);
                out.push(':');
                write(v, out);
            }
            out.push('}');
        }
    }
}

fn write_string(s: &str, out: &mut String) {
    out.push('"');
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\u{8}' => out.push_str("\\b"),
            '\u{c}' => out.push_str("\\f"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            c if (c as u32) < 0x20 => out.push_str(&format!("\\u{:04x}", c as u32)),
            c => out.push(c),
        }
    }
    out.push('"');
}

/// Lowercase hex SHA-256 of `bytes`.
pub fn sha256_hex(bytes: &[u8]) -> String {
    let digest = Sha256::digest(bytes);
    let mut out = String::with_capacity(64);
    for b in digest {
        out.push_str(&format!("{b:02x}"));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rfc8785_examples() {
        let j = Json::parse(br#"{"b":[1.0,-0,1e21,0.000001,1e-7],"a":"\u20ac\n","\u00e9":true,"10":null}"#).unwrap();
        assert_eq!(canonical_json(&j), "{\"10\":null,\"a\":\"€\\n\",\"b\":[1,0,1e+21,0.000001,1e-7],\"é\":true}");
    }

    #[test]
    fn utf16_ordering() {
        // U+1F600 (surrogates D83D..) sorts before U+FB01 in UTF-16, after it in UTF-8.
        let j = Json::parse("{\"\u{fb01}\":1,\"\u{1f600}\":2}".as_bytes()).unwrap();
        assert!(canonical_json(&j).starts_with("{\"\u{1f600}\""));
    }
}
