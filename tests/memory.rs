//! Resolving a call allocates in proportion to its size: peak heap use while
//! resolving a 1 MiB call, measured with a counting allocator; and an accepted
//! call allocates nothing beyond its typed value.

use std::alloc::{GlobalAlloc, Layout, System};
use std::cell::Cell;
use std::sync::Mutex;
use std::sync::atomic::{AtomicUsize, Ordering};

struct Counting;

static CURRENT: AtomicUsize = AtomicUsize::new(0);
static PEAK: AtomicUsize = AtomicUsize::new(0);

thread_local! {
    /// Allocations made by this thread (tests run side by side on other threads).
    static ALLOCATIONS: Cell<usize> = const { Cell::new(0) };
}

unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        let now = CURRENT.fetch_add(layout.size(), Ordering::Relaxed) + layout.size();
        PEAK.fetch_max(now, Ordering::Relaxed);
        let _ = ALLOCATIONS.try_with(|n| n.set(n.get() + 1));
        // SAFETY: forwarded unchanged to the system allocator.
        unsafe { System.alloc(layout) }
    }
    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        CURRENT.fetch_sub(layout.size(), Ordering::Relaxed);
        // SAFETY: forwarded unchanged to the system allocator.
        unsafe { System.dealloc(ptr, layout) }
    }
}

#[global_allocator]
static ALLOCATOR: Counting = Counting;

/// Held by each test: the peak is counted over every thread, so one test runs at a time.
static ONE_AT_A_TIME: Mutex<()> = Mutex::new(());

/// Peak bytes allocated (above what was live before) while running `f`.
fn peak_during(f: impl FnOnce()) -> usize {
    let base = CURRENT.load(Ordering::Relaxed);
    PEAK.store(base, Ordering::Relaxed);
    f();
    PEAK.load(Ordering::Relaxed) - base
}

#[test]
fn a_one_mib_call_peaks_at_a_small_multiple_of_its_size() {
    let _one = ONE_AT_A_TIME.lock().unwrap_or_else(|e| e.into_inner());
    let text = "x".repeat((1 << 20) - 200);
    let call = format!(r#"{{"name":"echo","arguments":{{"text":"{text}","times":2}}}}"#);
    assert!(call.len() <= 1 << 20);
    let generated = peak_during(|| {
        let resolved = toolseal_fixtures::calc::ToolCall::from_json(call.as_bytes()).expect("accepted");
        drop(resolved);
    });
    let escaped = format!(r#"{{"name":"echo","arguments":{{"text":"{}","times":2}}}}"#, "\\n".repeat((1 << 19) - 100));
    let with_escapes = peak_during(|| {
        let resolved = toolseal_fixtures::calc::ToolCall::from_json(escaped.as_bytes()).expect("accepted");
        drop(resolved);
    });
    let bad = call.replace("\"times\":2", "\"times\":\"2\"");
    let rejected = peak_during(|| {
        let r = toolseal_fixtures::calc::ToolCall::from_json(bad.as_bytes()).expect_err("H3");
        assert!(r.to_string().len() < 300, "the rejection does not carry the input");
    });
    println!("peak heap while resolving a 1 MiB call: accepted {generated} B, with escapes {with_escapes} B, rejected {rejected} B (input {} B)", call.len());
    let size = call.len();
    assert!(generated <= 2 * size, "{generated} bytes for a {size}-byte call");
    assert!(with_escapes <= 2 * size, "{with_escapes} bytes for a {size}-byte call");
    assert!(rejected <= 2 * size, "{rejected} bytes for a {size}-byte call");
}

/// How many allocations `f` makes on this thread.
fn allocations_during(f: impl FnOnce()) -> usize {
    let before = ALLOCATIONS.with(Cell::get);
    f();
    ALLOCATIONS.with(Cell::get) - before
}

#[test]
fn an_accepted_call_allocates_only_its_typed_value() {
    let _one = ONE_AT_A_TIME.lock().unwrap_or_else(|e| e.into_inner());
    use toolseal_fixtures::calc::ToolCall;
    // Its typed value owns one `String` (the text) or nothing; the call is read
    // from its bytes, name first or arguments first, without a tree.
    for (call, owned) in [
        (r#"{"name":"get-sum","arguments":{"a":1,"b":2}}"#, 0),
        (r#"{"arguments":{"b":2,"a":1},"name":"get-sum"}"#, 0),
        (r#"{"name":"type","arguments":{}}"#, 0),
        (r#"{"name":"echo","arguments":{"text":"hello","shout":true}}"#, 1),
        (r#" { "arguments" : { "times" : 3 , "text" : "hi" } , "name" : "echo" } "#, 1),
    ] {
        // Once first: what is built on first use (lookup tables) is not the call's.
        drop(ToolCall::from_json(call.as_bytes()));
        let mut resolved = None;
        let made = allocations_during(|| resolved = Some(ToolCall::from_json(call.as_bytes()).expect("accepted")));
        assert_eq!(made, owned, "{call}");
        drop(resolved);
    }
    // A rejection is worth its allocations: the tree, the rejection.
    let rejected = allocations_during(|| drop(ToolCall::from_json(br#"{"name":"get-sum","arguments":{"a":1,"b":"2"}}"#).expect_err("H3")));
    assert!(rejected > 0);
}
