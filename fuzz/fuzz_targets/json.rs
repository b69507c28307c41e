//! Arbitrary bytes: toolseal's own JSON parser accepts exactly what `serde_json`
//! accepts and builds the same tree (member order, duplicates, number kinds;
//! floats correctly rounded, as `serde_json` rounds them with `float_roundtrip`);
//! `Reader::skip_value` accepts the same bytes.
#![no_main]

use libfuzzer_sys::fuzz_target;
use serde::Deserialize;
use toolseal_runtime::json::{Json, Reader};

fuzz_target!(|data: &[u8]| {
    let ours = Json::parse(data).ok().map(|tree| format!("{tree:?}"));
    let mut de = serde_json::Deserializer::from_slice(data);
    let theirs = Json::deserialize(&mut de).ok().map(|tree| format!("{tree:?}")).filter(|_| de.end().is_ok());
    assert_eq!(ours, theirs, "on {:?}", String::from_utf8_lossy(data));
    // Skipping (the same checks, nothing built) accepts the same bytes.
    let skipped = Reader::new(data).is_some_and(|mut r| r.skip_value().is_some() && r.at_end());
    assert_eq!(skipped, ours.is_some(), "skipping {:?}", String::from_utf8_lossy(data));
});
