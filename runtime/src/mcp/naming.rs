//! Qualified names `(server, tool)` for model APIs: unique, stable across
//! restarts and connection order, at most 64 characters of `[a-zA-Z0-9_-]`
//! (the OpenAI, Bedrock and Gemini limit), and reversible through the catalog.

use crate::canonical::sha256_hex;

/// The longest qualified name (OpenAI, Bedrock and Gemini function names).
pub const MAX_LEN: usize = 64;

/// Hex digits of the hash a shortened or sanitized name carries.
const HASH_LEN: usize = 10;

/// Whether `name` can be a server name: 1 to 32 ASCII letters, digits or `-`.
/// No `_`, so that `__` in a qualified name always follows the server.
pub fn valid_server_name(name: &str) -> bool {
    !name.is_empty() && name.len() <= 32 && name.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'-')
}

fn allowed(c: char) -> bool {
    c.is_ascii_alphanumeric() || c == '_' || c == '-'
}

/// The shortest length [`qualified_name_within`] accepts: room for a readable
/// prefix beside the hash.
pub const MIN_LEN: usize = 2 * HASH_LEN + 1;

/// The qualified name of `tool` on `server`: `server__tool` when that fits and
/// needs no change; otherwise the sanitized, shortened form followed by `_` and
/// a hash of the exact `(server, tool)` pair — never a load-order suffix.
pub fn qualified_name(server: &str, tool: &str) -> String {
    qualified_name_within(server, tool, MAX_LEN)
}

/// [`qualified_name`] in at most `max_len` characters (clamped to
/// [`MIN_LEN`]`..=`[`MAX_LEN`]), for clients that add a prefix of their own
/// (`mcp__gateway__`) before the model's 64-character limit.
pub fn qualified_name_within(server: &str, tool: &str, max_len: usize) -> String {
    let max_len = max_len.clamp(MIN_LEN, MAX_LEN);
    let plain = format!("{server}__{tool}");
    if plain.len() <= max_len && plain.chars().all(allowed) {
        return plain;
    }
    let hash = sha256_hex(format!("{server}\0{tool}").as_bytes());
    let sanitized: String = plain.chars().map(|c| if allowed(c) { c } else { '_' }).collect();
    let keep = max_len - 1 - HASH_LEN;
    let prefix: String = sanitized.chars().take(keep).collect();
    format!("{prefix}_{}", &hash[..HASH_LEN])
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn plain_names_stay_readable() {
        assert_eq!(qualified_name("filesystem", "read_file"), "filesystem__read_file");
        assert_eq!(qualified_name("git", "git-log"), "git__git-log");
    }

    #[test]
    fn long_or_odd_names_are_shortened_with_a_stable_hash() {
        let long = "x".repeat(100);
        let a = qualified_name("fs", &long);
        assert_eq!(a.len(), MAX_LEN);
        assert_eq!(a, qualified_name("fs", &long), "stable");
        assert_ne!(qualified_name("fs", "math.add"), qualified_name("fs", "math_add"));
        assert!(qualified_name("fs", "math.add").chars().all(allowed));
        let budgeted = qualified_name_within("filesystem", "read_text_file", 24);
        assert_eq!(budgeted.len(), 24);
        assert!(budgeted.starts_with("filesystem__r") && budgeted != qualified_name_within("filesystem", "read_media_file", 24));
        assert_eq!(qualified_name_within("fs", "read", 24), "fs__read", "a name that fits is kept");
        assert!(!valid_server_name("a_b") && !valid_server_name("") && valid_server_name("server-everything"));
    }
}
