// Code-first: argument types and a tool set derived by hand, no registry file.

#[derive(Debug, Clone, PartialEq, toolseal::Args)]
pub struct Echo {
    #[toolseal(min_length = 1)]
    pub text: String,
    pub times: Option<i64>,
}

#[derive(Debug, Clone, PartialEq, toolseal::ToolSet)]
#[toolseal(registry = "by hand")]
pub enum Calls {
    /// Repeats a text.
    #[toolseal(definition = r#"{"inputSchema":{"properties":{"text":{"minLength":1,"type":"string"},"times":{"type":"integer"}},"required":["text"],"type":"object"},"name":"echo"}"#)]
    Echo(Echo),
}

fn main() {
    let call = Calls::from_json(br#"{"name": "echo", "arguments": {"text": "hi"}}"#).expect("resolves");
    assert_eq!(call.name(), "echo");
    assert!(Calls::from_json(br#"{"name": "echo", "arguments": {"text": ""}}"#).is_err());
}
