//! Resolving a call allocates in proportion to its size: peak heap use while
//! resolving a 1 MiB call, measured with a counting allocator.

use std::alloc::{GlobalAlloc, Layout, System};
use std::sync::atomic::{AtomicUsize, Ordering};

struct Counting;

static CURRENT: AtomicUsize = AtomicUsize::new(0);
static PEAK: AtomicUsize = AtomicUsize::new(0);

unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        let now = CURRENT.fetch_add(layout.size(), Ordering::Relaxed) + layout.size();
        PEAK.fetch_max(now, Ordering::Relaxed);
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

/// Peak bytes allocated (above what was live before) while running `f`.
fn peak_during(f: impl FnOnce()) -> usize {
    let base = CURRENT.load(Ordering::Relaxed);
    PEAK.store(base, Ordering::Relaxed);
    f();
    PEAK.load(Ordering::Relaxed) - base
}

#[test]
fn a_one_mib_call_peaks_at_a_small_multiple_of_its_size() {
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
