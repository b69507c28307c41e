//! Arbitrary bytes as a model reply in any wire format: parsing, resolving each
//! call and rendering each answer never panic.
#![no_main]

use libfuzzer_sys::fuzz_target;
use toolseal::wire::{answer, parse_reply, reply, Answer};
use toolseal::Options;
use toolseal_fixtures::bank::ToolCall;

fuzz_target!(|data: &[u8]| {
    if let Ok(calls) = parse_reply(data, &Options::strict()) {
        let mut answers = Vec::new();
        for call in &calls {
            let out = match call.resolve::<ToolCall>(&Options::strict()) {
                Ok(r) => answer(call, &Answer::Output(&r.call.arguments())),
                Err(r) => answer(call, &Answer::Rejected(&r)),
            };
            answers.push(out);
        }
        if let Some(first) = calls.first() {
            let _ = reply(first.format, answers);
        }
    }
});
