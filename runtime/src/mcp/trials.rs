//! Deterministic trial calls for a merged deployment, for tests and the
//! benchmark: per class M1–M5 calls that must be rejected, and honest flat,
//! qualified and pinned calls that must be accepted. Arguments come from the
//! tools' own compiled definitions (the honest probes of [`crate::probe`]);
//! M5 calls are another server's honest arguments that the routed tool
//! rejects, kept only when that is so — nothing is tuned.

use serde_json::{Map, Value, json};

use super::{Catalog, McpSet, Route};
use crate::check::Cx;
use crate::json::Json;
use crate::probe::{Expect, probes};
use crate::rejection::Class;
use crate::schema::{CompileOptions, compile_tool_schema};

/// What a trial is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum TrialKind {
    /// A hallucinated or hostile call of this class (M1–M5).
    Attack(Class),
    /// An honest call naming a tool only one server provides.
    HonestFlat,
    /// An honest flat call on a name several same-tier servers provide, meant for
    /// the server the deployment pinned: rejected under `Strict` (M2), accepted under `PinAssisted`.
    HonestPinnedFlat,
    /// An honest call by qualified name.
    HonestQualified,
    /// An honest call pinning its server (`{server, name}`).
    HonestPinned,
}

/// One trial call.
#[derive(Debug, Clone)]
pub struct Trial {
    /// What it is.
    pub kind: TrialKind,
    /// `{"name": ..., "arguments": {...}[, "server": ...]}`.
    pub call: String,
    /// When set, the stamp of the listing the model saw (M4 trials: an older one).
    pub stamp: Option<String>,
    /// The `(server, tool)` an honest trial must reach.
    pub route: Option<Route>,
}

/// A small deterministic generator (xorshift64*), so that trials are reproducible from a seed.
#[derive(Debug, Clone)]
pub struct Rng(u64);

impl Rng {
    /// A generator seeded with `seed`.
    pub fn new(seed: u64) -> Rng {
        Rng(seed.max(1))
    }

    /// The next value.
    pub fn next_u64(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }

    /// An index below `n` (`n > 0`).
    pub fn below(&mut self, n: usize) -> usize {
        (self.next_u64() % n as u64) as usize
    }

    /// One element of a non-empty slice.
    pub fn pick<'a, T>(&mut self, items: &'a [T]) -> &'a T {
        &items[self.below(items.len())]
    }
}

/// Honest arguments for every route, from the definitions compiled into `M`.
fn honest_arguments<M: McpSet>(catalog: &Catalog) -> Vec<(Route, Vec<Value>)> {
    let mut out = Vec::new();
    for route in catalog.routes() {
        let Some(text) = M::tool_info(route).map(|i| i.definition) else { continue };
        let Ok(def) = Json::parse(text.as_bytes()) else { continue };
        let schema = def.get("inputSchema").cloned().unwrap_or(Json::Object(Vec::new()));
        let Ok(doc) = compile_tool_schema(&schema.into_owned(), &CompileOptions::default()) else { continue };
        let name = catalog.tool(route).name.clone();
        let args: Vec<Value> = probes(&[name.as_str()], &name, &doc)
            .into_iter()
            .filter(|p| p.expect == Expect::Accept)
            .filter_map(|p| serde_json::from_str::<Value>(&p.call).ok().map(|c| c["arguments"].clone()))
            // Keep only what the generated code accepts (the probes' own guarantee, checked).
            .filter(|a| M::resolve_on(route, Some(&Json::from_value(a)), &mut Cx::strict()).is_ok())
            .collect();
        if !args.is_empty() {
            out.push((route, args));
        }
    }
    out
}

fn call(name: &str, arguments: &Value, server: Option<&str>) -> String {
    let mut call = Map::new();
    call.insert("name".into(), json!(name));
    call.insert("arguments".into(), arguments.clone());
    if let Some(server) = server {
        call.insert("server".into(), json!(server));
    }
    Value::Object(call).to_string()
}

/// Up to `per_kind` trials of every kind the deployment can express, from `seed`.
/// A kind the deployment cannot express (no shadowed name: no M3) is absent.
pub fn trials<M: McpSet>(catalog: &Catalog, per_kind: usize, seed: u64) -> Vec<Trial> {
    let mut rng = Rng::new(seed);
    let honest = honest_arguments::<M>(catalog);
    let tier = |r: &Route| catalog.server(*r).tier;
    let providers = |r: &Route| catalog.providers(&catalog.tool(*r).name);
    let unique: Vec<&(Route, Vec<Value>)> = honest.iter().filter(|(r, _)| providers(r).len() == 1).collect();
    let shadowed: Vec<&(Route, Vec<Value>)> = honest.iter().filter(|(r, _)| providers(r).iter().any(|p| tier(p) != tier(r))).collect();
    let same_tier = |r: &Route| providers(r).len() > 1 && providers(r).iter().all(|p| tier(p) == tier(r));
    let pinned_flat: Vec<&(Route, Vec<Value>)> = honest.iter().filter(|(r, _)| same_tier(r) && catalog.pin(&catalog.tool(*r).name) == Some(r.server)).collect();
    let ambiguous: Vec<&(Route, Vec<Value>)> = honest.iter().filter(|(r, _)| same_tier(r) && catalog.pin(&catalog.tool(*r).name).is_none()).collect();
    // M5: another provider's honest arguments that this route rejects.
    let mut m5: Vec<(Route, Value)> = Vec::new();
    for (route, _) in &honest {
        for other in providers(route).iter().filter(|o| o.server != route.server) {
            if let Some((_, args)) = honest.iter().find(|(r, _)| r == other) {
                for a in args {
                    if M::resolve_on(*route, Some(&Json::from_value(a)), &mut Cx::strict()).is_err() {
                        m5.push((*route, a.clone()));
                    }
                }
            }
        }
    }
    let stamp = catalog.stamp();
    let mut out = Vec::new();
    let mut push = |kind, call, stamp, route| out.push(Trial { kind, call, stamp, route });
    let servers = catalog.servers();
    for _ in 0..per_kind {
        // M1: a name no server provides, a server that is not connected, or a server without the tool.
        let (route, args) = rng.pick(&honest);
        let tool = &catalog.tool(*route).name;
        let arguments = rng.pick(args).clone();
        let m1 = match rng.below(3) {
            0 => call(&format!("{tool}_{}", rng.pick(&["v2", "admin", "all", "force"])), &arguments, None),
            1 => call(tool, &arguments, Some(*rng.pick(&["shadow-server", "localhost", "root"]))),
            _ => match servers.iter().find(|s| !s.tools.iter().any(|t| t.name == *tool)) {
                Some(s) => call(tool, &arguments, Some(&s.name)),
                None => call(&format!("{tool}_v2"), &arguments, None),
            },
        };
        push(TrialKind::Attack(Class::M1), m1, None, None);
        if !ambiguous.is_empty() {
            let (route, args) = rng.pick(&ambiguous);
            push(TrialKind::Attack(Class::M2), call(&catalog.tool(*route).name, rng.pick(args), None), None, None);
        }
        if !shadowed.is_empty() {
            let (route, args) = rng.pick(&shadowed);
            push(TrialKind::Attack(Class::M3), call(&catalog.tool(*route).name, rng.pick(args), None), None, None);
        }
        // M4: an honest call made from a listing older than the one enforced.
        let (route, args) = rng.pick(&honest);
        let old = crate::canonical::sha256_hex(format!("{stamp} before {} changed", catalog.qualified(*route)).as_bytes());
        push(TrialKind::Attack(Class::M4), call(catalog.qualified(*route), rng.pick(args), None), Some(old), None);
        if !m5.is_empty() {
            let (route, args) = rng.pick(&m5);
            let c = if rng.below(2) == 0 { call(catalog.qualified(*route), args, None) } else { call(&catalog.tool(*route).name, args, Some(&catalog.server(*route).name)) };
            push(TrialKind::Attack(Class::M5), c, None, None);
        }
        if !unique.is_empty() {
            let (route, args) = rng.pick(&unique);
            push(TrialKind::HonestFlat, call(&catalog.tool(*route).name, rng.pick(args), None), None, Some(*route));
        }
        if !pinned_flat.is_empty() {
            let (route, args) = rng.pick(&pinned_flat);
            push(TrialKind::HonestPinnedFlat, call(&catalog.tool(*route).name, rng.pick(args), None), None, Some(*route));
        }
        let (route, args) = rng.pick(&honest);
        push(TrialKind::HonestQualified, call(catalog.qualified(*route), rng.pick(args), None), None, Some(*route));
        let (route, args) = rng.pick(&honest);
        push(TrialKind::HonestPinned, call(&catalog.tool(*route).name, rng.pick(args), Some(&catalog.server(*route).name)), None, Some(*route));
    }
    out
}
