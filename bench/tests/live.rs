//! The live table's classification on real calls (AgentDojo): the oracle agrees on a sample,
//! hand-made calls land in the class they were built for, and a missing extract is an error.

use toolseal::Class;
use toolseal_bench::corpus::{Call, Corpus, Run, default_dir};
use toolseal_bench::live::Registries;
use toolseal_bench::oracle::{Agreement, Oracle};
use toolseal_bench::verdict::classify;

fn corpus() -> Corpus {
    Corpus::load(&default_dir()).expect("the committed extract reads")
}

#[test]
fn the_oracle_agrees_with_the_resolver_on_a_sample_of_real_calls() {
    let corpus = corpus();
    let oracle = Oracle::new(&corpus).expect("every tool's schema builds");
    let mut registries = Registries::default();
    let mut agreement = Agreement::default();
    let mut classes = std::collections::BTreeMap::new();
    // Every 7th run: about 5,000 runs and 19,000 calls, every pipeline and suite.
    for run in corpus.runs.iter().step_by(7) {
        let registry = registries.seen(&corpus, run);
        for call in &run.calls {
            let verdict = classify(registry, call);
            agreement.check(&oracle, run, call, &verdict);
            *classes.entry(verdict.class.map_or("accepted", |c| c.as_str())).or_insert(0usize) += 1;
        }
    }
    assert!(agreement.checked > 10_000, "{} calls", agreement.checked);
    assert_eq!(agreement.disagreed(), 0, "{:#?}", agreement.disagreements);
    // Both verdicts and every argument class occur, so agreement is not trivial.
    for class in ["accepted", "H2", "H3"] {
        assert!(classes.get(class).copied().unwrap_or(0) > 0, "no {class} in the sample: {classes:?}");
    }
}

fn run_in(suite: &str, visible: Option<Vec<&str>>) -> Run {
    Run {
        pipeline: "test".into(),
        model: "test".into(),
        defense: "none".into(),
        suite: suite.into(),
        user_task: "user_task_0".into(),
        attack: "none".into(),
        injection_task: "none".into(),
        visible: visible.map(|v| v.into_iter().map(str::to_owned).collect()),
        calls: Vec::new(),
    }
}

fn call(name: &str, arguments: serde_json::Value) -> Call {
    Call { name: Some(name.into()), arguments, runtime_error: None }
}

#[test]
fn hand_made_calls_land_in_their_class_and_the_oracle_agrees() {
    let corpus = corpus();
    let oracle = Oracle::new(&corpus).expect("builds");
    let mut registries = Registries::default();
    let money = serde_json::json!({"recipient": "US12", "amount": 10.0, "subject": "rent", "date": "2024-01-01"});
    let cases = [
        (run_in("banking", None), call("send_money", money.clone()), None, false),
        (run_in("banking", None), call("send_monies", money.clone()), Some(Class::H1), false),
        (run_in("banking", None), call("send_money", serde_json::json!({"recipient": "US12", "amount": 10.0, "subject": "rent", "date": "2024-01-01", "memo": "x"})), Some(Class::H2), false),
        (run_in("banking", None), call("send_money", serde_json::json!({"recipient": "US12", "amount": "10", "subject": "rent", "date": "2024-01-01"})), Some(Class::H3), true),
        (run_in("banking", None), call("send_money", serde_json::json!({"recipient": "US12", "amount": "ten", "subject": "rent", "date": "2024-01-01"})), Some(Class::H3), false),
        (run_in("banking", None), call("get_iban", serde_json::Value::Null), None, false),
        // A tool outside what a tool filter left visible is H1 for that run.
        (run_in("banking", Some(vec!["get_iban"])), call("send_money", money), Some(Class::H1), false),
    ];
    for (run, call, class, numeric) in cases {
        let verdict = classify(registries.seen(&corpus, &run), &call);
        assert_eq!((verdict.class, verdict.numeric_string), (class, numeric), "{:?}: {}", call.name, call.arguments);
        assert_eq!(oracle.accepts(&run, &call), class.is_none(), "oracle on {:?}: {}", call.name, call.arguments);
    }
}

#[test]
fn a_missing_extract_is_an_error_not_a_panic() {
    let err = Corpus::load(std::path::Path::new("/nonexistent/agentdojo")).expect_err("no such directory");
    assert!(err.to_string().contains("/nonexistent/agentdojo"), "{err}");
}
