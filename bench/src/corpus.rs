//! The committed AgentDojo extract (`data/agentdojo/`, see its README): each suite's registry
//! and every run's tool calls, read from the repository, never fetched.

use std::collections::BTreeMap;
use std::fmt;
use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};

use serde::Deserialize;
use toolseal_runtime::registry::{Registry, read_registry};

/// Where the extract is committed.
pub fn default_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../data/agentdojo")
}

/// One run file of AgentDojo: a pipeline on one (user task, attack, injection task) of a suite.
#[derive(Debug, Clone, Deserialize)]
pub struct Run {
    /// The pipeline's name (`gpt-4o-2024-05-13-tool_filter`).
    pub pipeline: String,
    /// The model behind it.
    pub model: String,
    /// AgentDojo's defence (`none`, `tool_filter`, ...).
    pub defense: String,
    /// `banking`, `slack`, `travel` or `workspace`.
    pub suite: String,
    /// The user task.
    pub user_task: String,
    /// The attack (`none` for benign runs).
    pub attack: String,
    /// The injection task (`none` for benign runs).
    pub injection_task: String,
    /// The tools a tool-filter pipeline left visible; `None`: all of the suite's.
    pub visible: Option<Vec<String>>,
    /// Every tool call the model emitted, in order.
    pub calls: Vec<Call>,
}

impl Run {
    /// Whether the run was under a prompt-injection attack.
    pub fn attacked(&self) -> bool {
        self.attack != "none"
    }
}

/// One tool call as the model emitted it.
#[derive(Debug, Clone, Deserialize)]
pub struct Call {
    /// The tool name (`null` when the log has none).
    pub name: Option<String>,
    /// The arguments as emitted.
    pub arguments: serde_json::Value,
    /// The exception type AgentDojo's own runtime reported (`None`: it ran the call).
    pub runtime_error: Option<String>,
}

impl Call {
    /// The call object `{"name", "arguments"}` toolseal resolves.
    pub fn bytes(&self) -> Vec<u8> {
        serde_json::to_vec(&serde_json::json!({ "name": self.name, "arguments": self.arguments })).unwrap_or_default()
    }
}

/// The extract: registries by suite and every run.
#[derive(Debug, Clone)]
pub struct Corpus {
    /// Each suite's registry, by suite name.
    pub registries: BTreeMap<String, Registry>,
    /// The runs, in the extract's order.
    pub runs: Vec<Run>,
}

/// The extract cannot be read.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CorpusError(pub String);

impl fmt::Display for CorpusError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "the AgentDojo extract: {}", self.0)
    }
}

impl std::error::Error for CorpusError {}

impl Corpus {
    /// Reads the extract from `dir` (`registries/*.json`, `runs.jsonl.gz`).
    pub fn load(dir: &Path) -> Result<Corpus, CorpusError> {
        let err = |what: &Path, e: &dyn fmt::Display| CorpusError(format!("{}: {e}", what.display()));
        let mut registries = BTreeMap::new();
        let reg_dir = dir.join("registries");
        let mut entries: Vec<PathBuf> =
            std::fs::read_dir(&reg_dir).map_err(|e| err(&reg_dir, &e))?.filter_map(|e| e.ok().map(|e| e.path())).filter(|p| p.extension().is_some_and(|x| x == "json")).collect();
        entries.sort();
        for path in entries {
            let bytes = std::fs::read(&path).map_err(|e| err(&path, &e))?;
            let registry = read_registry(&bytes).map_err(|e| err(&path, &e))?;
            let suite = path.file_stem().and_then(|s| s.to_str()).unwrap_or_default().to_owned();
            registries.insert(suite, registry);
        }
        let runs_path = dir.join("runs.jsonl.gz");
        let file = std::fs::File::open(&runs_path).map_err(|e| err(&runs_path, &e))?;
        let mut runs = Vec::new();
        for (i, line) in BufReader::new(flate2::read::GzDecoder::new(file)).lines().enumerate() {
            let line = line.map_err(|e| err(&runs_path, &e))?;
            let run: Run = serde_json::from_str(&line).map_err(|e| err(&runs_path, &format!("line {}: {e}", i + 1)))?;
            if !registries.contains_key(&run.suite) {
                return Err(err(&runs_path, &format!("line {}: no registry for suite {:?}", i + 1, run.suite)));
            }
            runs.push(run);
        }
        if runs.is_empty() {
            return Err(err(&runs_path, &"no runs"));
        }
        Ok(Corpus { registries, runs })
    }

    /// The registry a run's model saw: its suite's, restricted to the visible tools when a filter chose them.
    pub fn registry_seen(&self, run: &Run) -> Registry {
        self.registry_for(&run.suite, run.visible.as_ref())
    }

    /// `suite`'s registry, restricted to `visible` when given.
    pub fn registry_for(&self, suite: &str, visible: Option<&Vec<String>>) -> Registry {
        let full = &self.registries[suite];
        Registry { format: full.format, tools: full.tools.iter().filter(|t| visible.is_none_or(|v| v.contains(&t.name))).cloned().collect() }
    }
}
