//! The study's worked example, resolved before any gate sees it:
//! `transfer_funds(recipient_id="acct-7", amount="all of it", override=true)`.
//!
//! Part 1 resolves calls alone; part 2 runs them through the typestate
//! pipeline (resolve → contract → gate → execute → verify) with a `#[toolset]`
//! implementation and writes the audit trail as JSON lines; part 3 answers a
//! parallel Anthropic reply call by call, in Anthropic's format.

mod tools;

// Generated items are `pub` (a library re-exports them); a binary reaches them only here.
#[allow(unreachable_pub)]
mod bank {
    toolseal::include_registry!("bank");
}

use bank::ToolCall;

fn show(label: &str, call: &str) {
    println!("{label}\n  call:   {call}");
    match ToolCall::from_json(call.as_bytes()) {
        Ok(resolved) => {
            println!("  ACCEPT {} (digest {}…)", resolved.name(), &resolved.info().digest[..12]);
            println!("         typed: {resolved:?}");
        }
        Err(rejection) => {
            println!("  REJECT class={} pointer={}", rejection.class(), rejection.pointer());
            println!("         feedback: {rejection}");
        }
    }
    println!();
}

fn resolution() {
    show(
        "1. The hallucinated call: an undeclared `override` key (H2) beside a non-numeric amount.",
        r#"{"name":"transfer_funds","arguments":{"recipient_id":"acct-7","amount":"all of it","override":true}}"#,
    );
    show("2. Without `override`: the amount is still not a number (H3).", r#"{"name":"transfer_funds","arguments":{"recipient_id":"acct-7","amount":"all of it"}}"#);
    show("3. A tool that does not exist (H1), with the closest registry names as hints.", r#"{"name":"transfer_fund","arguments":{"recipient_id":"acct-7","amount":10}}"#);
    show("4. A duplicated key (H2): parsers disagree on which value wins.", r#"{"name":"transfer_funds","arguments":{"recipient_id":"acct-7","amount":1,"amount":1000000}}"#);
    show("5. An honest call: accepted, the default currency applied.", r#"{"name":"transfer_funds","arguments":{"recipient_id":"acct-7","amount":25.5}}"#);
    match ToolCall::from_json(br#"{"name":"transfer_funds","arguments":{"recipient_id":"acct-7","amount":25.5}}"#) {
        Ok(ToolCall::TransferFunds(args)) => {
            println!("The typed arguments a tool implementation receives:");
            println!("  recipient_id = {}", args.recipient_id.get());
            println!("  amount       = {}", args.amount.get());
            println!("  currency     = {}", args.currency.as_str());
        }
        other => println!("unexpected: {other:?}"),
    }
}

fn main() {
    println!("== 1. Resolution alone ==\n");
    resolution();
    println!("== 2. The pipeline: resolve -> contract -> gate (H4) -> execute -> verify ==\n");
    tools::pipeline();
    println!("== 3. One Anthropic reply with parallel calls, answered call by call ==\n");
    tools::wire();
}
