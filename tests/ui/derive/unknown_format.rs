// A format toolseal does not enforce: an error, never a constraint dropped.

#[derive(Debug, Clone, PartialEq, toolseal::Args)]
pub struct Paint {
    #[toolseal(format = "colour")]
    pub shade: String,
}

fn main() {}
