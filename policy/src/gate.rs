//! The gate: a resolved call, its caller and its server, decided by the
//! deployment's Cedar policies.

use std::collections::{HashMap, HashSet};

use cedar_policy::{Authorizer, Context, Entities, Entity, EntityUid, Request, RestrictedExpression};
use serde_json::{Map, Value, json};
use toolseal_runtime::pipeline::Decision;

use crate::load::Policies;
use crate::schema::PolicySchema;
use crate::shape::{Shape, project_record};
use crate::{PolicyError, entity_uid};

/// Who calls: `User::"<name>"` in policies, with its `name` and `groups`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Principal {
    /// The entity id.
    pub name: String,
    /// `principal.groups`.
    pub groups: Vec<String>,
}

/// A decision and the policies that made it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Verdict {
    /// Allow, deny (H4, with the policies' `@reason`s) or confirm (`@confirm`).
    pub decision: Decision,
    /// The determining policies' labels (`@id`, or `<file>#<n>`), sorted: the permits of an
    /// allowed call, the forbids of a denied one; empty for Cedar's default deny.
    pub policies: Vec<String>,
}

/// A deployment's policies over its schema, its principals and its servers.
#[derive(Debug)]
pub struct PolicyGate {
    schema: PolicySchema,
    policies: Policies,
    entities: Entities,
    users: HashMap<String, EntityUid>,
    servers: HashMap<String, EntityUid>,
    authorizer: Authorizer,
}

impl PolicyGate {
    /// The gate of `policies` (loaded against `schema`) for `principals`.
    pub fn new(schema: PolicySchema, policies: Policies, principals: &[Principal]) -> Result<PolicyGate, PolicyError> {
        let mut entities = Vec::new();
        let mut users = HashMap::new();
        for principal in principals {
            let uid = entity_uid("User", &principal.name);
            let attributes = HashMap::from([
                ("name".to_owned(), RestrictedExpression::new_string(principal.name.clone())),
                ("groups".to_owned(), RestrictedExpression::new_set(principal.groups.iter().cloned().map(RestrictedExpression::new_string))),
            ]);
            entities.push(Entity::new(uid.clone(), attributes, HashSet::new()).map_err(|e| PolicyError::Entities(e.to_string()))?);
            users.insert(principal.name.clone(), uid);
        }
        let mut servers = HashMap::new();
        for (server, tier) in &schema.servers {
            let uid = entity_uid("Server", server);
            let attributes = HashMap::from([("tier".to_owned(), RestrictedExpression::new_string(tier.clone()))]);
            entities.push(Entity::new(uid.clone(), attributes, HashSet::new()).map_err(|e| PolicyError::Entities(e.to_string()))?);
            servers.insert(server.clone(), uid);
        }
        let entities = Entities::from_entities(entities, Some(&schema.schema)).map_err(|e| PolicyError::Entities(e.to_string()))?;
        Ok(PolicyGate { schema, policies, entities, users, servers, authorizer: Authorizer::new() })
    }

    /// The schema the policies were checked against.
    pub fn schema(&self) -> &PolicySchema {
        &self.schema
    }

    /// The policies.
    pub fn policies(&self) -> &Policies {
        &self.policies
    }

    /// Decides on a resolved call of `action` (a qualified tool name) on `server`
    /// by `principal`, with its arguments. Anything the gate cannot judge exactly — an
    /// unknown principal, an integer beyond 64 bits, a policy that fails to evaluate —
    /// denies the call, saying why.
    pub fn decide(&self, principal: &str, action: &str, server: &str, arguments: Option<&Map<String, Value>>) -> Verdict {
        let deny = |reason: String| Verdict { decision: Decision::Deny { reason }, policies: Vec::new() };
        let Some(info) = self.schema.actions.get(action) else { return deny(format!("`{action}` is not in the policy schema")) };
        let Some(user) = self.users.get(principal) else { return deny(format!("principal {principal:?} is not declared in the manifest's [principals]")) };
        let Some(resource) = self.servers.get(server) else { return deny(format!("server {server:?} is not in the policy schema")) };
        let Shape::Record(attributes) = &info.input else { return deny("the tool's arguments have no record type".to_owned()) };
        let input = match project_record(attributes, arguments.unwrap_or(&Map::new()), &mut String::from("the argument ")) {
            Ok(input) => input,
            Err(why) => return deny(format!("{why}; the policy gate denies what it cannot judge exactly")),
        };
        let context = match Context::from_json_value(json!({ "input": input }), Some((&self.schema.schema, &info.uid))) {
            Ok(context) => context,
            Err(e) => return deny(format!("the call's arguments do not fit the policy schema: {e}")),
        };
        let request = match Request::new(user.clone(), info.uid.clone(), resource.clone(), context, Some(&self.schema.schema)) {
            Ok(request) => request,
            Err(e) => return deny(format!("the call does not fit the policy schema: {e}")),
        };
        let empty = cedar_policy::PolicySet::new();
        let policies = self.policies.by_action.get(action).unwrap_or(&empty);
        let response = self.authorizer.is_authorized(&request, policies, &self.entities);
        let errors: Vec<String> = response.diagnostics().errors().map(|e| e.to_string()).collect();
        if !errors.is_empty() {
            return deny(format!("a policy failed to evaluate ({}); a call the policies cannot fully judge is denied", errors.join("; ")));
        }
        let mut determining: Vec<&crate::load::Meta> = response.diagnostics().reason().filter_map(|id| self.policies.meta.get(id)).collect();
        determining.sort_unstable_by(|a, b| a.label.cmp(&b.label));
        let policies = determining.iter().map(|m| m.label.clone()).collect();
        let decision = match response.decision() {
            cedar_policy::Decision::Allow => match determining.iter().find(|m| m.confirm.is_some()) {
                Some(meta) => {
                    let asked = meta.confirm.as_deref().filter(|c| !c.is_empty()).or(meta.reason.as_deref());
                    Decision::Confirm { prompt: asked.map_or_else(|| format!("policy `{}` asks a person to confirm `{action}`", meta.label), str::to_owned) }
                }
                None => Decision::Allow,
            },
            cedar_policy::Decision::Deny if determining.is_empty() => Decision::Deny { reason: format!("no policy permits User::{principal:?} to call `{action}`") },
            cedar_policy::Decision::Deny => Decision::Deny {
                reason: determining
                    .iter()
                    .map(|m| m.reason.as_ref().map_or_else(|| format!("denied by policy `{}`", m.label), |r| format!("denied by policy `{}`: {r}", m.label)))
                    .collect::<Vec<_>>()
                    .join("; "),
            },
        };
        Verdict { decision, policies }
    }
}
