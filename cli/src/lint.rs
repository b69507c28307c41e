//! `toolseal lint`: what would weaken closed-world resolution in registry
//! files — schemas toolseal cannot enforce (errors), and objects left open by
//! omission, names model APIs reject, and names or descriptions that differ
//! between servers (warnings).

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use toolseal_runtime::json::Json;
use toolseal_runtime::registry::read_registry;
use toolseal_runtime::schema::{CompileOptions, compile_tool_schema};

use crate::Failure;

/// Every object schema (`type: object` or `properties`) without `additionalProperties`, by pointer.
fn open_objects(schema: &Json<'_>, at: &str, out: &mut Vec<String>) {
    match schema {
        Json::Object(members) => {
            let is_object = schema.get("properties").is_some() || schema.get("type").and_then(Json::as_str) == Some("object");
            if is_object && schema.get("additionalProperties").is_none() && schema.get("unevaluatedProperties").is_none() {
                out.push(if at.is_empty() { "/".to_owned() } else { at.to_owned() });
            }
            for (k, v) in members {
                let key = k.replace('~', "~0").replace('/', "~1");
                open_objects(v, &format!("{at}/{key}"), out);
            }
        }
        Json::Array(items) => {
            for (i, v) in items.iter().enumerate() {
                open_objects(v, &format!("{at}/{i}"), out);
            }
        }
        _ => {}
    }
}

/// Runs `lint`; exit 1 when a tool is quarantined, a default breaks its own schema, or a file is not a registry.
pub(crate) fn run(files: &[PathBuf]) -> Result<u8, Failure> {
    let (mut errors, mut warnings) = (0usize, 0usize);
    let mut by_name: BTreeMap<String, Vec<(PathBuf, Option<String>)>> = BTreeMap::new();
    let mut report = |file: &Path, tool: &str, level: &str, message: String| {
        println!("{}: {tool}: {level}: {message}", file.display());
        if level == "error" { errors += 1 } else { warnings += 1 }
    };
    for file in files {
        let bytes = std::fs::read(file).map_err(|e| Failure::new(2, format!("cannot read {}: {e}", file.display())))?;
        let registry = match read_registry(&bytes) {
            Ok(r) => r,
            Err(e) => {
                report(file, "-", "error", format!("not a registry: {e}"));
                continue;
            }
        };
        for tool in &registry.tools {
            match compile_tool_schema(&tool.input_schema, &CompileOptions::default()) {
                Err(e) => report(
                    file,
                    &tool.name,
                    "error",
                    format!("quarantined, every call to it is refused: its schema cannot be enforced: at `#{}{}`, keyword `{}`: {}", tool.input_pointer, e.pointer, e.keyword, e.message),
                ),
                Ok(doc) => {
                    for n in &doc.notes {
                        // A default that breaks its own schema is an error in the registry; the rest annotate.
                        let level = if n.keyword == "default" { "error" } else { "warning" };
                        report(file, &tool.name, level, format!("at `#{}{}`, keyword `{}`: {}", tool.input_pointer, n.pointer, n.keyword, n.message));
                    }
                }
            }
            let mut open = Vec::new();
            open_objects(&tool.input_schema, "", &mut open);
            for at in open {
                report(
                    file,
                    &tool.name,
                    "warning",
                    format!(
                        "object at `#{}{}` has no `additionalProperties`: toolseal closes it (undeclared keys are H2); write `\"additionalProperties\": false` so that other validators agree",
                        tool.input_pointer,
                        if at == "/" { "" } else { at.as_str() }
                    ),
                );
            }
            if tool.name.len() > 64 || !tool.name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-') {
                report(file, &tool.name, "warning", "name is over 64 characters or outside [a-zA-Z0-9_-]: OpenAI, Bedrock and Gemini reject it; a merged host must qualify it".into());
            }
            by_name.entry(tool.name.clone()).or_default().push((file.clone(), tool.description.clone()));
        }
    }
    for (name, places) in &by_name {
        if places.len() > 1 {
            let files: Vec<String> = places.iter().map(|(f, _)| f.display().to_string()).collect();
            report(Path::new(&files[0]), name, "warning", format!("declared by {} servers ({}): flat calls are ambiguous (M2) or shadowed (M3); pin or qualify", places.len(), files.join(", ")));
            if places.iter().any(|(_, d)| *d != places[0].1) {
                report(Path::new(&files[0]), name, "warning", "descriptions differ between servers: the model may mean either".into());
            }
        }
    }
    println!("{} files, {errors} errors, {warnings} warnings", files.len());
    Ok(u8::from(errors > 0))
}
