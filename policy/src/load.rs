//! Policy files read, given ids, and validated in strict mode against a
//! deployment's schema; every problem located (file, line, column) and worded
//! in the registry's terms where Cedar's words are about its own.

use std::collections::{HashMap, HashSet};
use std::fmt;
use std::path::Path;

use cedar_policy::{ActionConstraint, PolicyId, PolicySet, ValidationError, ValidationMode, ValidationWarning, Validator};
use miette::Diagnostic;
use toolseal_runtime::rejection::closest;

use crate::PolicyError;
use crate::schema::PolicySchema;

/// One policy file: where it came from and its text.
#[derive(Debug, Clone)]
pub struct PolicyFile {
    /// The path, as errors and decisions name it.
    pub path: String,
    /// Its Cedar text.
    pub text: String,
}

impl PolicyFile {
    /// Reads `path`.
    pub fn read(path: &Path) -> Result<PolicyFile, PolicyError> {
        let text = std::fs::read_to_string(path).map_err(|e| PolicyError::Io { path: path.display().to_string(), message: e.to_string() })?;
        Ok(PolicyFile { path: path.display().to_string(), text })
    }
}

/// What is wrong with a policy, and where.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Problem {
    /// The policy file.
    pub file: String,
    /// 1-based line (0 when Cedar gave no location).
    pub line: usize,
    /// 1-based column, in characters.
    pub column: usize,
    /// What is wrong.
    pub message: String,
}

impl fmt::Display for Problem {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.line == 0 { write!(f, "{}: {}", self.file, self.message) } else { write!(f, "{}:{}:{}: {}", self.file, self.line, self.column, self.message) }
    }
}

/// What a decision says of a policy.
#[derive(Debug, Clone)]
pub(crate) struct Meta {
    /// `@id("…")`, or `<file>#<n>` (its place in the file, from 1).
    pub(crate) label: String,
    /// `@reason("…")`.
    pub(crate) reason: Option<String>,
    /// `@confirm` or `@confirm("…")`: an allowed call needs a person's yes first.
    pub(crate) confirm: Option<String>,
}

/// A deployment's policies, validated against its schema, grouped by the actions
/// they can apply to.
#[derive(Debug, Clone)]
pub struct Policies {
    /// Action id → the policies whose action scope can match it.
    pub(crate) by_action: HashMap<String, PolicySet>,
    pub(crate) meta: HashMap<PolicyId, Meta>,
    count: usize,
}

impl Policies {
    /// Parses `files` and validates every policy against `schema` in strict mode.
    /// Every problem of every file is reported, each with its place.
    pub fn load(schema: &PolicySchema, files: &[PolicyFile]) -> Result<Policies, PolicyError> {
        let mut problems = Vec::new();
        let mut all = PolicySet::new();
        let mut meta = HashMap::new();
        let mut origin: HashMap<PolicyId, usize> = HashMap::new();
        for (f, file) in files.iter().enumerate() {
            let parsed: PolicySet = match file.text.parse() {
                Ok(set) => set,
                Err(errors) => {
                    let errors: cedar_policy::ParseErrors = errors;
                    for error in errors.iter() {
                        problems.push(located(file, error, format!("{error}{}", help(error))));
                    }
                    continue;
                }
            };
            if parsed.templates().next().is_some() {
                problems.push(Problem { file: file.path.clone(), line: 0, column: 0, message: "policy templates (`?principal`, `?resource`) are not supported: write static policies".to_owned() });
            }
            for (n, policy) in parsed.policies().enumerate() {
                let label = policy.annotation("id").map_or_else(|| format!("{}#{}", file.path, n + 1), str::to_owned);
                let id = PolicyId::new(&label);
                if meta.contains_key(&id) {
                    problems.push(Problem { file: file.path.clone(), line: 0, column: 0, message: format!("two policies are named {label:?}; give each `@id` once") });
                    continue;
                }
                meta.insert(id.clone(), Meta { label, reason: policy.annotation("reason").map(str::to_owned), confirm: policy.annotation("confirm").map(str::to_owned) });
                origin.insert(id.clone(), f);
                if let Err(e) = all.add(policy.new_id(id)) {
                    problems.push(Problem { file: file.path.clone(), line: 0, column: 0, message: e.to_string() });
                }
            }
        }
        if problems.is_empty() {
            let validator = Validator::new(schema.schema.clone());
            let result = validator.validate(&all, ValidationMode::Strict);
            let mut errored = HashSet::new();
            for error in result.validation_errors() {
                errored.insert(error.policy_id().clone());
                let file = &files[origin.get(error.policy_id()).copied().unwrap_or_default()];
                problems.push(located(file, error, explain(schema, file, error)));
            }
            // Strict: a warning is a problem too. A policy that can never apply is most
            // often a `has` of an argument the tool does not declare (or that has no
            // exact type): its `forbid` would silently never forbid.
            for warning in result.validation_warnings().filter(|w| !errored.contains(w.policy_id())) {
                let file = &files[origin.get(warning.policy_id()).copied().unwrap_or_default()];
                let message = match warning {
                    ValidationWarning::ImpossiblePolicy(_) => impossible(schema, covered(file, warning)).unwrap_or_else(|| format!("{warning}{}", help(warning))),
                    _ => format!("{warning}{}", help(warning)),
                };
                problems.push(located(file, warning, message));
            }
        }
        if !problems.is_empty() {
            return Err(PolicyError::Invalid(merged(problems)));
        }
        let mut by_action: HashMap<String, PolicySet> = HashMap::new();
        for (action, info) in &schema.actions {
            let mut set = PolicySet::new();
            for policy in all.policies() {
                let applies = match policy.action_constraint() {
                    ActionConstraint::Any => true,
                    ActionConstraint::Eq(uid) => uid == info.uid,
                    ActionConstraint::In(uids) => uids.contains(&info.uid),
                };
                if applies {
                    // Ids are unique in `all`, so in every subset.
                    let _ = set.add(policy.clone());
                }
            }
            by_action.insert(action.clone(), set);
        }
        Ok(Policies { by_action, meta, count: all.policies().count() })
    }

    /// How many policies there are.
    pub fn len(&self) -> usize {
        self.count
    }

    /// Whether there are none (then every call is denied: Cedar's default).
    pub fn is_empty(&self) -> bool {
        self.count == 0
    }
}

/// `problems` in file order (each file's, by line and column), one line per place: the
/// same misspelled argument under several tools (`action in [...]`) is one problem naming them all.
fn merged(mut problems: Vec<Problem>) -> Vec<Problem> {
    const NO_ARGUMENT: &str = "` declares no argument ";
    let file_order: Vec<String> = problems.iter().fold(Vec::new(), |mut order, p| {
        if !order.contains(&p.file) {
            order.push(p.file.clone());
        }
        order
    });
    problems.sort_by(|a, b| (file_order.iter().position(|f| *f == a.file), a.line, a.column, &a.message).cmp(&(file_order.iter().position(|f| *f == b.file), b.line, b.column, &b.message)));
    let mut out: Vec<Problem> = Vec::new();
    let mut tools: Vec<String> = Vec::new();
    for problem in problems {
        let split = problem.message.strip_prefix("tool `").and_then(|rest| rest.split_once(NO_ARGUMENT));
        if let (Some((tool, rest)), Some(last)) = (split, out.last_mut())
            && last.file == problem.file
            && (last.line, last.column) == (problem.line, problem.column)
            && !tools.is_empty()
            && last.message.ends_with(rest)
        {
            tools.push(tool.to_owned());
            let named: Vec<String> = tools.iter().map(|t| format!("`{t}`")).collect();
            last.message = format!("tools {} declare no argument {rest}", named.join(", "));
            continue;
        }
        tools = split.map(|(tool, _)| vec![tool.to_owned()]).unwrap_or_default();
        out.push(problem);
    }
    out
}

/// The first place `diagnostic` points at in `file`.
fn located(file: &PolicyFile, diagnostic: &dyn Diagnostic, message: String) -> Problem {
    let offset = diagnostic.labels().and_then(|mut labels| labels.next()).map(|label| label.offset());
    let (line, column) = offset.map_or((0, 0), |offset| line_column(&file.text, offset));
    Problem { file: file.path.clone(), line, column, message }
}

fn line_column(text: &str, offset: usize) -> (usize, usize) {
    let before = &text[..floor_char_boundary(text, offset)];
    let line = before.matches('\n').count() + 1;
    let column = before.rsplit('\n').next().map_or(0, |l| l.chars().count()) + 1;
    (line, column)
}

fn floor_char_boundary(text: &str, mut offset: usize) -> usize {
    offset = offset.min(text.len());
    while !text.is_char_boundary(offset) {
        offset -= 1;
    }
    offset
}

/// The text `diagnostic`'s first label covers.
fn covered<'a>(file: &'a PolicyFile, diagnostic: &dyn Diagnostic) -> &'a str {
    let Some(label) = diagnostic.labels().and_then(|mut labels| labels.next()) else { return "" };
    let start = floor_char_boundary(&file.text, label.offset());
    let end = floor_char_boundary(&file.text, label.offset() + label.len());
    &file.text[start..end]
}

/// `; help` when Cedar has help.
fn help(diagnostic: &dyn Diagnostic) -> String {
    diagnostic.help().map(|h| format!("; {h}")).unwrap_or_default()
}

/// Cedar's help text for a schema error (the schema is generated: a failure is toolseal's bug).
pub(crate) fn help_of(diagnostic: &dyn Diagnostic) -> String {
    diagnostic.help().map(|h| h.to_string()).unwrap_or_default()
}

/// The message for a validation error: in the deployment's words for a tool or
/// argument that is not there (or has no type a policy can read), Cedar's otherwise.
fn explain(schema: &PolicySchema, file: &PolicyFile, error: &ValidationError) -> String {
    let cedar = format!("{error}{}", help(error));
    match error {
        ValidationError::UnrecognizedActionId(_) => {
            let Some(action) = last_quoted(covered(file, error)) else { return cedar };
            let names = schema.actions();
            match closest(&action, names.iter().copied(), 1).first() {
                Some(near) => format!("`{action}` is not a tool of this deployment; did you mean `{near}`?"),
                None => format!("`{action}` is not a tool of this deployment (`toolseal policy schema` lists them)"),
            }
        }
        ValidationError::UnsafeAttributeAccess(_) => {
            // "attribute `input.pathz` in context for Action::"files__write_file" not found"
            let text = error.to_string();
            let (Some(path), Some(action)) = (between(&text, "attribute `", "`"), between(&text, "context for Action::\"", "\"")) else { return cedar };
            let Some(argument) = path.strip_prefix("input.") else { return cedar };
            let Some(info) = schema.actions.get(action) else { return cedar };
            if let Some((_, why)) = info.untyped.iter().find(|(name, _)| name == argument) {
                return format!("argument `{argument}` of `{action}` is {why}, so no policy can read it");
            }
            let declared: Vec<&str> = match &info.input {
                crate::shape::Shape::Record(attributes) => attributes.iter().map(|a| a.name.as_str()).collect(),
                _ => Vec::new(),
            };
            if argument.contains('.') {
                return cedar;
            }
            match closest(argument, declared.iter().copied(), 1).first() {
                Some(near) => format!("tool `{action}` declares no argument `{argument}`; did you mean `{near}`?"),
                None if declared.is_empty() => format!("tool `{action}` takes no arguments; it has no `{argument}`"),
                None => format!("tool `{action}` declares no argument `{argument}`; its arguments are {}", declared.iter().map(|d| format!("`{d}`")).collect::<Vec<_>>().join(", ")),
            }
        }
        _ => cedar,
    }
}

/// Why a policy can never apply, when it tests `context.input has X` for an `X` that
/// no tool it names can have: in the deployment's words.
fn impossible(schema: &PolicySchema, policy: &str) -> Option<String> {
    let mut rest = policy;
    while let Some(at) = rest.find("context.input has ") {
        rest = &rest[at + "context.input has ".len()..];
        let argument: String = match rest.strip_prefix('"') {
            Some(quoted) => quoted.split('"').next().unwrap_or_default().to_owned(),
            None => rest.chars().take_while(|c| c.is_alphanumeric() || *c == '_').collect(),
        };
        let named: Vec<&str> = policy.match_indices("Action::\"").filter_map(|(i, m)| policy[i + m.len()..].split('"').next()).filter(|a| schema.actions.contains_key(*a)).collect();
        let actions: Vec<&str> = if named.is_empty() { schema.actions() } else { named };
        for action in &actions {
            let info = &schema.actions[*action];
            if let Some((_, why)) = info.untyped.iter().find(|(name, _)| *name == argument) {
                return Some(format!("this policy can never apply: argument `{argument}` of `{action}` is {why}, so no policy can read it (`has {argument}` is always false)"));
            }
        }
        let declared = |action: &&str| matches!(&schema.actions[*action].input, crate::shape::Shape::Record(a) if a.iter().any(|a| a.name == argument));
        if !actions.iter().any(declared) {
            let names: Vec<&str> = actions
                .iter()
                .flat_map(|action| match &schema.actions[*action].input {
                    crate::shape::Shape::Record(attributes) => attributes.iter().map(|a| a.name.as_str()).collect::<Vec<_>>(),
                    _ => Vec::new(),
                })
                .collect();
            let near = closest(&argument, names.iter().copied(), 1).first().map(|n| format!("; did you mean `{n}`?")).unwrap_or_default();
            let whose = if actions.len() == 1 { format!("tool `{}` declares", actions[0]) } else { "no tool it names declares".to_owned() };
            return Some(format!("this policy can never apply: {whose} no argument `{argument}` (`has {argument}` is always false){near}"));
        }
    }
    None
}

/// The contents of the last `"…"` in `text` (Cedar's escapes are not expected in tool names).
fn last_quoted(text: &str) -> Option<String> {
    let end = text.rfind('"')?;
    let start = text[..end].rfind('"')?;
    Some(text[start + 1..end].to_owned())
}

fn between<'a>(text: &'a str, open: &str, close: &str) -> Option<&'a str> {
    let start = text.find(open)? + open.len();
    let len = text[start..].find(close)?;
    Some(&text[start..start + len])
}
