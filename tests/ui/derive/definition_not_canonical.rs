// A tool set whose definition is not in the canonical form its digest is taken of.

#[derive(Debug, Clone, PartialEq, toolseal::Args)]
pub struct Args {}

#[derive(Debug, Clone, PartialEq, toolseal::ToolSet)]
pub enum Calls {
    #[toolseal(definition = r#"{"name":"a","inputSchema":{"type":"object"}}"#)]
    A(Args),
}

fn main() {}
