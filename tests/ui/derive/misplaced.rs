// Attributes where they do not apply: an error each, never a constraint silently dropped.

#[derive(Debug, Clone, PartialEq, toolseal::Args)]
pub struct Name(#[toolseal(max_length = 3)] String);

#[derive(Debug, Clone, PartialEq, toolseal::Args)]
#[toolseal(never, min_length = 1)]
pub struct Order {
    #[toolseal(any)]
    pub count: i64,
}

#[derive(Debug, Clone, PartialEq, toolseal::Args)]
#[toolseal(tuple, pattern = "x")]
pub struct Pair(#[toolseal(max_length = 3)] pub Option<String>, pub Option<i64>);

fn main() {}
