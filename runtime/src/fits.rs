//! H5, "also fits": for an accepted call, the other tools (of the registry, or of the set the
//! model could see) whose signatures the same arguments also satisfy, ranked by how many of
//! each tool's declared keys the arguments use and how few keys the tool declares. No schema
//! tells which of them the model meant; this is the signal a gate can ask a person about
//! ([`AlsoFitsGate`]) or send back to the model ([`Feedback::also_fits`]).

use std::borrow::Cow;

use serde::Serialize;

use crate::call::{Resolution, ToolSet};
use crate::check::Cx;
use crate::dynamic::DynamicRegistry;
use crate::feedback::{Feedback, MAX_SUGGESTIONS, MAX_TEXT, Suggestions};
use crate::json::Json;
use crate::pipeline::{Decision, Gate, Resolved};

/// How well a call's arguments fit one tool's signature.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Fit {
    /// The tool.
    pub tool: String,
    /// Top-level keys of the arguments that the tool declares.
    pub used: usize,
    /// Top-level keys the tool declares.
    pub declared: usize,
}

impl Fit {
    /// Whether `self` fits at least as well as `other`: it uses at least as many of its
    /// declared keys and declares no more (the arguments leave no more of it unused).
    pub fn at_least_as_well_as(&self, other: &Fit) -> bool {
        self.used >= other.used && self.declared <= other.declared
    }
}

/// The named tool's fit and every other tool the arguments also satisfy, best first.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct AlsoFits {
    /// The tool the call names.
    pub named: Fit,
    /// The other tools whose signature the arguments satisfy, ranked: most declared keys
    /// used, then fewest declared, then by name.
    pub others: Vec<Fit>,
}

impl AlsoFits {
    /// The other tools that fit at least as well as the named one: the calls a gate should not
    /// take at their word.
    pub fn rivals(&self) -> impl Iterator<Item = &Fit> {
        self.others.iter().filter(|f| f.at_least_as_well_as(&self.named))
    }

    /// Whether another tool fits at least as well as the named one.
    pub fn is_ambiguous(&self) -> bool {
        self.rivals().next().is_some()
    }

    fn rank(named: Fit, mut others: Vec<Fit>) -> AlsoFits {
        others.sort_by(|a, b| b.used.cmp(&a.used).then(a.declared.cmp(&b.declared)).then_with(|| a.tool.cmp(&b.tool)));
        AlsoFits { named, others }
    }
}

/// The names of the top-level `properties` of an input schema.
fn declared<'a>(schema: &'a Json<'_>) -> Vec<&'a str> {
    match schema.get("properties") {
        Some(Json::Object(members)) => members.iter().map(|(k, _)| k.as_ref()).collect(),
        _ => Vec::new(),
    }
}

fn fit(tool: &str, declared: &[&str], arguments: Option<&Json<'_>>) -> Fit {
    let used = match arguments {
        Some(Json::Object(members)) => members.iter().filter(|(k, _)| declared.contains(&k.as_ref())).count(),
        _ => 0,
    };
    Fit { tool: tool.to_owned(), used, declared: declared.len() }
}

impl DynamicRegistry {
    /// The tools among those `visible` keeps, other than `name`, that `arguments` also satisfy
    /// (strict resolution; quarantined tools never fit), with `name`'s own fit.
    pub fn also_fits(&self, name: &str, arguments: Option<&Json<'_>>, visible: impl Fn(&str) -> bool) -> AlsoFits {
        let mut named = Fit { tool: name.to_owned(), used: 0, declared: 0 };
        let mut others = Vec::new();
        for (def, _) in self.schemas() {
            let keys = declared(&def.input_schema);
            if def.name == name {
                named = fit(name, &keys, arguments);
            } else if visible(&def.name) && self.resolve_parts(&def.name, arguments, &mut Cx::strict()).is_ok() {
                others.push(fit(&def.name, &keys, arguments));
            }
        }
        AlsoFits::rank(named, others)
    }
}

/// [`DynamicRegistry::also_fits`] for a generated sealed set `C` (its registry's tools).
pub fn also_fits_in<C: ToolSet>(name: &str, arguments: Option<&Json<'_>>, visible: impl Fn(&str) -> bool) -> AlsoFits {
    let keys_of = |tool: &str| -> Vec<String> {
        let definition = C::TOOLS.iter().find(|t| t.name == tool).map(|t| t.definition).unwrap_or("{}");
        let parsed = serde_json::from_str::<serde_json::Value>(definition).unwrap_or_default();
        parsed.get("inputSchema").and_then(|s| s.get("properties")).and_then(|p| p.as_object()).map(|p| p.keys().cloned().collect()).unwrap_or_default()
    };
    let fit_of = |tool: &str| {
        let keys = keys_of(tool);
        fit(tool, &keys.iter().map(String::as_str).collect::<Vec<_>>(), arguments)
    };
    let others = C::NAMES.iter().filter(|other| **other != name && visible(other) && C::resolve_parts(other, arguments, &mut Cx::strict()).is_ok()).map(|other| fit_of(other)).collect();
    AlsoFits::rank(fit_of(name), others)
}

/// The arguments of a resolved call as it serializes (`{"name", "arguments"}`): defaults the
/// schema applied are included, so they count as used keys.
fn serialized_arguments<C: serde::Serialize>(call: &C) -> Option<serde_json::Value> {
    serde_json::to_value(call).ok().and_then(|v| v.get("arguments").cloned())
}

impl<C: ToolSet + serde::Serialize> Resolution<C> {
    /// The registry's other tools that this call's arguments (as resolved, defaults applied)
    /// also satisfy, ranked; see [`AlsoFits`].
    pub fn also_fits(&self) -> AlsoFits {
        let arguments = serialized_arguments(&self.call);
        let tree = arguments.as_ref().map(Json::from_value);
        also_fits_in::<C>(self.call.name(), tree.as_ref(), |_| true)
    }
}

impl Feedback {
    /// What to tell the model when its call's arguments fit other tools at least as well as
    /// the one it named (class `H5`; `None` when none does): the rivals, best first.
    pub fn also_fits(fits: &AlsoFits) -> Option<Feedback> {
        let rivals: Vec<Cow<'static, str>> = fits.rivals().take(MAX_SUGGESTIONS).map(|f| Cow::Owned(f.tool.chars().take(64).collect())).collect();
        if rivals.is_empty() {
            return None;
        }
        let text = format!("H5: the arguments given to {:?} fit {} as well; say which tool you mean.", fits.named.tool, rivals.iter().map(|r| format!("{r:?}")).collect::<Vec<_>>().join(", "));
        Some(Feedback { class: "H5", pointer: "/name".into(), text: text.chars().take(MAX_TEXT).collect(), expected: None, found: None, suggestions: Suggestions::Collected(rivals) })
    }
}

/// What [`AlsoFitsGate`] does with an ambiguous call.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum OnRival {
    /// Ask a person (`Decision::Confirm`).
    Confirm,
    /// Refuse it (`Decision::Deny`).
    Deny,
}

/// The tools a state shows the model, by name.
type Visible<S> = Box<dyn Fn(&S) -> Vec<String> + Send + Sync>;

/// A gate that asks for confirmation (or denies) when a call's arguments fit another visible
/// tool at least as well as the named one, and allows everything else: combine it with the
/// policy gate (`all_of`). Its decision's text names the rivals, and the audit record lists them
/// (`AuditRecord::also_fits`).
pub struct AlsoFitsGate<S> {
    visible: Visible<S>,
    on_rival: OnRival,
}

impl<S> AlsoFitsGate<S> {
    /// Checks against the tools `visible` lists for the state (the set the model was shown).
    pub fn new(visible: impl Fn(&S) -> Vec<String> + Send + Sync + 'static, on_rival: OnRival) -> AlsoFitsGate<S> {
        AlsoFitsGate { visible: Box::new(visible), on_rival }
    }
}

impl<S> AlsoFitsGate<S> {
    fn fits<C: ToolSet + serde::Serialize>(&self, call: &Resolved<C>, state: &S) -> AlsoFits {
        let visible = (self.visible)(state);
        let arguments = serialized_arguments(call.call());
        let tree = arguments.as_ref().map(Json::from_value);
        also_fits_in::<C>(call.name(), tree.as_ref(), |t| visible.iter().any(|v| v == t))
    }
}

impl<C: ToolSet + serde::Serialize, S> Gate<C, S> for AlsoFitsGate<S> {
    fn rivals(&self, call: &Resolved<C>, state: &S) -> Vec<String> {
        self.fits(call, state).rivals().map(|f| f.tool.clone()).collect()
    }

    fn check(&self, call: &Resolved<C>, state: &S) -> Decision {
        let fits = self.fits(call, state);
        let Some(feedback) = Feedback::also_fits(&fits) else { return Decision::Allow };
        match self.on_rival {
            OnRival::Confirm => Decision::confirm(feedback.text),
            OnRival::Deny => Decision::deny(feedback.text),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::registry::read_registry;
    use crate::schema::CompileOptions;

    fn registry() -> DynamicRegistry {
        let text = br#"{"tools": [
            {"name": "send_money", "inputSchema": {"type": "object", "properties": {"to": {"type": "string"}, "amount": {"type": "number"}}, "required": ["to", "amount"]}},
            {"name": "schedule", "inputSchema": {"type": "object", "properties": {"to": {"type": "string"}, "amount": {"type": "number"}, "date": {"type": "string"}}, "required": ["to", "amount"]}},
            {"name": "refund", "inputSchema": {"type": "object", "properties": {"to": {"type": "string"}, "amount": {"type": "number"}}, "required": ["to"]}},
            {"name": "balance", "inputSchema": {"type": "object", "properties": {}}},
            {"name": "iban", "inputSchema": {"type": "object", "properties": {}}}
        ]}"#;
        DynamicRegistry::new(&read_registry(text).expect("registry"), &CompileOptions::default())
    }

    fn tree(text: &str) -> Json<'static> {
        Json::from_value(&serde_json::from_str::<serde_json::Value>(text).expect("json")).into_owned()
    }

    #[test]
    fn other_tools_that_fit_are_ranked_and_rivals_are_those_at_least_as_tight() {
        let r = registry();
        let args = tree(r#"{"to": "acct-7", "amount": 5}"#);
        let fits = r.also_fits("schedule", Some(&args), |_| true);
        assert_eq!(fits.named, Fit { tool: "schedule".into(), used: 2, declared: 3 });
        let names: Vec<&str> = fits.others.iter().map(|f| f.tool.as_str()).collect();
        assert_eq!(names, ["refund", "send_money"], "balance and iban declare no key, so these arguments do not fit them");
        assert_eq!(fits.rivals().count(), 2);
        // Named the tighter tool, nothing fits better: not ambiguous.
        let fits = r.also_fits("send_money", Some(&args), |_| true);
        assert_eq!(fits.rivals().map(|f| f.tool.as_str()).collect::<Vec<_>>(), ["refund"]);
        // Only visible tools count.
        assert!(!r.also_fits("send_money", Some(&args), |t| t != "refund").is_ambiguous());
    }

    #[test]
    fn empty_arguments_fit_every_tool_without_required_keys() {
        let r = registry();
        let fits = r.also_fits("balance", None, |_| true);
        assert_eq!(fits.rivals().map(|f| f.tool.as_str()).collect::<Vec<_>>(), ["iban"]);
        let feedback = Feedback::also_fits(&fits).expect("ambiguous");
        assert_eq!(feedback.class, "H5");
        assert_eq!(feedback.suggestions, ["iban"]);
        assert!(feedback.text.contains("\"balance\"") && feedback.text.contains("\"iban\""), "{}", feedback.text);
        let args = tree(r#"{"to": "acct-7", "amount": 5, "date": "2026-01-01"}"#);
        assert!(Feedback::also_fits(&r.also_fits("schedule", Some(&args), |_| true)).is_none());
    }
}
