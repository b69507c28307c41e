// A string's constraint on a number, and a pattern that does not compile.

#[derive(Debug, Clone, PartialEq, toolseal::Args)]
pub struct Order {
    #[toolseal(max_length = 3)]
    pub count: i64,
    #[toolseal(pattern = "([a-z]")]
    pub code: String,
}

fn main() {}
