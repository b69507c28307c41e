//! A rig 0.44 agent whose tools are the bank registry's, each call resolved
//! before its function runs. The model is rig's scripted completion model (no
//! network): it calls a tool that does not exist, sends an undeclared key,
//! then an honest call. The loop goes on after each refusal; the model reads
//! toolseal's feedback as that call's tool result.
//!
//! ```sh
//! cargo run -p agents --bin rig_agent
//! ```

use agents::bank;
use rig_agent::AgentBuilder;
use rig_core::message::{Message, UserContent};
use rig_core::test_utils::{MockCompletionModel, MockTurn};
use rig_core::tool::ToolOutput;
use serde_json::json;
use toolseal::Options;
use toolseal::rig::{InvalidCalls, sealed, tool_server};

#[tokio::main(flavor = "current_thread")]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    let model = MockCompletionModel::from_turns([
        MockTurn::tool_call("c1", "get_balanse", json!({ "account_id": "acct-7" })),
        MockTurn::tool_call("c2", "get_balance", json!({ "account_id": "acct-7", "currency": "EUR" })),
        MockTurn::tool_call("c3", "get_balance", json!({ "account_id": "acct-7" })),
        MockTurn::text("Your balance is 100.00."),
    ]);

    let tools = sealed::<bank::ToolCall, _, _>(Options::strict(), |call| async move { Ok(ToolOutput::text(agents::run(&call))) })?;
    let agent = AgentBuilder::new(model.clone()).tool_server_handle(tool_server(tools)).add_hook(InvalidCalls::of::<bank::ToolCall>()).build();
    let response = agent.prompt("What is my balance?").max_turns(4).await?;

    // What the model read after each of its calls.
    for request in model.requests().iter().skip(1) {
        if let Some(Message::User { content }) = request.chat_history.last() {
            for part in content {
                if let UserContent::ToolResult(r) = part {
                    let text: String = r.content.iter().filter_map(|c| c.as_text()).collect();
                    println!("{} {} (error: {}): {text}", r.call, r.name, r.is_error);
                }
            }
        }
    }
    println!("agent: {}", response.output());
    Ok(())
}
