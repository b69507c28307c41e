//! The official JSON-Schema-Test-Suite (vendored under `tests/suite`, rebuilt by
//! `scripts/vendor_json_schema_suite.sh`), draft 2020-12 and draft-07, run
//! three ways:
//! - the specification validator alone (`schema::spec`), on each schema as written:
//!   every test must agree, except the skips listed in `SKIPS` with their reason;
//! - each schema as the one argument `value` of a tool, through the dynamic
//!   resolver (`DynamicRegistry`) and through the generated enum
//!   (`toolseal_fixtures::suite`): every test must agree with the suite, or be a
//!   closed-world difference (the argument object is closed, and so is every
//!   object schema that declares `properties`), which is counted and listed.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use toolseal_runtime::check::Cx;
use toolseal_runtime::json::Json;
use toolseal_runtime::path::Path as JsonPath;
use toolseal_runtime::schema::spec::{SpecDoc, SpecOptions};

/// Groups not run, each with its reason: `(file, group description, reason)`.
const SKIPS: &[(&str, &str, &str)] = &[
    ("defs.json", "validate definition against metaschema", META),
    ("ref.json", "remote ref, containing refs itself", META),
    ("definitions.json", "validate definition against metaschema", META),
    ("vocabulary.json", "schema that uses custom metaschema with with no validation vocabulary", "`$vocabulary` in a custom meta-schema: toolseal enforces every vocabulary's keywords whatever the meta-schema declares (README: keyword table)"),
    ("optional/content.json", "validation of string-encoded content based on media type", CONTENT),
    ("optional/content.json", "validation of binary string-encoding", CONTENT),
    ("optional/content.json", "validation of binary-encoded media type documents", CONTENT),
];

/// Why the meta-schema groups are skipped.
const META: &str = "validates against the draft's official meta-schema, which is not bundled (toolseal never fetches a schema; `SpecOptions::documents` can bundle it)";

/// Why draft-07's optional content assertions are skipped.
const CONTENT: &str = "`contentMediaType` / `contentEncoding` are annotations, as draft 2019-09 and later specify (draft-07 makes asserting them optional)";

struct Group {
    file: String,
    description: String,
    schema: Json<'static>,
    tests: Vec<(String, Json<'static>, bool)>,
}

fn suite_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/suite")
}

fn parse(path: &Path) -> Json<'static> {
    let bytes = std::fs::read(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    Json::parse(&bytes).unwrap_or_else(|e| panic!("{}: {e}", path.display())).into_owned()
}

/// Every `.json` file below `dir`, sorted.
fn files(dir: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        for entry in std::fs::read_dir(&d).unwrap_or_else(|e| panic!("{}: {e}", d.display())) {
            let p = entry.unwrap().path();
            if p.is_dir() {
                stack.push(p);
            } else if p.extension().is_some_and(|e| e == "json") {
                out.push(p);
            }
        }
    }
    out.sort();
    out
}

/// The suite's remote documents, by the URI the suite serves them at.
fn remotes() -> Vec<(String, Json<'static>)> {
    let dir = suite_dir().join("remotes");
    files(&dir).into_iter().map(|p| (format!("http://localhost:1234/{}", p.strip_prefix(&dir).unwrap().to_string_lossy()), parse(&p))).collect()
}

fn groups(draft: &str) -> Vec<Group> {
    let dir = suite_dir().join("tests").join(draft);
    let mut out = Vec::new();
    for path in files(&dir) {
        let file = path.strip_prefix(&dir).unwrap().to_string_lossy().into_owned();
        let Json::Array(list) = parse(&path) else { panic!("{file}: not an array") };
        for g in list {
            let description = g.get("description").and_then(Json::as_str).unwrap().to_owned();
            let mut schema = g.get("schema").unwrap().clone();
            // The folder names the draft; a schema that does not say so itself gets its `$schema`.
            if draft == "draft7"
                && let Json::Object(m) = &mut schema
                && !m.iter().any(|(k, _)| k == "$schema") {
                    m.insert(0, ("$schema".into(), Json::String("http://json-schema.org/draft-07/schema#".into())));
                }
            let Some(Json::Array(tests)) = g.get("tests") else { panic!("{file}: no tests") };
            let tests = tests
                .iter()
                .map(|t| (t.get("description").and_then(Json::as_str).unwrap().to_owned(), t.get("data").unwrap().clone(), matches!(t.get("valid"), Some(Json::Bool(true)))))
                .collect();
            out.push(Group { file: file.clone(), description, schema, tests });
        }
    }
    out
}

/// `format` is an annotation in the required files and asserted in `optional/format/`.
fn asserts_formats(file: &str) -> bool {
    file.starts_with("optional/format")
}

fn skip_reason(file: &str, description: &str) -> Option<&'static str> {
    SKIPS.iter().find(|(f, d, _)| *f == file && *d == description).map(|(_, _, r)| *r)
}

#[derive(Default)]
struct Tally {
    groups: usize,
    tests: usize,
    agree: usize,
    skipped: usize,
    disagreements: Vec<String>,
}

fn run_spec(draft: &str, remotes: &[(String, Json<'static>)]) -> Tally {
    let mut t = Tally::default();
    for g in groups(draft) {
        t.groups += 1;
        if skip_reason(&g.file, &g.description).is_some() {
            t.skipped += g.tests.len();
            continue;
        }
        let options = SpecOptions { assert_formats: asserts_formats(&g.file), documents: remotes.to_vec() };
        let doc = match SpecDoc::compile(&g.schema, &options) {
            Ok(d) => d,
            Err(e) => {
                t.tests += g.tests.len();
                t.disagreements.push(format!("{draft}/{} | {} | does not compile: {e}", g.file, g.description));
                continue;
            }
        };
        for (description, data, valid) in &g.tests {
            t.tests += 1;
            let got = doc.validate_at(doc.root(), data, &JsonPath::root(), &mut Cx::strict());
            if got.is_ok() == *valid {
                t.agree += 1;
            } else {
                t.disagreements.push(format!("{draft}/{} | {} | {description} | suite: {valid}, toolseal: {:?}", g.file, g.description, got.err().map(|e| e.to_string())));
            }
        }
    }
    t
}

#[test]
fn specification_validator_agrees_with_the_suite() {
    let remotes = remotes();
    let mut report = BTreeMap::new();
    let mut all = Vec::new();
    for draft in ["draft2020-12", "draft7"] {
        let t = run_spec(draft, &remotes);
        report.insert(draft, (t.groups, t.tests, t.agree, t.skipped));
        all.extend(t.disagreements);
    }
    eprintln!("specification validator: {report:?} (groups, tests, agree, skipped)");
    assert!(all.is_empty(), "{} disagreements:\n{}", all.len(), all.join("\n"));
}

/// The registry of one tool `t` whose one required argument `value` has the group's schema.
/// The schema becomes its own resource (an `$id` when it has none), so that its
/// references (`#`, `#/$defs/...`) still resolve against it.
fn wrapped(g: &Group) -> Json<'static> {
    let mut schema = g.schema.clone();
    if let Json::Object(m) = &mut schema
        && !m.iter().any(|(k, _)| k == "$id") {
            m.insert(0, ("$id".into(), Json::String("urn:toolseal:suite:value".into())));
        }
    let input = Json::Object(vec![
        ("type".into(), Json::String("object".into())),
        ("properties".into(), Json::Object(vec![("value".into(), schema)])),
        ("required".into(), Json::Array(vec![Json::String("value".into())])),
    ]);
    Json::Object(vec![("tools".into(), Json::Array(vec![Json::Object(vec![("name".into(), Json::String("t".into())), ("inputSchema".into(), input)])]))])
}

#[test]
fn the_dynamic_resolver_agrees_with_the_suite_but_for_the_closed_world() {
    use toolseal_runtime::dynamic::DynamicRegistry;
    use toolseal_runtime::registry::read_registry;
    use toolseal_runtime::schema::{closed_world, CompileOptions};
    use toolseal_runtime::Options;
    let remotes = remotes();
    let mut report = BTreeMap::new();
    let mut unexplained = Vec::new();
    let mut differences = Vec::new();
    for draft in ["draft2020-12", "draft7"] {
        let (mut tests, mut agree, mut closed, mut skipped, mut quarantined) = (0, 0, 0, 0, 0);
        for g in groups(draft) {
            if skip_reason(&g.file, &g.description).is_some() {
                skipped += g.tests.len();
                continue;
            }
            // Remote references need documents toolseal never fetches: the specification
            // validator test covers them with the documents bundled; here they quarantine the tool.
            let registry = read_registry(wrapped(&g).to_json_string().as_bytes()).expect("a registry");
            let options = CompileOptions { assert_formats: asserts_formats(&g.file), ..CompileOptions::default() };
            let dynamic = DynamicRegistry::new(&registry, &options);
            let raw = SpecDoc::compile(&g.schema, &SpecOptions { assert_formats: options.assert_formats, documents: remotes.clone() }).expect("compiles alone");
            let closing = SpecDoc::compile(&closed_world(&registry.tools[0].input_schema), &SpecOptions { assert_formats: options.assert_formats, documents: Vec::new() });
            // A required key that admits no value (`false`) quarantines the tool, whose calls are then all refused.
            if dynamic.quarantined().any(|(_, e)| e.message.contains("neither embedded nor bundled")) {
                quarantined += g.tests.len();
                continue;
            }
            for (description, data, valid) in &g.tests {
                tests += 1;
                let args = Json::Object(vec![("value".into(), data.clone())]);
                let got = dynamic.resolve_parts("t", Some(&args), &mut Options::strict().cx());
                if got.is_ok() == *valid {
                    agree += 1;
                } else if *valid && raw.is_valid(raw.root(), data) && closing.as_ref().is_ok_and(|c| c.is_valid(c.root(), &args) == got.is_ok()) {
                    // Stricter only: the schema as written accepts the value, as the suite says, and
                    // toolseal agrees with the specification on the closed-world schema, which refuses it.
                    closed += 1;
                    differences.push(format!("{draft}/{} | {} | {description}", g.file, g.description));
                } else {
                    unexplained.push(format!("{draft}/{} | {} | {description} | suite: {valid}, toolseal: {:?}", g.file, g.description, got.err().map(|r| r.to_string())));
                }
            }
        }
        report.insert(draft, (tests, agree, closed, skipped, quarantined));
    }
    eprintln!("dynamic resolver: {report:?} (tests, agree, closed-world differences, skipped with reason, remote refs quarantined)");
    eprintln!("closed-world differences ({}):\n{}", differences.len(), differences.join("\n"));
    assert!(unexplained.is_empty(), "{} disagreements:\n{}", unexplained.len(), unexplained.join("\n"));
}
