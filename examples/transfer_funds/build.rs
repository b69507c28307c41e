fn main() -> Result<(), toolseal_build::Error> {
    toolseal_build::Config::new().registry_as("registry/bank.json", "bank").compile()
}
