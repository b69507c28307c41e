// A registry module whose name is not a Rust identifier needs `module = path`.

#[toolseal::tool(registry = "type")]
fn echo(text: String) -> String {
    text
}

fn main() {}
