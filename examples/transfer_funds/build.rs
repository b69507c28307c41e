fn main() -> Result<(), toolseal_build::Error> {
    toolseal_build::Config::new().registry("registry/bank.json").module("bank").compile()
}
