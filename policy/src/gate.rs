//! The gate: a resolved call, its caller and its server, decided by the
//! deployment's Cedar policies.

use std::borrow::Cow;
use std::collections::{HashMap, HashSet};

use cedar_policy::{Authorizer, Context, Effect, Entities, Entity, EntityUid, PolicyId, PolicySet, PrincipalConstraint, Request, ResourceConstraint, RestrictedExpression};
use serde_json::{Map, Number, Value};
use toolseal_runtime::pipeline::Decision;

use crate::condition::{Conditions, Env, Val};
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
    /// Each principal's and each server's entity and attributes.
    users: HashMap<String, (EntityUid, Val<'static>)>,
    servers: HashMap<String, (EntityUid, Val<'static>)>,
    /// Principal → action → the policies whose scope (principal, action, resource) can
    /// match its calls: principals and servers have no parents, so a scope is decided here.
    scoped: HashMap<String, HashMap<String, Scoped>>,
    /// Every policy whose conditions `condition` compiles: its id, whether it permits, its conditions.
    compiled: Vec<(PolicyId, bool, Conditions)>,
    authorizer: Authorizer,
}

/// Who evaluates the conditions in `decide_with`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Evaluator {
    /// The compiled conditions (`condition`), Cedar where they do not cover a policy.
    Compiled,
    /// Cedar, over the policies pre-selected by scope.
    Cedar,
    /// Cedar, over every policy of the action.
    CedarUnscoped,
}

/// The policies that can apply to one principal's calls of one action.
#[derive(Debug)]
struct Scoped {
    set: PolicySet,
    /// Their places in `PolicyGate::compiled` when every one of them compiled.
    compiled: Option<Vec<usize>>,
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
            let groups = Val::Set(principal.groups.iter().map(|g| Val::Str(Cow::Owned(g.clone()))).collect());
            let record = Val::Record(vec![(Cow::Borrowed("name"), Val::Str(Cow::Owned(principal.name.clone()))), (Cow::Borrowed("groups"), groups)]);
            users.insert(principal.name.clone(), (uid, record));
        }
        let mut servers = HashMap::new();
        for (server, tier) in &schema.servers {
            let uid = entity_uid("Server", server);
            let attributes = HashMap::from([("tier".to_owned(), RestrictedExpression::new_string(tier.clone()))]);
            entities.push(Entity::new(uid.clone(), attributes, HashSet::new()).map_err(|e| PolicyError::Entities(e.to_string()))?);
            servers.insert(server.clone(), (uid, Val::Record(vec![(Cow::Borrowed("tier"), Val::Str(Cow::Owned(tier.clone())))])));
        }
        let entities = Entities::from_entities(entities, Some(&schema.schema)).map_err(|e| PolicyError::Entities(e.to_string()))?;
        let mut compiled = Vec::new();
        let mut place = HashMap::new();
        for set in policies.by_action.values() {
            for policy in set.policies() {
                if place.contains_key(policy.id()) {
                    continue;
                }
                let conditions = policy.to_json().ok().and_then(|est| Conditions::compile(&est).ok());
                place.insert(
                    policy.id().clone(),
                    conditions.map(|c| {
                        compiled.push((policy.id().clone(), policy.effect() == Effect::Permit, c));
                        compiled.len() - 1
                    }),
                );
            }
        }
        let mut scoped: HashMap<String, HashMap<String, Scoped>> = HashMap::new();
        for (name, (user, _)) in &users {
            let by_action = scoped.entry(name.clone()).or_default();
            for (action, set) in &policies.by_action {
                let Some((server, _)) = schema.actions.get(action).and_then(|a| servers.get(&a.server)) else { continue };
                let mut applying = PolicySet::new();
                for policy in set.policies().filter(|p| principal_in_scope(p.principal_constraint(), user) && resource_in_scope(p.resource_constraint(), server)) {
                    // Ids are unique in `set`, so in every subset.
                    let _ = applying.add(policy.clone());
                }
                let compiled = applying.policies().map(|p| place.get(p.id()).copied().flatten()).collect();
                by_action.insert(action.clone(), Scoped { set: applying, compiled });
            }
        }
        Ok(PolicyGate { schema, policies, entities, users, servers, scoped, compiled, authorizer: Authorizer::new() })
    }

    /// Whether some call of `action` by `principal` could be allowed: a permit applies to
    /// it by its scope, and no forbid without conditions does. Conditions are not
    /// evaluated, so `true` is a could, never a will; `false` is certain — every such
    /// call is denied — and the gateway leaves the tool out of that principal's listing.
    pub fn may_allow(&self, principal: &str, action: &str) -> bool {
        let Some(Scoped { set, .. }) = self.scoped.get(principal).and_then(|a| a.get(action)) else { return false };
        set.policies().any(|p| p.effect() == Effect::Permit) && !set.policies().any(|p| p.effect() == Effect::Forbid && !p.has_non_scope_constraint())
    }

    /// How many policies can apply to `principal`'s calls of `action`, by their scope.
    pub fn applicable(&self, principal: &str, action: &str) -> usize {
        self.scoped.get(principal).and_then(|a| a.get(action)).map_or(0, |s| s.set.policies().count())
    }

    /// Whether every policy that can apply to `principal`'s calls of `action` has
    /// conditions the gate evaluates itself (`decide` then asks Cedar only when an
    /// evaluation meets an error).
    #[doc(hidden)]
    pub fn compiled(&self, principal: &str, action: &str) -> bool {
        self.scoped.get(principal).and_then(|a| a.get(action)).is_some_and(|s| s.compiled.is_some())
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
    ///
    /// The policies' conditions are evaluated by the gate's own compiled form
    /// (`condition`), and by Cedar's evaluator where that form does not cover a policy
    /// or meets an error; both give the same decisions.
    pub fn decide(&self, principal: &str, action: &str, server: &str, arguments: Option<&Map<String, Value>>) -> Verdict {
        self.decide_with(principal, action, server, arguments, Evaluator::Compiled)
    }

    /// [`decide`](Self::decide) by Cedar's evaluator alone (what the differential test
    /// and the benchmark compare the compiled conditions with); `scoped: false` hands Cedar
    /// every policy of the action instead of those pre-selected by principal and resource.
    #[doc(hidden)]
    pub fn decide_by_cedar(&self, principal: &str, action: &str, server: &str, arguments: Option<&Map<String, Value>>, scoped: bool) -> Verdict {
        self.decide_with(principal, action, server, arguments, if scoped { Evaluator::Cedar } else { Evaluator::CedarUnscoped })
    }

    fn decide_with(&self, principal: &str, action: &str, server: &str, arguments: Option<&Map<String, Value>>, evaluator: Evaluator) -> Verdict {
        let deny = |reason: String| Verdict { decision: Decision::Deny { reason }, policies: Vec::new() };
        let Some(info) = self.schema.actions.get(action) else { return deny(format!("`{action}` is not in the policy schema")) };
        let Some((user, principal_attributes)) = self.users.get(principal) else { return deny(format!("principal {principal:?} is not declared in the manifest's [principals]")) };
        if info.server != server {
            return deny(format!("`{action}` is a tool of server {:?}, not of {server:?}", info.server));
        }
        let Some((resource, resource_attributes)) = self.servers.get(server) else { return deny(format!("server {server:?} is not in the policy schema")) };
        let Shape::Record(attributes) = &info.input else { return deny("the tool's arguments have no record type".to_owned()) };
        let empty = Map::new();
        let arguments = arguments.unwrap_or(&empty);
        let scoped = self.scoped.get(principal).and_then(|a| a.get(action));
        if let (Evaluator::Compiled, Some(Scoped { compiled: Some(places), .. })) = (evaluator, scoped)
            && let Some(context) = crate::condition::context(attributes, arguments)
        {
            let env = Env { principal, action, resource: server, context, principal_attributes, resource_attributes };
            let (mut permits, mut forbids) = (Vec::new(), Vec::new());
            let held = places.iter().try_for_each(|&place| {
                let (id, permit, conditions) = &self.compiled[place];
                if conditions.hold(&env)? {
                    if *permit { permits.push(id) } else { forbids.push(id) }
                }
                Ok::<(), crate::condition::Fallback>(())
            });
            if held.is_ok() {
                // Cedar's rule: any forbid that holds denies; else any permit allows.
                return if forbids.is_empty() { self.verdict(principal, action, !permits.is_empty(), permits) } else { self.verdict(principal, action, false, forbids) };
            }
        }
        let input = match record(attributes, arguments, &mut String::from("the argument ")) {
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
        let policies = match evaluator {
            Evaluator::CedarUnscoped => self.policies.by_action.get(action).unwrap_or(&empty),
            _ => scoped.map_or(&empty, |s| &s.set),
        };
        let response = self.authorizer.is_authorized(&request, policies, &self.entities);
        let errors: Vec<String> = response.diagnostics().errors().map(|e| e.to_string()).collect();
        if !errors.is_empty() {
            return deny(format!("a policy failed to evaluate ({}); a call the policies cannot fully judge is denied", errors.join("; ")));
        }
        self.verdict(principal, action, response.decision() == cedar_policy::Decision::Allow, response.diagnostics().reason())
    }

    /// The verdict of an allowed or denied call, from the policies that determined it.
    fn verdict<'p>(&self, principal: &str, action: &str, allowed: bool, determining: impl IntoIterator<Item = &'p PolicyId>) -> Verdict {
        let mut determining: Vec<&crate::load::Meta> = determining.into_iter().filter_map(|id| self.policies.meta.get(id)).collect();
        determining.sort_unstable_by(|a, b| a.label.cmp(&b.label));
        let policies = determining.iter().map(|m| m.label.clone()).collect();
        let decision = match allowed {
            true => match determining.iter().find(|m| m.confirm.is_some()) {
                Some(meta) => {
                    let asked = meta.confirm.as_deref().filter(|c| !c.is_empty()).or(meta.reason.as_deref());
                    Decision::Confirm { prompt: asked.map_or_else(|| format!("policy `{}` asks a person to confirm `{action}`", meta.label), str::to_owned) }
                }
                None => Decision::Allow,
            },
            false if determining.is_empty() => Decision::Deny { reason: format!("no policy permits User::{principal:?} to call `{action}`") },
            false => Decision::Deny {
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
        (Shape::Long, Value::Number(n)) => long(n).map(RestrictedExpression::new_long).ok_or_else(|| format!("{at} is {n}, beyond the 64-bit integers Cedar compares")),
        (Shape::IpAddr, Value::String(s)) => match s.parse::<std::net::IpAddr>() {
            Ok(_) => Ok(RestrictedExpression::new_ip(s)),
            Err(_) => Err(format!("{at} is {s:?}, not an IP address Cedar's `ip` reads")),
        },
        (Shape::Datetime, Value::String(s)) => cedar_datetime(s)
            .map(RestrictedExpression::new_datetime)
            .ok_or_else(|| format!("{at} is {s:?}, not a date or date-time Cedar's `datetime` holds exactly (to the millisecond, no leap second)")),
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

/// An integer argument as Cedar's `Long` (`3.0` is `3`), or `None` beyond 64 bits.
pub(crate) fn long(n: &Number) -> Option<i64> {
    n.as_i64().or_else(|| match n.as_f64() {
        #[allow(clippy::cast_possible_truncation, clippy::cast_precision_loss)]
        Some(f) if f.fract() == 0.0 && f >= i64::MIN as f64 && f < i64::MAX as f64 => Some(f as i64),
        _ => None,
    })
}

/// An RFC 3339 `date` or `date-time` in the form Cedar's `datetime` reads
/// (`YYYY-MM-DD`, `YYYY-MM-DDThh:mm:ss[.SSS](Z|±hhmm)`), or `None` where it cannot be
/// written exactly: digits below a millisecond that are not zero, a leap second, or not
/// a date at all.
pub(crate) fn cedar_datetime(s: &str) -> Option<String> {
    // ASCII only from here: every slice below is at a character boundary.
    if !s.is_ascii() {
        return None;
    }
    let digits = |t: &str| !t.is_empty() && t.bytes().all(|b| b.is_ascii_digit());
    let at = |t: &str, i: usize, c: u8| t.as_bytes().get(i) == Some(&c);
    let date = s.get(..10)?;
    if !(digits(&date[..4]) && at(date, 4, b'-') && digits(&date[5..7]) && at(date, 7, b'-') && digits(&date[8..])) {
        return None;
    }
    if s.len() == 10 {
        return Some(date.to_owned());
    }
    let time = s[10..].strip_prefix(['T', 't'])?;
    let (clock, zone) = time.split_at(time.find(['Z', 'z', '+', '-'])?);
    let (hms, fraction) = clock.split_once('.').map_or((clock, None), |(h, f)| (h, Some(f)));
    if hms.len() != 8 || !(digits(&hms[..2]) && at(hms, 2, b':') && digits(&hms[3..5]) && at(hms, 5, b':') && digits(&hms[6..])) || &hms[6..] == "60" {
        return None;
    }
    let mut out = format!("{date}T{hms}");
    if let Some(fraction) = fraction {
        if !digits(fraction) || fraction.bytes().skip(3).any(|b| b != b'0') {
            return None;
        }
        out.push_str(&format!(".{:0<3}", &fraction[..fraction.len().min(3)]));
    }
    if zone.eq_ignore_ascii_case("z") {
        out.push('Z');
        return Some(out);
    }
    let (sign, offset) = zone.split_at(1);
    if offset.len() != 5 || !(digits(&offset[..2]) && at(offset, 2, b':') && digits(&offset[3..])) {
        return None;
    }
    out.push_str(sign);
    out.push_str(&offset[..2]);
    out.push_str(&offset[3..]);
    Some(out)
}

#[cfg(test)]
mod tests {
    use super::cedar_datetime;

    #[test]
    fn rfc_3339_in_cedars_form_only_where_exact() {
        for (rfc, cedar) in [
            ("2024-05-01", "2024-05-01"),
            ("2024-05-01T10:00:00Z", "2024-05-01T10:00:00Z"),
            ("2024-05-01t10:00:00z", "2024-05-01T10:00:00Z"),
            ("2024-05-01T10:00:00.5+02:00", "2024-05-01T10:00:00.500+0200"),
            ("2024-05-01T10:00:00.123000-05:30", "2024-05-01T10:00:00.123-0530"),
        ] {
            assert_eq!(cedar_datetime(rfc).as_deref(), Some(cedar), "{rfc}");
        }
        for inexact in ["2024-05-01T10:00:00.1234Z", "2016-12-31T23:59:60Z", "2024-05-01T10:00:00", "2024-05-01T10:00Z", "2024-05-0", "2024-05-01T10:00:00+0200", "2024-05-01T1é:00:00Z", "x"] {
            assert_eq!(cedar_datetime(inexact), None, "{inexact}");
        }
    }
}
