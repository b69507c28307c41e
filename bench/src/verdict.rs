//! How the resolver classifies one real call: its class, whether a lenient
//! bridge would accept it, and a short example text. The live table counts
//! these verdicts; the oracle checks each of them.

use toolseal::{Class, Options, Reason, Rejection};
use toolseal_runtime::dynamic::DynamicRegistry;

use crate::corpus::Call;

/// How the resolver classified one call.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Verdict {
    /// `None`: accepted; else the rejection's class.
    pub class: Option<Class>,
    /// An H3 whose every violation is a number in a string: a lenient bridge coerces and accepts it.
    pub numeric_string: bool,
    /// A short description of what is wrong, to count the commonest examples.
    pub example: String,
}

/// Resolves one call, strictly, then leniently when strict resolution found a number in a string.
pub fn classify(registry: &DynamicRegistry, call: &Call) -> Verdict {
    let bytes = call.bytes();
    match registry.resolve(&bytes, &Options::strict()) {
        Ok(_) => Verdict { class: None, numeric_string: false, example: String::new() },
        Err(r) => {
            let numeric_string = r.class() == Class::H3 && registry.resolve(&bytes, &Options::lenient()).is_ok();
            Verdict { class: Some(r.class()), numeric_string, example: example(&r, numeric_string) }
        }
    }
}

fn example(r: &Rejection, numeric_string: bool) -> String {
    let tool = r.tool().unwrap_or("?");
    let text = match r.reason() {
        Reason::UnknownTool => format!("unknown tool {tool:?}"),
        Reason::UndeclaredKey { key } => format!("{tool}: undeclared key {key:?}"),
        Reason::MissingKey { key } => format!("{tool}: missing key {key:?}"),
        Reason::DuplicateKey { key } => format!("{tool}: duplicate key {key:?}"),
        _ if r.class() == Class::H3 => {
            format!("{tool} {}: expected {}, found {}{}", r.pointer(), r.expected().unwrap_or("?"), r.found().map(|k| k.as_str()).unwrap_or("?"), if numeric_string { " (numeric string)" } else { "" })
        }
        _ => r.to_string(),
    };
    text.chars().take(120).collect()
}
