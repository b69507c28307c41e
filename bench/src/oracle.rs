//! An independent check of the live classification: the `jsonschema` crate on each tool's
//! schema with toolseal's closed-world rule written out (`closed_world`: `additionalProperties:
//! false` on the arguments object and on every object schema that declares properties without
//! saying otherwise), plus the two envelope rules: the name must be one of the tools the run saw,
//! and absent or `null` arguments mean `{}`.

use std::collections::HashMap;

use serde::Serialize;
use toolseal_runtime::schema::closed_world;

use crate::corpus::{Call, Corpus, Run};
use crate::verdict::Verdict;

/// One `jsonschema` validator per suite and tool.
pub struct Oracle {
    validators: HashMap<(String, String), jsonschema::Validator>,
}

/// The oracle cannot be built for a tool.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct OracleError(pub String);

impl std::fmt::Display for OracleError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "the oracle: {}", self.0)
    }
}

impl std::error::Error for OracleError {}

impl Oracle {
    /// Builds a validator (formats asserted) for every tool of every suite of `corpus`.
    pub fn new(corpus: &Corpus) -> Result<Oracle, OracleError> {
        let mut validators = HashMap::new();
        for (suite, registry) in &corpus.registries {
            for tool in &registry.tools {
                let schema = closed_world(&tool.input_schema).to_value();
                let v = jsonschema::options().should_validate_formats(true).build(&schema).map_err(|e| OracleError(format!("{suite}/{}: {e}", tool.name)))?;
                validators.insert((suite.clone(), tool.name.clone()), v);
            }
        }
        Ok(Oracle { validators })
    }

    /// Whether the oracle accepts `call` in `run` (the tools its model saw).
    pub fn accepts(&self, run: &Run, call: &Call) -> bool {
        let Some(name) = &call.name else { return false };
        if run.visible.as_ref().is_some_and(|v| !v.contains(name)) {
            return false;
        }
        let Some(validator) = self.validators.get(&(run.suite.clone(), name.clone())) else { return false };
        let empty = serde_json::json!({});
        let arguments = if call.arguments.is_null() { &empty } else { &call.arguments };
        validator.is_valid(arguments)
    }
}

/// A call on which toolseal and the oracle disagree.
#[derive(Debug, Clone, Serialize)]
pub struct Disagreement {
    /// The pipeline and suite.
    pub run: String,
    /// The call object.
    pub call: String,
    /// toolseal's class, or `accepted`.
    pub toolseal: String,
    /// Whether the oracle accepts.
    pub oracle_accepts: bool,
}

/// How often the oracle agrees with toolseal's verdict (accepted or rejected).
#[derive(Debug, Clone, Default, Serialize)]
pub struct Agreement {
    /// Calls checked.
    pub checked: usize,
    /// Calls on whose verdict both agree.
    pub agreed: usize,
    /// The first disagreements (at most [`Agreement::KEPT`]).
    pub disagreements: Vec<Disagreement>,
}

impl Agreement {
    /// Disagreements kept for the report.
    pub const KEPT: usize = 20;

    /// Checks one call's verdict against the oracle.
    pub fn check(&mut self, oracle: &Oracle, run: &Run, call: &Call, verdict: &Verdict) {
        self.checked += 1;
        let oracle_accepts = oracle.accepts(run, call);
        let toolseal_accepts = verdict.class.is_none();
        if oracle_accepts == toolseal_accepts {
            self.agreed += 1;
        } else if self.disagreements.len() < Self::KEPT {
            self.disagreements.push(Disagreement {
                run: format!("{}/{}", run.pipeline, run.suite),
                call: String::from_utf8_lossy(&call.bytes()).chars().take(300).collect(),
                toolseal: verdict.class.map_or("accepted", |c| c.as_str()).to_owned(),
                oracle_accepts,
            });
        }
    }

    /// Calls on which the two disagree.
    pub fn disagreed(&self) -> usize {
        self.checked - self.agreed
    }
}
