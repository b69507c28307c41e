//! `toolseal import`: from the servers a client already has to a working gateway, in
//! one command. Reads Claude Desktop, Claude Code, Cursor and VS Code configurations,
//! starts each server once to pin its listing, writes `toolseal.toml` and the pins,
//! and rewrites each configuration to start the gateway in their place (keeping a
//! backup beside it). `--dry-run` prints what it would write and changes nothing.
//! A server that cannot be imported or started is reported and left where it was.

use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::time::Duration;

use serde_json::{Map, Value, json};

use toolseal_gateway::downstream::{Capture, Transport, capture};
use toolseal_runtime::mcp::manifest::{Secrets, expand_template};

use crate::Failure;
use crate::capture::{registry_file, runtime};
use crate::client_config::{ClientFormat, ImportedServer, Reach, detect, parse_jsonc, read_servers};

/// The key of the gateway's own entry in a rewritten configuration.
const GATEWAY_KEY: &str = "toolseal";

/// The one tier imported servers share (the client gave them no order of trust).
const TIER: &str = "imported";

/// What `import` was asked to do.
pub(crate) struct Args {
    /// The client configurations.
    pub(crate) configs: Vec<PathBuf>,
    /// Where `toolseal.toml` and `pins/` go.
    pub(crate) out: PathBuf,
    /// The format of every configuration, instead of detecting it.
    pub(crate) from: Option<ClientFormat>,
    /// Print, change nothing.
    pub(crate) dry_run: bool,
    /// The longest wait for one server.
    pub(crate) timeout: Duration,
}

/// One configuration, read.
struct Source {
    path: PathBuf,
    format: ClientFormat,
    config: Value,
    servers: Vec<ImportedServer>,
    gateway_env: BTreeMap<String, String>,
    secrets: BTreeMap<String, String>,
}

/// The manifest's secrets file, beside it.
const SECRETS: &str = "secrets.env";

/// A TOML string (basic string, escaped).
fn toml_string(s: &str) -> String {
    let mut out = String::from("\"");
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            c if c.is_control() => {
                let _ = write!(out, "\\u{:04X}", c as u32);
            }
            c => out.push(c),
        }
    }
    out.push('"');
    out
}

fn toml_table(map: &BTreeMap<String, String>) -> String {
    let members: Vec<String> = map.iter().map(|(k, v)| format!("{} = {}", toml_string(k), toml_string(v))).collect();
    format!("{{ {} }}", members.join(", "))
}

/// The manifest naming `servers`, each pinned at `pins/<name>.json`.
fn manifest_text(servers: &[&ImportedServer], sources: &[PathBuf], secrets: bool) -> String {
    let mut text = String::new();
    let shown: Vec<String> = sources.iter().map(|p| p.display().to_string()).collect();
    let _ = writeln!(text, "# Written by `toolseal import` from {}.", shown.join(", "));
    let _ = writeln!(text, "# Values in `env` and `headers` are references: the gateway expands them from `secrets`, else its own environment.");
    let _ = writeln!(text, "tiers = [{}]", toml_string(TIER));
    if secrets {
        let _ = writeln!(text, "secrets = {}  # the values written into the client's configuration (mode 600)", toml_string(SECRETS));
    }
    for s in servers {
        let _ = writeln!(text, "\n[[servers]]");
        let _ = writeln!(text, "name = {}", toml_string(&s.name));
        let _ = writeln!(text, "tier = {}", toml_string(TIER));
        let _ = writeln!(text, "registry = {}", toml_string(&format!("pins/{}.json", s.name)));
        match &s.reach {
            Reach::Stdio { command, cwd } => {
                let argv: Vec<String> = command.iter().map(|a| toml_string(a)).collect();
                let _ = writeln!(text, "command = [{}]", argv.join(", "));
                if let Some(cwd) = cwd {
                    let _ = writeln!(text, "cwd = {}", toml_string(cwd));
                }
                if !s.env.is_empty() {
                    let _ = writeln!(text, "env = {}", toml_table(&s.env));
                }
            }
            Reach::Http { url } => {
                let _ = writeln!(text, "url = {}", toml_string(url));
                if !s.headers.is_empty() {
                    let _ = writeln!(text, "headers = {}", toml_table(&s.headers));
                }
            }
        }
    }
    text
}

/// `config` with the servers named in `moved` replaced by the gateway's entry.
fn rewritten(source: &Source, moved: &[&str], manifest: &Path, program: &str, env: &BTreeMap<String, String>) -> Value {
    let mut config = source.config.clone();
    let key = source.format.servers_key();
    let mut entry = Map::new();
    if matches!(source.format, ClientFormat::ClaudeCode | ClientFormat::Vscode) {
        entry.insert("type".into(), json!("stdio"));
    }
    entry.insert("command".into(), json!(program));
    entry.insert("args".into(), json!(["gateway", "--manifest", manifest.display().to_string()]));
    if !env.is_empty() {
        entry.insert("env".into(), json!(env));
    }
    if let Some(Value::Object(servers)) = config.get_mut(key) {
        servers.retain(|k, _| !moved.contains(&k.as_str()));
        servers.insert(GATEWAY_KEY.into(), Value::Object(entry));
    }
    config
}

/// A path beside `path` that does not exist yet, for its backup.
fn backup_path(path: &Path) -> PathBuf {
    let base = format!("{}.toolseal-backup", path.display());
    let mut candidate = PathBuf::from(&base);
    let mut n = 1;
    while candidate.exists() {
        candidate = PathBuf::from(format!("{base}.{n}"));
        n += 1;
    }
    candidate
}

/// `value` with every value of the gateway's `env` shown as `<redacted>`.
fn redacted(mut config: Value, key: &str) -> Value {
    if let Some(Value::Object(env)) = config.get_mut(key).and_then(|s| s.get_mut(GATEWAY_KEY)).and_then(|e| e.get_mut("env")) {
        for v in env.values_mut() {
            *v = json!("<redacted>");
        }
    }
    config
}

fn read_source(path: &Path, from: Option<ClientFormat>) -> Result<Source, Failure> {
    let text = std::fs::read_to_string(path).map_err(|e| Failure::new(2, format!("cannot read {}: {e}", path.display())))?;
    let config = parse_jsonc(&text).map_err(|e| Failure::new(2, format!("{}: {}", path.display(), e.0)))?;
    let format = match from {
        Some(f) => f,
        None => detect(&config).map_err(|e| Failure::new(2, format!("{}: {}", path.display(), e.0)))?,
    };
    let imported = read_servers(&config, format, GATEWAY_KEY).map_err(|e| Failure::new(2, format!("{}: {}", path.display(), e.0)))?;
    for s in &imported.skipped {
        eprintln!("toolseal: {}: {:?} left out: {}", path.display(), s.key, s.why);
    }
    Ok(Source { path: path.to_owned(), format, config, servers: imported.servers, gateway_env: imported.gateway_env, secrets: imported.secrets })
}

/// `server` started (or reached) once and listed, its references expanded as the gateway
/// will: from the secrets file's values, else this process's environment (where a VS Code
/// variable such as `${input:id}`, which only VS Code expands, is looked up by its generated name).
/// Runs in its `cwd` (relative to the configuration's directory `dir`), else in `out`, the
/// manifest's directory, where the gateway will run it. The error names no value.
async fn capture_server(server: &ImportedServer, secrets: &BTreeMap<String, String>, dir: &Path, out: &Path, timeout: Duration) -> Result<Capture, String> {
    let lookup = |var: &str| secrets.get(var).cloned().or_else(|| std::env::var(var).ok());
    let expand = |values: &BTreeMap<String, String>, what: &str| -> Result<Secrets, String> {
        values.iter().map(|(k, v)| expand_template(v, &lookup).map(|x| (k.clone(), x)).map_err(|e| format!("`{what}.{k}`: {e}"))).collect()
    };
    let transport = match &server.reach {
        Reach::Stdio { command, cwd } => {
            let cwd = cwd.as_ref().map_or_else(|| out.to_path_buf(), |c| dir.join(c));
            Transport::Command { argv: command.clone(), cwd: Some(cwd), env: expand(&server.env, "env")? }
        }
        Reach::Http { url } => Transport::Http { url: url.clone(), headers: expand(&server.headers, "headers")?, oauth: None },
    };
    let captured = capture(&transport, timeout).await.map_err(|e| e.to_string());
    if captured.is_err() {
        // A dropped transport kills its server from a spawned task: let it run.
        tokio::time::sleep(Duration::from_millis(200)).await;
    }
    captured
}

/// Writes `KEY=VALUE` lines readable by the owner only (values single-quoted: taken as written).
fn write_secrets(path: &Path, secrets: &BTreeMap<&String, &String>) -> Result<(), Failure> {
    use std::io::Write as _;
    let mut text = String::from("# Written by `toolseal import`: values found written into client configurations.\n");
    for (k, v) in secrets {
        if v.contains('\'') || v.contains('\n') {
            return Err(Failure::new(2, format!("the value of {k} holds a quote or a line break: give it as a reference (${{VAR}}) in the client's configuration")));
        }
        let _ = writeln!(text, "{k}='{v}'");
    }
    let mut options = std::fs::OpenOptions::new();
    options.write(true).create(true).truncate(true);
    #[cfg(unix)]
    std::os::unix::fs::OpenOptionsExt::mode(&mut options, 0o600);
    let mut file = options.open(path).map_err(|e| Failure::new(2, format!("cannot write {}: {e}", path.display())))?;
    file.write_all(text.as_bytes()).map_err(|e| Failure::new(2, format!("cannot write {}: {e}", path.display())))
}

/// Runs `import`.
pub(crate) fn run(args: &Args) -> Result<u8, Failure> {
    let mut sources = Vec::new();
    let mut taken: Vec<String> = Vec::new();
    for path in &args.configs {
        let mut source = read_source(path, args.from)?;
        // Names unique across configurations: a second `github` becomes `github-2`.
        for s in &mut source.servers {
            let mut n = 2;
            let base = s.name.clone();
            while taken.contains(&s.name) {
                s.name = format!("{base}-{n}");
                n += 1;
            }
            taken.push(s.name.clone());
        }
        sources.push(source);
    }
    let out = if args.out.is_absolute() { args.out.clone() } else { std::env::current_dir().map_err(|e| Failure::new(2, e.to_string()))?.join(&args.out) };
    let manifest = out.join("toolseal.toml");
    let program = std::env::current_exe().map_or_else(|_| "toolseal".to_owned(), |p| p.display().to_string());
    let paths: Vec<PathBuf> = sources.iter().map(|s| s.path.clone()).collect();

    if args.dry_run {
        let all: Vec<&ImportedServer> = sources.iter().flat_map(|s| &s.servers).collect();
        let secrets: usize = sources.iter().map(|s| s.secrets.len()).sum();
        println!("# would write {} (each server started once to pin its listing into {}):", manifest.display(), out.join("pins").display());
        print!("{}", manifest_text(&all, &paths, secrets > 0));
        if secrets > 0 {
            println!("# would write {} (mode 600): {secrets} values found written into the configurations, not shown", out.join(SECRETS).display());
        }
        for source in &sources {
            let moved: Vec<&str> = source.servers.iter().map(|s| s.key.as_str()).collect();
            let config = redacted(rewritten(source, &moved, &manifest, &program, &source.gateway_env), source.format.servers_key());
            println!("\n# would rewrite {} (backup at {}):", source.path.display(), backup_path(&source.path).display());
            println!("{}", serde_json::to_string_pretty(&config).unwrap_or_default());
        }
        return Ok(0);
    }

    std::fs::create_dir_all(out.join("pins")).map_err(|e| Failure::new(2, format!("cannot create {}: {e}", out.join("pins").display())))?;
    let runtime = runtime()?;
    let mut pinned: Vec<(usize, &ImportedServer)> = Vec::new();
    for (i, source) in sources.iter().enumerate() {
        for server in &source.servers {
            let dir = source.path.parent().map(Path::to_path_buf).unwrap_or_default();
            match runtime.block_on(capture_server(server, &source.secrets, &dir, &out, args.timeout)).and_then(|c| registry_file(&c).map_err(|f| f.message)) {
                Ok((text, registry)) => {
                    let pin = out.join("pins").join(format!("{}.json", server.name));
                    std::fs::write(&pin, text).map_err(|e| Failure::new(2, format!("cannot write {}: {e}", pin.display())))?;
                    eprintln!("toolseal: {}: pinned {} tools of {:?} into {}", source.path.display(), registry.tools.len(), server.key, pin.display());
                    pinned.push((i, server));
                }
                Err(why) => eprintln!("toolseal: {}: {:?} left out (it stays in the client's configuration): {why}", source.path.display(), server.key),
            }
        }
    }
    if pinned.is_empty() {
        return Err(Failure::new(4, "no server could be pinned: nothing written but the empty pins directory"));
    }
    let servers: Vec<&ImportedServer> = pinned.iter().map(|(_, s)| *s).collect();
    // The literal values the pinned servers' references name, in the secrets file.
    let named = |var: &str, s: &ImportedServer| s.env.values().chain(s.headers.values()).any(|v| v.contains(&format!("${{{var}}}")));
    let secrets: BTreeMap<&String, &String> = pinned.iter().flat_map(|(i, s)| sources[*i].secrets.iter().filter(move |(var, _)| named(var, s))).collect();
    if !secrets.is_empty() {
        write_secrets(&out.join(SECRETS), &secrets)?;
    }
    std::fs::write(&manifest, manifest_text(&servers, &paths, !secrets.is_empty())).map_err(|e| Failure::new(2, format!("cannot write {}: {e}", manifest.display())))?;
    eprintln!("toolseal: wrote {} ({} servers)", manifest.display(), servers.len());
    for (i, source) in sources.iter().enumerate() {
        let moved: Vec<&ImportedServer> = pinned.iter().filter(|(j, _)| *j == i).map(|(_, s)| *s).collect();
        if moved.is_empty() {
            continue;
        }
        // The gateway entry carries the client variables the moved servers' references name.
        let env: BTreeMap<String, String> = source.gateway_env.iter().filter(|(var, _)| moved.iter().any(|s| named(var, s))).map(|(k, v)| (k.clone(), v.clone())).collect();
        let keys: Vec<&str> = moved.iter().map(|s| s.key.as_str()).collect();
        let config = rewritten(source, &keys, &manifest, &program, &env);
        let backup = backup_path(&source.path);
        std::fs::copy(&source.path, &backup).map_err(|e| Failure::new(2, format!("cannot back up {} to {}: {e}", source.path.display(), backup.display())))?;
        std::fs::write(&source.path, format!("{}\n", serde_json::to_string_pretty(&config).unwrap_or_default()))
            .map_err(|e| Failure::new(2, format!("cannot write {}: {e}", source.path.display())))?;
        eprintln!("toolseal: rewrote {} to start the gateway (backup at {})", source.path.display(), backup.display());
    }
    Ok(0)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_manifest_holds_references_only_and_reads_back() {
        let config = json!({"mcpServers": {
            "time": {"command": "uvx", "args": ["mcp-server-time"], "env": {"TOKEN": "s3cr3t"}},
            "docs": {"type": "http", "url": "http://127.0.0.1:3001/mcp", "headers": {"Authorization": "Bearer ${DOCS_TOKEN}"}},
        }});
        let imported = read_servers(&config, ClientFormat::ClaudeCode, GATEWAY_KEY).unwrap();
        let servers: Vec<&ImportedServer> = imported.servers.iter().collect();
        let text = manifest_text(&servers, &[PathBuf::from(".mcp.json")], !imported.secrets.is_empty());
        assert!(text.contains("secrets = \"secrets.env\""), "{text}");
        assert!(!text.contains("s3cr3t"), "{text}");
        assert!(text.contains(r#"env = { "TOKEN" = "${TOOLSEAL_TIME_TOKEN}" }"#), "{text}");
        assert!(text.contains(r#"headers = { "Authorization" = "Bearer ${DOCS_TOKEN}" }"#), "{text}");
        let parsed: toml::Value = toml::from_str(&text).expect("TOML");
        assert_eq!(parsed["servers"].as_array().map(Vec::len), Some(2));
    }

    #[test]
    fn the_rewritten_config_starts_the_gateway_and_keeps_the_rest() {
        let config = json!({"theme": "dark", "mcpServers": {"a": {"command": "x"}, "b": {"command": "y"}}});
        let source = Source { path: PathBuf::from("c.json"), format: ClientFormat::ClaudeDesktop, config, servers: Vec::new(), gateway_env: BTreeMap::new(), secrets: BTreeMap::new() };
        let env = BTreeMap::from([("TOOLSEAL_A_K".to_owned(), "v".to_owned())]);
        let out = rewritten(&source, &["a"], Path::new("/d/toolseal.toml"), "/bin/toolseal", &env);
        assert_eq!(out["theme"], "dark");
        assert_eq!(out["mcpServers"]["b"], json!({"command": "y"}), "a server left out stays");
        assert!(out["mcpServers"].get("a").is_none());
        assert_eq!(out["mcpServers"]["toolseal"], json!({"command": "/bin/toolseal", "args": ["gateway", "--manifest", "/d/toolseal.toml"], "env": {"TOOLSEAL_A_K": "v"}}));
        assert_eq!(redacted(out, "mcpServers")["mcpServers"]["toolseal"]["env"]["TOOLSEAL_A_K"], "<redacted>");
    }
}
