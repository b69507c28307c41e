//! An rmcp server over stdio whose `#[tool]` functions take toolseal's
//! `Parameters<T>` of the generated arguments in place of rmcp's: an undeclared
//! key (H2) or a value outside the schema (H3) is answered as a tool result with
//! `isError: true` and the feedback, and the function is not called. The tools'
//! `inputSchema` is the one `T` enforces.
//!
//! With `--guarded` the same server is also wrapped whole in a `GuardedServer`
//! against the sealed registry (the server implements each of its tools): calls
//! are resolved before rmcp's router, the answer carries the structured
//! feedback, and an unknown tool (H1) names the closest tools.
//!
//! When `BANK_RUNS` names a file, each function that runs appends its tool's name
//! to it (scripts/check_agents.sh counts them).
//!
//! ```sh
//! cargo run -p agents --bin rmcp_bank [-- --guarded]
//! ```

use std::io::Write;

use agents::bank;
use rmcp::handler::server::router::tool::ToolRouter;
use rmcp::model::{ServerCapabilities, ServerConfig};
use rmcp::{ServerHandler, ServiceExt, tool, tool_handler, tool_router};
use toolseal::guard::{GuardedServer, Parameters, Sealed};

#[derive(Clone)]
struct Bank {
    tool_router: ToolRouter<Self>,
}

#[tool_router]
impl Bank {
    #[tool(description = "Transfer money from the user's account to a recipient.")]
    fn transfer_funds(&self, Parameters(args): Parameters<bank::TransferFundsArgs>) -> String {
        ran("transfer_funds");
        agents::run(&bank::ToolCall::TransferFunds(args))
    }

    #[tool(description = "Current balance of one of the user's accounts.")]
    fn get_balance(&self, Parameters(args): Parameters<bank::GetBalanceArgs>) -> String {
        ran("get_balance");
        agents::run(&bank::ToolCall::GetBalance(args))
    }

    #[tool(description = "Recent transactions of an account.")]
    fn list_transactions(&self, Parameters(args): Parameters<bank::ListTransactionsArgs>) -> String {
        ran("list_transactions");
        agents::run(&bank::ToolCall::ListTransactions(args))
    }

    #[tool(description = "Freeze an account.")]
    fn freeze_account(&self, Parameters(args): Parameters<bank::FreezeAccountArgs>) -> String {
        ran("freeze_account");
        agents::run(&bank::ToolCall::FreezeAccount(args))
    }
}

#[tool_handler(router = self.tool_router)]
impl ServerHandler for Bank {
    fn get_info(&self) -> ServerConfig {
        ServerConfig::new(ServerCapabilities::builder().enable_tools().build())
    }
}

/// Records that a function ran (when `BANK_RUNS` names a file).
fn ran(tool: &str) {
    if let Some(path) = std::env::var_os("BANK_RUNS")
        && let Ok(mut file) = std::fs::OpenOptions::new().create(true).append(true).open(path)
    {
        let _ = writeln!(file, "{tool}");
    }
}

#[tokio::main(flavor = "current_thread")]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    let server = Bank { tool_router: Bank::tool_router() };
    let running = if std::env::args().any(|a| a == "--guarded") {
        GuardedServer::new(server, Sealed::<bank::ToolCall>::new()).serve(rmcp::transport::stdio()).await?.waiting().await
    } else {
        server.serve(rmcp::transport::stdio()).await?.waiting().await
    };
    running?;
    Ok(())
}
