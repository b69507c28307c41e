//! "Also fits" on the generated enum agrees with the dynamic registry, and the gate asks
//! (or denies) exactly when another visible tool fits at least as well.

use toolseal::Options;
use toolseal::pipeline::{Authorized, FrontierGate, Gate, Outcome, Pipeline, all_of};
use toolseal_bench::registry_gen::FAMILIES;
use toolseal_bench::single::{KINDS, state_tools, trials};
use toolseal_bench::synthetic::ToolCall;
use toolseal_runtime::dynamic::DynamicRegistry;
use toolseal_runtime::fits::{AlsoFitsGate, OnRival};
use toolseal_runtime::json::Json;
use toolseal_runtime::registry::read_registry;
use toolseal_runtime::schema::CompileOptions;

fn dynamic() -> DynamicRegistry {
    DynamicRegistry::new(&read_registry(toolseal_bench::REGISTRY_100.as_bytes()).expect("registry"), &CompileOptions::default())
}

/// The resolved call's arguments as it serializes (what the generated path checks).
fn resolved_arguments(call: &ToolCall) -> serde_json::Value {
    serde_json::to_value(call).expect("serializes")["arguments"].clone()
}

#[test]
fn the_generated_enum_and_the_dynamic_registry_find_the_same_fits() {
    let dynamic = dynamic();
    let mut ambiguous = 0;
    let mut checked = 0;
    for trial in trials(60, 5) {
        let Ok(resolution) = ToolCall::from_json_with(trial.call.as_bytes(), &Options::strict()) else { continue };
        let arguments = resolved_arguments(&resolution.call);
        let tree = Json::from_value(&arguments);
        let expected = dynamic.also_fits(resolution.call.name(), Some(&tree), |_| true);
        assert_eq!(resolution.also_fits(), expected, "{}", trial.call);
        checked += 1;
        ambiguous += usize::from(expected.is_ambiguous());
    }
    assert!(checked > 100, "{checked}");
    assert!(ambiguous > 0 && ambiguous < checked, "both sides occur: {ambiguous} of {checked}");
}

#[test]
fn the_gate_asks_or_denies_exactly_when_a_visible_rival_fits_as_well() {
    let dynamic = dynamic();
    let mut frontier = FrontierGate::new();
    for state in 0..FAMILIES.len() {
        frontier = frontier.allow(state, state_tools(state));
    }
    let pipeline = |on: OnRival| {
        let gates: Vec<Box<dyn Gate<ToolCall, usize>>> = vec![Box::new(frontier.clone()), Box::new(AlsoFitsGate::new(|s: &usize| state_tools(*s), on))];
        Pipeline::new(all_of(gates))
    };
    let (confirm, deny) = (pipeline(OnRival::Confirm), pipeline(OnRival::Deny));
    let exec = |_: Authorized<ToolCall>| -> Result<(), String> { Ok(()) };
    let mut seen = [0usize; 2];
    for trial in trials(80, 11).into_iter().filter(|t| matches!(KINDS[t.kind], "H5" | "honest")) {
        let Ok(resolution) = ToolCall::from_json_with(trial.call.as_bytes(), &Options::strict()) else { continue };
        let visible = state_tools(trial.state);
        let arguments = resolved_arguments(&resolution.call);
        let fits = dynamic.also_fits(resolution.call.name(), Some(&Json::from_value(&arguments)), |t| visible.iter().any(|v| v == t));
        let asked = confirm.run(trial.call.as_bytes(), &trial.state, &exec);
        let denied = deny.run(trial.call.as_bytes(), &trial.state, &exec);
        if fits.is_ambiguous() {
            let Outcome::Pending(pending) = &asked.outcome else { panic!("not asked: {}", trial.call) };
            let rival = &fits.rivals().next().expect("a rival").tool;
            assert!(pending.prompt().contains(rival.as_str()), "{} does not name {rival}", pending.prompt());
            assert!(matches!(denied.outcome, Outcome::Denied { .. }), "{}", trial.call);
            assert!(asked.record.decision.is_some_and(|d| format!("{d:?}").contains(rival.as_str())), "the audit record names the rival");
            let listed: Vec<&str> = fits.rivals().map(|f| f.tool.as_str()).collect();
            assert_eq!(asked.record.also_fits, listed, "the audit record lists the rivals");
            assert_eq!(denied.record.also_fits, listed);
        } else {
            assert!(matches!(asked.outcome, Outcome::Executed { .. }), "{}", trial.call);
            assert!(matches!(denied.outcome, Outcome::Executed { .. }), "{}", trial.call);
            assert!(asked.record.also_fits.is_empty());
        }
        seen[usize::from(fits.is_ambiguous())] += 1;
    }
    assert!(seen[0] > 0 && seen[1] > 0, "both outcomes occur: {seen:?}");
}
