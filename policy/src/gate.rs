//! The gate: a resolved call, its caller and its server, decided by the
//! deployment's Cedar policies.

use std::collections::{HashMap, HashSet};

use cedar_policy::{Authorizer, Context, Effect, Entities, Entity, EntityUid, PolicySet, PrincipalConstraint, Request, ResourceConstraint, RestrictedExpression};
use serde_json::{Map, Value};
use toolseal_runtime::pipeline::Decision;

use crate::load::Policies;
use crate::schema::PolicySchema;
use crate::shape::{Attribute, Shape};
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
    /// Principal → action → the policies whose scope (principal, action, resource) can
    /// match its calls: principals and servers have no parents, so a scope is decided here.
    scoped: HashMap<String, HashMap<String, PolicySet>>,
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
        let mut scoped: HashMap<String, HashMap<String, PolicySet>> = HashMap::new();
        for (name, user) in &users {
            let by_action = scoped.entry(name.clone()).or_default();
            for (action, set) in &policies.by_action {
                let Some(server) = schema.actions.get(action).and_then(|a| servers.get(&a.server)) else { continue };
                let mut applying = PolicySet::new();
                for policy in set.policies().filter(|p| principal_in_scope(p.principal_constraint(), user) && resource_in_scope(p.resource_constraint(), server)) {
                    // Ids are unique in `set`, so in every subset.
                    let _ = applying.add(policy.clone());
                }
                by_action.insert(action.clone(), applying);
            }
        }
        Ok(PolicyGate { schema, policies, entities, users, servers, scoped, authorizer: Authorizer::new() })
    }

    /// Whether some call of `action` by `principal` could be allowed: a permit applies to
    /// it by its scope, and no forbid without conditions does. Conditions are not
    /// evaluated, so `true` is a could, never a will; `false` is certain — every such
    /// call is denied — and the gateway leaves the tool out of that principal's listing.
    pub fn may_allow(&self, principal: &str, action: &str) -> bool {
        let Some(set) = self.scoped.get(principal).and_then(|a| a.get(action)) else { return false };
        set.policies().any(|p| p.effect() == Effect::Permit) && !set.policies().any(|p| p.effect() == Effect::Forbid && !p.has_non_scope_constraint())
    }

    /// How many policies can apply to `principal`'s calls of `action`, by their scope.
    pub fn applicable(&self, principal: &str, action: &str) -> usize {
        self.scoped.get(principal).and_then(|a| a.get(action)).map_or(0, |set| set.policies().count())
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
        let input = match record(attributes, arguments.unwrap_or(&Map::new()), &mut String::from("the argument ")) {
            Ok(input) => input,
            Err(why) => return deny(format!("{why}; the policy gate denies what it cannot judge exactly")),
        };
        let context = match Context::from_pairs([("input".to_owned(), input)]) {
            Ok(context) => context,
            Err(e) => return deny(format!("the call's arguments do not fit the policy schema: {e}")),
        };
        // The context is the schema's own typing of arguments that resolution checked (see
        // `value`): a value of another type is an error above, never a request Cedar would
        // have to catch, so the request is not validated again.
        let request = match Request::new(user.clone(), info.uid.clone(), resource.clone(), context, None) {
            Ok(request) => request,
            Err(e) => return deny(format!("the call does not fit the policy schema: {e}")),
        };
        let empty = PolicySet::new();
        let policies = self.scoped.get(principal).and_then(|a| a.get(action)).unwrap_or(&empty);
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

/// Whether a policy's principal scope can match `user` (an entity without parents).
fn principal_in_scope(scope: PrincipalConstraint, user: &EntityUid) -> bool {
    match scope {
        PrincipalConstraint::In(uid) | PrincipalConstraint::Eq(uid) => uid == *user,
        PrincipalConstraint::Is(kind) => kind == *user.type_name(),
        PrincipalConstraint::IsIn(kind, uid) => kind == *user.type_name() && uid == *user,
        PrincipalConstraint::Any => true,
    }
}

/// Whether a policy's resource scope can match `server` (an entity without parents).
fn resource_in_scope(scope: ResourceConstraint, server: &EntityUid) -> bool {
    match scope {
        ResourceConstraint::In(uid) | ResourceConstraint::Eq(uid) => uid == *server,
        ResourceConstraint::Is(kind) => kind == *server.type_name(),
        ResourceConstraint::IsIn(kind, uid) => kind == *server.type_name() && uid == *server,
        ResourceConstraint::Any => true,
    }
}

/// `value` as the Cedar value of type `shape`: keys without a type dropped, an integer
/// written `3.0` taken as `3`. A value that does not fit — an integer beyond 64 bits, or
/// anything the JSON Schema itself refuses (resolution ran first) — is an error naming
/// where, and the gate denies the call rather than guess.
fn value(shape: &Shape, value: &Value, at: &mut String) -> Result<RestrictedExpression, String> {
    match (shape, value) {
        (Shape::String, Value::String(s)) => Ok(RestrictedExpression::new_string(s.clone())),
        (Shape::Bool, Value::Bool(b)) => Ok(RestrictedExpression::new_bool(*b)),
        (Shape::Long, Value::Number(n)) => match n.as_i64() {
            Some(i) => Ok(RestrictedExpression::new_long(i)),
            None => match n.as_f64() {
                #[allow(clippy::cast_possible_truncation, clippy::cast_precision_loss)]
                Some(f) if f.fract() == 0.0 && f >= i64::MIN as f64 && f < i64::MAX as f64 => Ok(RestrictedExpression::new_long(f as i64)),
                _ => Err(format!("{at} is {n}, beyond the 64-bit integers Cedar compares")),
            },
        },
        (Shape::Set(item), Value::Array(items)) => {
            let len = at.len();
            let mut out = Vec::with_capacity(items.len());
            for (i, element) in items.iter().enumerate() {
                at.push('/');
                at.push_str(&i.to_string());
                out.push(self::value(item, element, at)?);
                at.truncate(len);
            }
            Ok(RestrictedExpression::new_set(out))
        }
        (Shape::Record(attributes), Value::Object(members)) => record(attributes, members, at),
        _ => Err(format!("{at} does not have the type its schema declares")),
    }
}

/// An object's members as a Cedar record of `attributes` (those with a type).
fn record(attributes: &[Attribute], members: &Map<String, Value>, at: &mut String) -> Result<RestrictedExpression, String> {
    let len = at.len();
    let mut fields = Vec::with_capacity(attributes.len());
    for attribute in attributes {
        let (Ok(shape), Some(member)) = (&attribute.shape, members.get(&attribute.name)) else { continue };
        at.push('/');
        at.push_str(&attribute.name.replace('~', "~0").replace('/', "~1"));
        fields.push((attribute.name.clone(), value(shape, member, at)?));
        at.truncate(len);
    }
    // Keys are a record's own, so unique: construction cannot fail.
    RestrictedExpression::new_record(fields).map_err(|e| e.to_string())
}
