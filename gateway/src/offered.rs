//! What servers offer besides tools — prompts, resources and resource templates — listed live from each
//! connected server, merged for the client, and resolved in a closed world before a request is forwarded:
//! a prompt the client names must be one a server listed (H1/M1), with only its declared arguments and every
//! required one (H2); a resource URI must be one a server listed or one of its templates matches (H1/M1), on
//! exactly one server (M2); a completion must name a listed prompt and one of its arguments, or a listed
//! template and one of its variables. Prompts are served as `server__prompt`; URIs are served as the servers
//! wrote them. A pin that holds the server's prompts (`toolseal capture`/`approve` write them) is served as
//! pinned: a prompt the server has changed or dropped since is M4 until approved, one it added is unknown.
//! Resources and templates are not pinned (servers list what they hold now): what the server lists is the
//! closed world.

use std::collections::{HashMap, HashSet};

use rmcp::RoleClient;
use rmcp::model::{
    CompleteRequestParams, CompleteResult, ErrorData, GetPromptRequestParams, GetPromptResponse, ListPromptsResult, ListResourceTemplatesResult, ListResourcesResult, Prompt,
    ReadResourceRequestParams, ReadResourceResponse, Reference, Resource, ResourceContents, ResourceTemplate, ServerCapabilities,
};
use rmcp::service::Peer;
use serde_json::{Value, json};
use toolseal_runtime::canonical::sha256_hex;
use toolseal_runtime::closest;
use toolseal_runtime::mcp::Change;

use super::Core;
use super::downstream::Link;

/// One server's prompts, resources and templates, as it listed them on its connection in force.
#[derive(Debug, Clone, Default)]
pub(crate) struct Offered {
    prompts: Vec<Prompt>,
    resources: Vec<Resource>,
    templates: Vec<ResourceTemplate>,
}

impl Offered {
    /// Lists what `peer`'s server offers, by the capabilities it announced; a list that fails is logged and
    /// left empty (its entries are then refused as unknown, never forwarded unchecked).
    pub(crate) async fn list(peer: &Peer<RoleClient>, server: &str, timeout: std::time::Duration) -> Offered {
        let capabilities = peer.peer_info().map(|info| info.capabilities.clone()).unwrap_or_default();
        let mut offered = Offered::default();
        let failed = |what: &str, why: String| tracing::warn!(target: "toolseal::gateway", server, "listing its {what} failed ({why}): they are refused until it lists them");
        if capabilities.prompts.is_some() {
            match tokio::time::timeout(timeout, peer.list_all_prompts()).await {
                Ok(Ok(prompts)) => offered.prompts = prompts,
                Ok(Err(e)) => failed("prompts", e.to_string()),
                Err(_) => failed("prompts", "no answer in time".to_owned()),
            }
        }
        if capabilities.resources.is_some() {
            match tokio::time::timeout(timeout, peer.list_all_resources()).await {
                Ok(Ok(resources)) => offered.resources = resources,
                Ok(Err(e)) => failed("resources", e.to_string()),
                Err(_) => failed("resources", "no answer in time".to_owned()),
            }
            match tokio::time::timeout(timeout, peer.list_all_resource_templates()).await {
                Ok(Ok(templates)) => offered.templates = templates,
                Ok(Err(e)) => failed("resource templates", e.to_string()),
                Err(_) => failed("resource templates", "no answer in time".to_owned()),
            }
        }
        offered
    }
}

/// The separator of a served prompt name: a server's name never holds `_`, so `server__prompt` splits at its first `__`.
const SEPARATOR: &str = "__";

/// Joins a server's name to a URI several servers offer: `server+uri` (a server's name holds no `+`).
const QUALIFIER: char = '+';

impl Core {
    /// The server a URI names by its qualified form `server+uri`, and the rest: a URI that starts with a
    /// configured server's name and `+` is only ever read as qualified.
    fn qualified<'u>(&self, uri: &'u str) -> Option<(usize, &'u str)> {
        let (name, inner) = uri.split_once(QUALIFIER)?;
        Some((self.servers.iter().position(|server| server.name == name)?, inner))
    }

    /// `uri` of server `s` as served: qualified when another connected server lists it too (`listers`: how many
    /// servers list each URI), or when it would read as another server's qualified form.
    fn served_uri(&self, listers: &HashMap<&str, usize>, s: usize, uri: &str) -> String {
        if listers.get(uri).copied().unwrap_or(0) > 1 || self.qualified(uri).is_some() { format!("{}{QUALIFIER}{uri}", self.servers[s].name) } else { uri.to_owned() }
    }
}

/// How many servers list each URI, from (server, URI) pairs.
fn listers<'a>(listed: impl Iterator<Item = (usize, &'a str)>) -> HashMap<&'a str, usize> {
    let mut counts = HashMap::new();
    for (_, uri) in listed.collect::<HashSet<_>>() {
        *counts.entry(uri).or_insert(0) += 1;
    }
    counts
}

/// A refusal in the shape of the tools' M1/H1 (JSON-RPC `-32602`, the class and pointer as `data`), or `-32002`
/// for a resource.
fn refused(class: &str, pointer: &str, message: String, suggestions: Vec<String>) -> ErrorData {
    let data = Some(json!({ "class": class, "pointer": pointer, "suggestions": suggestions }));
    if pointer == "/params/uri" { ErrorData::resource_not_found(message, data) } else { ErrorData::invalid_params(message, data) }
}

/// Whether `uri` is one `template` (RFC 6570) can produce: literal parts match as written; `{var}` stands for a
/// non-empty run without `/`, `?` or `#`; `{+var}` and `{#var}` for any run; `{/var}`, `{.var}`, `{;var}`,
/// `{?var}` and `{&var}` for their prefix and what follows up to the next reserved character.
pub(crate) fn template_matches(template: &str, uri: &str) -> bool {
    /// A piece of a template: literal text, or an expression's operator.
    enum Piece<'a> {
        Literal(&'a str),
        Expression(Option<char>),
    }
    let mut pieces = Vec::new();
    let mut rest = template;
    while let Some(open) = rest.find('{') {
        let Some(close) = rest[open..].find('}').map(|c| open + c) else { return false };
        if open > 0 {
            pieces.push(Piece::Literal(&rest[..open]));
        }
        pieces.push(Piece::Expression(rest[open + 1..close].chars().next().filter(|c| "+#/.;?&".contains(*c))));
        rest = &rest[close + 1..];
    }
    if !rest.is_empty() {
        pieces.push(Piece::Literal(rest));
    }
    fn walk(pieces: &[Piece<'_>], uri: &str) -> bool {
        let Some((first, more)) = pieces.split_first() else { return uri.is_empty() };
        match first {
            Piece::Literal(text) => uri.strip_prefix(text).is_some_and(|rest| walk(more, rest)),
            Piece::Expression(operator) => {
                let (prefix, stops): (&str, &[char]) = match operator {
                    Some('+' | '#') => ("", &[]),
                    Some('/') => ("/", &['?', '#']),
                    Some('.') => (".", &['/', '?', '#']),
                    Some(';') => (";", &['/', '?', '#']),
                    Some('?') => ("?", &['#']),
                    Some('&') => ("&", &['#']),
                    _ => ("", &['/', '?', '#']),
                };
                // An operator's expression may expand to nothing (all its variables undefined).
                if operator.is_some() && walk(more, uri) {
                    return true;
                }
                let Some(value) = uri.strip_prefix(prefix) else { return false };
                let end = value.find(stops).unwrap_or(value.len());
                (1..=end).rev().any(|n| value.is_char_boundary(n) && walk(more, &value[n..]))
            }
        }
    }
    walk(&pieces, uri)
}

impl Core {
    /// What each server offers now, with its index, for the servers that are connected.
    fn offered(&self) -> Vec<(usize, Offered)> {
        self.servers.iter().enumerate().filter(|(_, s)| matches!(s.link(), Link::Up(..))).map(|(i, s)| (i, s.offered())).collect()
    }

    /// The capabilities of what the gateway relays besides tools: each only when a connected server has it.
    pub(super) fn offered_capabilities(&self, capabilities: &mut ServerCapabilities) {
        let (mut prompts, mut resources, mut completions, mut subscribe, mut logging) = (false, false, false, false, false);
        for server in &self.servers {
            if let Link::Up(peer, _) = server.link()
                && let Some(info) = peer.peer_info()
            {
                prompts |= info.capabilities.prompts.is_some();
                resources |= info.capabilities.resources.is_some();
                completions |= info.capabilities.completions.is_some();
                subscribe |= info.capabilities.resources.as_ref().and_then(|r| r.subscribe).unwrap_or(false);
                logging |= info.capabilities.logging.is_some();
            }
        }
        let relayed = ServerCapabilities::builder().enable_prompts().enable_prompts_list_changed().enable_resources().enable_resources_list_changed().enable_completions().build();
        capabilities.prompts = relayed.prompts.filter(|_| prompts);
        capabilities.resources = relayed.resources.filter(|_| resources);
        capabilities.completions = relayed.completions.filter(|_| completions);
        if let Some(resources) = capabilities.resources.as_mut() {
            resources.subscribe = subscribe.then_some(true);
        }
        if logging {
            #[allow(deprecated)] // logging: gone from 2026-07-28 (SEP-2577), used by clients before it
            let logging = ServerCapabilities::builder().enable_logging().build().logging;
            capabilities.logging = logging;
        }
    }

    /// The prompts server `s` is served with: its pin's (when the pin holds prompts and changes are held), or
    /// what it lists.
    fn served_prompts(&self, s: usize, offered: &Offered) -> Vec<Prompt> {
        match self.pins_prompts(s) {
            Some(pinned) => {
                let mut prompts: Vec<Prompt> = pinned.into_values().filter_map(|p| serde_json::from_value(p).ok()).collect();
                prompts.sort_by(|a, b| a.name.cmp(&b.name));
                prompts
            }
            None => offered.prompts.clone(),
        }
    }

    /// How server `s`'s live prompts differ from the prompts its pin holds (`None` when its pin holds none, or
    /// it is not connected): a prompt changed since (its digests, `_meta` aside), added or removed.
    pub(super) fn prompt_changes(&self, s: usize) -> Option<Vec<(String, Change)>> {
        let server = &self.servers[s];
        let pinned = server.pinned_prompts()?;
        if !matches!(server.link(), Link::Up(..)) {
            return None;
        }
        let live = server.offered().prompts;
        let digest = |v: &Value| sha256_hex(without_meta(v).to_string().as_bytes());
        let mut changes: Vec<(String, Change)> = pinned
            .iter()
            .map(|(name, pin)| {
                let change = match live.iter().find(|p| &p.name == name) {
                    None => Change::Removed,
                    Some(prompt) if same_prompt(pin, prompt) => Change::Unchanged,
                    Some(prompt) => Change::Changed { compiled: digest(pin), live: digest(&serde_json::to_value(prompt).unwrap_or_default()) },
                };
                (name.clone(), change)
            })
            .chain(live.iter().filter(|p| !pinned.contains_key(p.name.as_str())).map(|p| (p.name.clone(), Change::Added)))
            .collect();
        changes.sort_by(|a, b| a.0.cmp(&b.0));
        Some(changes)
    }

    /// Server `s`'s pinned prompts, if its pin holds them and listing changes are held (not accepted).
    fn pins_prompts(&self, s: usize) -> Option<HashMap<String, Value>> {
        if self.options.on_change == super::OnChange::Accept {
            return None;
        }
        self.servers[s].pinned_prompts()
    }

    /// Every connected server's prompts, named `server__prompt`.
    pub(super) fn list_prompts(&self) -> ListPromptsResult {
        let mut prompts = Vec::new();
        for (s, offered) in self.offered() {
            for mut served in self.served_prompts(s, &offered) {
                served.name = format!("{}{SEPARATOR}{}", self.servers[s].name, served.name);
                prompts.push(served);
            }
        }
        ListPromptsResult::with_all_items(prompts)
    }

    /// The server and the prompt `name` (served as `server__prompt`) names; M1 with the closest names otherwise.
    fn prompt(&self, name: &str) -> Result<(Peer<RoleClient>, Prompt), ErrorData> {
        let offered = self.offered();
        let split = name.split_once(SEPARATOR).and_then(|(server, prompt)| Some((offered.iter().find(|(s, _)| self.servers[*s].name == server)?, prompt)));
        let found = match split {
            Some(((s, listed), prompt)) => match self.pins_prompts(*s) {
                None => listed.prompts.iter().find(|p| p.name == prompt).map(|p| (*s, p.clone())),
                Some(pinned) => {
                    let server = &self.servers[*s].name;
                    let live = listed.prompts.iter().find(|p| p.name == prompt);
                    match (pinned.get(prompt), live) {
                        (Some(pin), Some(live)) if same_prompt(pin, live) => Some((*s, live.clone())),
                        (Some(_), Some(_)) => {
                            return Err(refused(
                                "M4",
                                "/params/name",
                                format!("M4 at /params/name: prompt {name:?} changed on server {server:?} since it was pinned; it is refused until approved (toolseal approve {server})."),
                                Vec::new(),
                            ));
                        }
                        (Some(_), None) => {
                            return Err(refused("M4", "/params/name", format!("M4 at /params/name: server {server:?} no longer lists prompt {prompt:?}, which its pin holds."), Vec::new()));
                        }
                        (None, Some(_)) => {
                            return Err(refused(
                                "M1",
                                "/params/name",
                                format!("M1 at /params/name: server {server:?} lists prompt {prompt:?}, which is not in its pin; it is unknown until approved (toolseal approve {server})."),
                                Vec::new(),
                            ));
                        }
                        (None, None) => None,
                    }
                }
            },
            None => None,
        };
        match found {
            Some((s, prompt)) => match self.servers[s].link() {
                Link::Up(peer, _) => Ok((peer, prompt)),
                _ => Err(ErrorData::internal_error(format!("server {:?} is not connected", self.servers[s].name), None)),
            },
            None => {
                let served: Vec<String> = offered.iter().flat_map(|(s, o)| self.served_prompts(*s, o).into_iter().map(move |p| format!("{}{SEPARATOR}{}", self.servers[*s].name, p.name))).collect();
                let near: Vec<String> = closest(name, served.iter().map(String::as_str), 3).into_iter().map(str::to_owned).collect();
                let hint = if near.is_empty() { String::new() } else { format!(" Closest: {}.", near.join(", ")) };
                Err(refused("M1", "/params/name", format!("M1 at /params/name: no connected server provides prompt {name:?}.{hint} Get a prompt that `prompts/list` lists."), near))
            }
        }
    }

    /// `prompts/get`: the prompt resolved, its arguments checked against the ones it declares, then forwarded
    /// under the server's own name for it.
    pub(super) async fn get_prompt(&self, request: GetPromptRequestParams) -> Result<GetPromptResponse, ErrorData> {
        let (peer, prompt) = self.prompt(&request.name)?;
        let declared = prompt.arguments.as_deref().unwrap_or_default();
        let names = || declared.iter().map(|a| a.name.clone()).collect::<Vec<_>>();
        let given = request.arguments.as_ref();
        if let Some(key) = given.and_then(|g| g.keys().find(|k| !declared.iter().any(|a| &a.name == *k))) {
            let listed = if declared.is_empty() { "none".to_owned() } else { names().join(", ") };
            return Err(refused(
                "H2",
                &format!("/params/arguments/{key}"),
                format!("H2 at /params/arguments/{key}: prompt {:?} does not declare argument {key:?}; declared: {listed}. Send only the declared arguments.", request.name),
                names(),
            ));
        }
        if let Some(missing) = declared.iter().find(|a| a.required == Some(true) && !given.is_some_and(|g| g.contains_key(&a.name))) {
            return Err(refused("H2", "/params/arguments", format!("H2 at /params/arguments: prompt {:?} requires argument {:?}. Send every required argument.", request.name, missing.name), names()));
        }
        if let Some((key, _)) = given.and_then(|g| g.iter().find(|(_, v)| !v.is_string())) {
            return Err(refused("H3", &format!("/params/arguments/{key}"), format!("H3 at /params/arguments/{key}: prompt arguments are strings. Send {key:?} as a string."), Vec::new()));
        }
        let mut forwarded = request;
        forwarded.name = prompt.name;
        // rmcp connects downstream with `initialize`, where input rounds (2026-07-28) do not exist.
        forwarded.input_responses = None;
        forwarded.request_state = None;
        peer.get_prompt_once(forwarded).await.map_err(|e| ErrorData::internal_error(format!("the server did not answer the prompt: {e}"), None))
    }

    /// Every connected server's resources, as they wrote them (a URI two servers list: each in its qualified form).
    pub(super) fn list_resources(&self) -> ListResourcesResult {
        let offered = self.offered();
        let listers = listers(offered.iter().flat_map(|(s, o)| o.resources.iter().map(move |r| (*s, r.uri.as_str()))));
        let served = offered.iter().flat_map(|(s, o)| {
            o.resources.iter().map(|r| {
                let mut r = r.clone();
                r.uri = self.served_uri(&listers, *s, &r.uri);
                r
            })
        });
        ListResourcesResult::with_all_items(served.collect())
    }

    /// Every connected server's resource templates, as they wrote them (one two servers list: each qualified).
    pub(super) fn list_resource_templates(&self) -> ListResourceTemplatesResult {
        let offered = self.offered();
        let listers = listers(offered.iter().flat_map(|(s, o)| o.templates.iter().map(move |t| (*s, t.uri_template.as_str()))));
        let served = offered.iter().flat_map(|(s, o)| {
            o.templates.iter().map(|t| {
                let mut t = t.clone();
                t.uri_template = self.served_uri(&listers, *s, &t.uri_template);
                t
            })
        });
        ListResourceTemplatesResult::with_all_items(served.collect())
    }

    /// The one server a URI the client names is for, and the URI as that server wrote it: a URI one server lists
    /// (or one of its templates matches), or the qualified form `server+uri` of a URI several servers offer.
    pub(super) fn resource_route(&self, uri: &str) -> Result<(usize, Peer<RoleClient>, String), ErrorData> {
        let offered = self.offered();
        let owners = |uri: &str| -> Vec<usize> {
            let listed: Vec<usize> = offered.iter().filter(|(_, o)| o.resources.iter().any(|r| r.uri == uri)).map(|(s, _)| *s).collect();
            if !listed.is_empty() {
                return listed;
            }
            offered.iter().filter(|(_, o)| o.templates.iter().any(|t| template_matches(&t.uri_template, uri))).map(|(s, _)| *s).collect()
        };
        let route = |s: usize, uri: &str| match self.servers[s].link() {
            Link::Up(peer, _) => Ok((s, peer, uri.to_owned())),
            _ => Err(ErrorData::internal_error(format!("server {:?} is not connected", self.servers[s].name), None)),
        };
        // `server+uri`: that server's, and no other's (a URI a server lists that starts so is served qualified too).
        if let Some((s, inner)) = self.qualified(uri) {
            if owners(inner).contains(&s) {
                return route(s, inner);
            }
            return Err(refused("M1", "/params/uri", format!("M1 at /params/uri: server {:?} lists no resource {inner:?} and no template that matches it.", self.servers[s].name), Vec::new()));
        }
        let found = owners(uri);
        if let [s] = found.as_slice() {
            return route(*s, uri);
        }
        if found.is_empty() {
            let listed = offered.iter().flat_map(|(_, o)| o.resources.iter().map(|r| r.uri.as_str()).chain(o.templates.iter().map(|t| t.uri_template.as_str())));
            let near: Vec<String> = closest(uri, listed, 3).into_iter().map(str::to_owned).collect();
            let hint = if near.is_empty() { String::new() } else { format!(" Closest: {}.", near.join(", ")) };
            return Err(refused(
                "M1",
                "/params/uri",
                format!("M1 at /params/uri: no connected server lists resource {uri:?} or a template that matches it.{hint} Read a URI that `resources/list` or `resources/templates/list` gives."),
                near,
            ));
        }
        let qualified: Vec<String> = found.iter().map(|s| format!("{}{QUALIFIER}{uri}", self.servers[*s].name)).collect();
        Err(refused(
            "M2",
            "/params/uri",
            format!("M2 at /params/uri: resource {uri:?} is offered by several servers; the gateway does not guess which. Name one: {}.", qualified.join(", ")),
            qualified,
        ))
    }

    /// `resources/read`: a URI a server listed (or one of its templates matches) goes to that server, as it wrote it.
    pub(super) async fn read_resource(&self, request: ReadResourceRequestParams) -> Result<ReadResourceResponse, ErrorData> {
        let asked = request.uri.clone();
        let (_, peer, uri) = self.resource_route(&asked)?;
        let mut forwarded = request;
        forwarded.uri = uri.clone();
        forwarded.input_responses = None;
        forwarded.request_state = None;
        let mut answer = peer.read_resource_once(forwarded).await.map_err(|e| ErrorData::internal_error(format!("the server did not answer the read: {e}"), None))?;
        // The contents name the resource as the client asked for it.
        if asked != uri
            && let ReadResourceResponse::Complete(result) = &mut answer
        {
            for content in &mut result.contents {
                if let ResourceContents::TextResourceContents { uri: named, .. } | ResourceContents::BlobResourceContents { uri: named, .. } = content
                    && *named == uri
                {
                    named.clone_from(&asked);
                }
            }
        }
        Ok(answer)
    }

    /// `completion/complete`: for a listed prompt and one of its declared arguments, or a listed template and one
    /// of its variables, forwarded to its server.
    pub(super) async fn complete(&self, request: CompleteRequestParams) -> Result<CompleteResult, ErrorData> {
        let argument = request.argument.name.clone();
        let (peer, forwarded) = match &request.r#ref {
            Reference::Prompt(reference) => {
                let (peer, prompt) = self.prompt(&reference.name)?;
                let declared: Vec<String> = prompt.arguments.iter().flatten().map(|a| a.name.clone()).collect();
                if !declared.contains(&argument) {
                    return Err(refused(
                        "H2",
                        "/params/argument/name",
                        format!("H2 at /params/argument/name: prompt {:?} does not declare argument {argument:?}; declared: {}.", reference.name, declared.join(", ")),
                        declared,
                    ));
                }
                let mut forwarded = request.clone();
                if let Reference::Prompt(r) = &mut forwarded.r#ref {
                    r.name = prompt.name;
                }
                (peer, forwarded)
            }
            Reference::Resource(reference) => {
                let offered = self.offered();
                let owners: Vec<usize> = offered.iter().filter(|(_, o)| o.templates.iter().any(|t| t.uri_template == reference.uri)).map(|(s, _)| *s).collect();
                let [s] = owners.as_slice() else {
                    let listed = offered.iter().flat_map(|(_, o)| o.templates.iter().map(|t| t.uri_template.as_str()));
                    let near: Vec<String> = closest(&reference.uri, listed, 3).into_iter().map(str::to_owned).collect();
                    let why = if owners.is_empty() { "no connected server lists template" } else { "several servers list template" };
                    return Err(refused(
                        if owners.is_empty() { "M1" } else { "M2" },
                        "/params/ref/uri",
                        format!("{} at /params/ref/uri: {why} {:?}.", if owners.is_empty() { "M1" } else { "M2" }, reference.uri),
                        near,
                    ));
                };
                if !template_variables(&reference.uri).any(|v| v == argument) {
                    let variables: Vec<String> = template_variables(&reference.uri).map(str::to_owned).collect();
                    return Err(refused(
                        "H2",
                        "/params/argument/name",
                        format!("H2 at /params/argument/name: template {:?} has no variable {argument:?}; its variables: {}.", reference.uri, variables.join(", ")),
                        variables,
                    ));
                }
                let Link::Up(peer, _) = self.servers[*s].link() else {
                    return Err(ErrorData::internal_error(format!("server {:?} is not connected", self.servers[*s].name), None));
                };
                (peer, request.clone())
            }
            _ => return Err(ErrorData::invalid_params("completion/complete: a reference of a kind this gateway does not know", None)),
        };
        peer.complete(forwarded).await.map_err(|e| ErrorData::internal_error(format!("the server did not answer the completion: {e}"), None))
    }

    /// Tells every client that the prompts or resources changed: on its session, or on its
    /// 2026-07-28 `subscriptions/listen` stream.
    pub(crate) fn announce_offered(&self, prompts: bool, resources: bool) {
        if prompts {
            let _ = self.changed.send(super::Changed::Prompts);
        }
        if resources {
            let _ = self.changed.send(super::Changed::Resources);
        }
        for peer in self.live_sessions() {
            tokio::spawn(async move {
                if prompts {
                    let _ = peer.notify_prompt_list_changed().await;
                }
                if resources {
                    let _ = peer.notify_resource_list_changed().await;
                }
            });
        }
    }
}

/// Whether the live `prompt` is the `pinned` one (its `_meta` aside).
fn same_prompt(pinned: &Value, prompt: &Prompt) -> bool {
    without_meta(pinned) == without_meta(&serde_json::to_value(prompt).unwrap_or_default())
}

/// A prompt's definition without its `_meta` (which servers may vary between listings).
fn without_meta(prompt: &Value) -> Value {
    let mut prompt = prompt.clone();
    if let Some(object) = prompt.as_object_mut() {
        object.remove("_meta");
    }
    prompt
}

/// The variable names of an RFC 6570 template (`{a,b}`, `{+path}`, `{id*}`, `{x:3}`).
fn template_variables(template: &str) -> impl Iterator<Item = &str> {
    template
        .split('{')
        .skip(1)
        .filter_map(|part| part.split_once('}'))
        .flat_map(|(expression, _)| expression.trim_start_matches(|c| "+#/.;?&".contains(c)).split(',').map(|v| v.trim_end_matches('*').split(':').next().unwrap_or(v)))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_template_matches_what_it_can_produce_and_nothing_else() {
        let yes = [
            ("test://static/resource/{id}", "test://static/resource/42"),
            ("file:///{+path}", "file:///srv/a/b.txt"),
            ("notes://{user}/{id}", "notes://ann/7"),
            ("search://q{?term,limit}", "search://q?term=x&limit=3"),
            ("search://q{?term}", "search://q"),
            ("repo://x{/segments*}", "repo://x/a/b"),
        ];
        for (template, uri) in yes {
            assert!(template_matches(template, uri), "{template} should match {uri}");
        }
        let no = [
            ("test://static/resource/{id}", "test://static/resource/"),
            ("test://static/resource/{id}", "test://static/resource/4/2"),
            ("test://static/resource/{id}", "test://static/other/4"),
            ("notes://{user}/{id}", "notes://ann"),
            ("file:///{+path}", "http:///x"),
            ("broken://{id", "broken://{id"),
        ];
        for (template, uri) in no {
            assert!(!template_matches(template, uri), "{template} should not match {uri}");
        }
    }

    #[test]
    fn template_variables_are_named_without_operators_or_modifiers() {
        assert_eq!(template_variables("x://{+path}/{a,b*}{?q:3}").collect::<Vec<_>>(), ["path", "a", "b", "q"]);
    }
}
