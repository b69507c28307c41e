// A registry module no build script compiled.

#[toolseal::tool(registry = "payments")]
fn refund(amount: f64) {
    let _ = amount;
}

fn main() {}
