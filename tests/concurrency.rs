//! Resolvers under load: 8 threads resolve a mixed stream while the dynamic
//! resolver's listing is swapped 1,000 times. Every call is resolved against
//! exactly one listing (its verdict is the one that listing gives), none is
//! lost, and the audit records of a shared pipeline add up.

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};

use toolseal::pipeline::{Authorized, FrontierGate, MemorySink, Pipeline};
use toolseal::{Class, Options};
use toolseal_fixtures::bank::ToolCall;
use toolseal_runtime::dynamic::{DynamicRegistry, LiveRegistry};
use toolseal_runtime::registry::read_registry;
use toolseal_runtime::schema::CompileOptions;

/// Listing `v`: tool `alpha` in even versions, `beta` in odd ones; both take `n` with maximum `v`.
fn listing(v: u64) -> DynamicRegistry {
    let name = if v.is_multiple_of(2) { "alpha" } else { "beta" };
    let text = format!(
        r#"{{"tools":[{{"name":"{name}","inputSchema":{{"type":"object","properties":{{"n":{{"type":"integer","maximum":{v}}}}},"additionalProperties":false}}}},{{"name":"stable","inputSchema":{{"type":"object"}}}}]}}"#
    );
    DynamicRegistry::new(&read_registry(text.as_bytes()).expect("registry"), &CompileOptions::default())
}

#[test]
fn calls_resolve_against_exactly_one_listing_while_it_is_swapped() {
    let live = Arc::new(LiveRegistry::new(listing(0)));
    let done = Arc::new(AtomicBool::new(false));
    let resolved = Arc::new(AtomicUsize::new(0));
    let calls = [r#"{"name":"alpha","arguments":{"n":500}}"#, r#"{"name":"beta","arguments":{"n":500}}"#, r#"{"name":"stable","arguments":{}}"#, r#"{"name":"alpha","arguments":{"n":"x"}}"#];
    let workers: Vec<_> = (0..8)
        .map(|t| {
            let (live, done, resolved) = (live.clone(), done.clone(), resolved.clone());
            std::thread::spawn(move || {
                let mut i = t;
                let mut count = 0usize;
                while !done.load(Ordering::Acquire) || count < 1_000 {
                    let call = calls[i % calls.len()];
                    let (version, verdict) = live.resolve(call.as_bytes(), &Options::strict());
                    // The verdict must be exactly the one listing `version` gives.
                    let expected = listing(version).resolve(call.as_bytes(), &Options::strict());
                    assert_eq!(
                        verdict.as_ref().map(|c| c.name.clone()).map_err(|r| (r.class(), r.pointer().to_owned())),
                        expected.as_ref().map(|c| c.name.clone()).map_err(|r| (r.class(), r.pointer().to_owned())),
                        "{call} at version {version}"
                    );
                    if call.contains("500") && verdict.is_ok() {
                        assert!(version >= 500, "n = 500 fits only listings with maximum >= 500");
                    }
                    i += 1;
                    count += 1;
                }
                resolved.fetch_add(count, Ordering::Relaxed);
                count
            })
        })
        .collect();
    for v in 1..=1_000 {
        assert_eq!(live.swap(listing(v)), v);
    }
    done.store(true, Ordering::Release);
    let per_thread: Vec<usize> = workers.into_iter().map(|w| w.join().expect("no thread panicked")).collect();
    assert_eq!(per_thread.iter().sum::<usize>(), resolved.load(Ordering::Relaxed), "no call lost");
    assert_eq!(live.snapshot().0, 1_000);
}

#[test]
fn a_shared_pipeline_keeps_one_record_per_call_under_load() {
    let sink = Arc::new(MemorySink::new());
    let pipeline = Arc::new(Pipeline::new(FrontierGate::new().allow((), ["get_balance"])).audit(sink.clone()));
    let executed = Arc::new(AtomicUsize::new(0));
    let threads: Vec<_> = (0..8)
        .map(|t| {
            let (pipeline, executed) = (pipeline.clone(), executed.clone());
            std::thread::spawn(move || {
                for i in 0..500 {
                    let call = if (t + i) % 3 == 0 { r#"{"name":"wipe","arguments":{}}"# } else { r#"{"name":"get_balance","arguments":{"account_id":"acct-1"}}"# };
                    pipeline.run(call.as_bytes(), &(), &|_: Authorized<ToolCall>| {
                        executed.fetch_add(1, Ordering::Relaxed);
                        Ok::<_, String>(())
                    });
                }
            })
        })
        .collect();
    for t in threads {
        t.join().expect("no thread panicked");
    }
    let records = sink.records();
    assert_eq!(records.len(), 4_000);
    assert_eq!(records.iter().filter(|r| r.executed).count(), executed.load(Ordering::Relaxed));
    assert_eq!(records.iter().filter(|r| r.rejection.as_ref().is_some_and(|x| x.class == Class::H1.as_str())).count() + executed.load(Ordering::Relaxed), 4_000);
}
