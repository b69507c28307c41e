//! Arbitrary bytes as a call against every fixture registry: the generated enum
//! and the dynamic resolver never panic and agree on accept/reject, class and pointer;
//! the generated enum's fused reader never builds another call than its tree, nor
//! accepts or rejects what the tree does not.
#![no_main]

use libfuzzer_sys::fuzz_target;
use std::sync::OnceLock;
use toolseal_runtime::dynamic::DynamicRegistry;
use toolseal_runtime::registry::read_registry;
use toolseal_runtime::schema::CompileOptions;
use toolseal::Options;
use toolseal_fixtures::{Reading, FIXTURES};

fn dynamic() -> &'static [DynamicRegistry] {
    static D: OnceLock<Vec<DynamicRegistry>> = OnceLock::new();
    D.get_or_init(|| {
        FIXTURES
            .iter()
            .map(|f| {
                let bytes = std::fs::read(std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("..").join(f.path)).expect("fixture");
                DynamicRegistry::new(&read_registry(&bytes).expect("registry"), &CompileOptions::default())
            })
            .collect()
    })
}

fuzz_target!(|data: &[u8]| {
    for fixture in FIXTURES {
        if let Reading::Differs(why) = (fixture.reads)(data) {
            panic!("{}: the fused reader and the tree differ: {why}", fixture.module);
        }
    }
    for options in [Options::strict(), Options::lenient()] {
        for (fixture, dynamic) in FIXTURES.iter().zip(dynamic()) {
            let generated = (fixture.resolve)(data, &options).map(|r| r.name).map_err(|r| (r.class(), r.pointer().to_owned()));
            let dynamic = dynamic.resolve(data, &options).map(|c| c.name).map_err(|r| (r.class(), r.pointer().to_owned()));
            match (&generated, &dynamic) {
                (Ok(a), Ok(b)) => assert_eq!(*a, b.as_ref(), "{}", fixture.module),
                (Err(a), Err(b)) => assert_eq!(a, b, "{}", fixture.module),
                _ => panic!("{}: generated {generated:?} vs dynamic {dynamic:?}", fixture.module),
            }
        }
    }
});
