//! resolve → contract → gate → execute → verify, with the ordering enforced by
//! types: a gate sees only a [`Resolved`] call, an executor accepts only an
//! [`Authorized`] one, and only the pipeline mints either. Every step fails
//! closed — a rejection, a broken contract, a denial, a panicking gate or an
//! unknown state means the call is not executed — and every run leaves one
//! [`AuditRecord`].
//!
//! ```
//! # use toolseal_runtime::pipeline::*;
//! # fn demo<C: toolseal_runtime::ToolSet + Clone + Send + 'static>(call: &[u8]) {
//! let pipeline: Pipeline<C, &str> = Pipeline::new(FrontierGate::new().allow("browsing", ["get_balance"]))
//!     .audit(MemorySink::new());
//! let run = pipeline.run(call, &"browsing", &|authorized: Authorized<C>| -> Result<u32, String> {
//!     let _call = authorized.into_call();
//!     Ok(42)
//! });
//! println!("{:?} {}", run.record.ending, run.outcome.answer_text());
//! # }
//! ```

mod audit;
mod gate;
mod hooks;
mod token;

use std::fmt::Display;
use std::future::Future;
use std::panic::{AssertUnwindSafe, catch_unwind};
use std::pin::Pin;
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::task::{Context, Poll};

use serde::Serialize;
use serde_json::Value;

pub use audit::{AuditRecord, AuditSink, Ending, JsonLines, MemorySink, RejectionRecord};
pub use gate::{AllOf, AnyOf, Decision, FrontierGate, Gate, all_of, any_of};
pub use hooks::{ContractCheck, DigestContract, Verdict, Verify};
pub use token::{Authorized, Pending, Resolved};

use crate::call::{Options, ToolSet};
use crate::canonical::sha256_hex;
use crate::feedback::Feedback;
use crate::rejection::{Rejection, clip};
use crate::wire::{Answer, WireCall};

/// Runs an authorized call.
pub trait Execute<C> {
    /// What the tool returns (serialized to JSON for the verifier and the model).
    type Output: Serialize;
    /// How it fails.
    type Error: Display;
    /// Runs `call`.
    fn execute(&self, call: Authorized<C>) -> Result<Self::Output, Self::Error>;
}

impl<C, F, O, E> Execute<C> for F
where
    F: Fn(Authorized<C>) -> Result<O, E>,
    O: Serialize,
    E: Display,
{
    type Output = O;
    type Error = E;
    fn execute(&self, call: Authorized<C>) -> Result<O, E> {
        self(call)
    }
}

/// Runs an authorized call asynchronously.
pub trait AsyncExecute<C> {
    /// What the tool returns.
    type Output: Serialize;
    /// How it fails.
    type Error: Display;
    /// Runs `call`.
    fn execute(&self, call: Authorized<C>) -> impl Future<Output = Result<Self::Output, Self::Error>>;
}

impl<C, F, Fut, O, E> AsyncExecute<C> for F
where
    F: Fn(Authorized<C>) -> Fut,
    Fut: Future<Output = Result<O, E>>,
    O: Serialize,
    E: Display,
{
    type Output = O;
    type Error = E;
    fn execute(&self, call: Authorized<C>) -> impl Future<Output = Result<O, E>> {
        self(call)
    }
}

/// What became of a call.
#[derive(Debug)]
pub enum Outcome<C> {
    /// Resolution rejected it (Malformed, H1–H3): the gate never saw it.
    Rejected(Rejection),
    /// The contract check stopped it before the gate.
    ContractBroken {
        /// Why.
        reason: String,
    },
    /// The gate denied it (H4), or panicked.
    Denied {
        /// Why.
        reason: String,
    },
    /// The gate asked a person; see [`Pipeline::confirm`].
    Pending(Pending<C>),
    /// A person refused it.
    Refused {
        /// Why.
        reason: String,
    },
    /// The executor failed or panicked.
    Failed {
        /// The error.
        error: String,
    },
    /// The executor ran it.
    Executed {
        /// The tool's output as JSON.
        output: Value,
        /// The effect verifier's verdict.
        verdict: Verdict,
    },
}

impl<C> Outcome<C> {
    /// What to tell the model, as a wire [`Answer`] (see [`crate::wire::answer`]).
    pub fn answer(&self) -> Answer<'_> {
        match self {
            Outcome::Rejected(r) => Answer::Rejected(r),
            Outcome::Executed { output, .. } => Answer::Output(output),
            Outcome::ContractBroken { reason } | Outcome::Denied { reason } | Outcome::Refused { reason } => Answer::Refused(reason),
            Outcome::Pending(p) => Answer::Refused(&p.prompt),
            Outcome::Failed { error } => Answer::Refused(error),
        }
    }

    /// The answer as plain text (feedback for rejections).
    pub fn answer_text(&self) -> String {
        match self {
            Outcome::Rejected(r) => Feedback::from(r).text,
            Outcome::Executed { output, .. } => output.to_string(),
            Outcome::ContractBroken { reason } | Outcome::Denied { reason } | Outcome::Refused { reason } => reason.clone(),
            Outcome::Pending(p) => p.prompt.clone(),
            Outcome::Failed { error } => error.clone(),
        }
    }
}

/// One run: its outcome and its audit record (already emitted).
#[derive(Debug)]
pub struct Run<C> {
    /// What became of the call.
    pub outcome: Outcome<C>,
    /// What was recorded.
    pub record: AuditRecord,
}

/// A person's answer to a pending call.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Approval {
    /// Run it.
    Approve,
    /// Do not run it.
    Refuse {
        /// Why.
        reason: String,
    },
}

/// The pipeline for the sealed call type `C` and gate state `S`. `Send + Sync`:
/// share one across threads.
pub struct Pipeline<C, S> {
    gate: Box<dyn Gate<C, S>>,
    contract: Option<Box<dyn ContractCheck<C>>>,
    verifier: Option<Box<dyn Verify<C>>>,
    sinks: Vec<Arc<dyn AuditSink>>,
    options: Options,
    seq: AtomicU64,
}

/// Runs `f`, turning a panic into `Err(what panicked)`.
fn guarded<T>(what: &str, f: impl FnOnce() -> T) -> Result<T, String> {
    catch_unwind(AssertUnwindSafe(f)).map_err(|panic| {
        let message = panic.downcast_ref::<&str>().map(|s| (*s).to_owned()).or_else(|| panic.downcast_ref::<String>().cloned());
        format!("{what} panicked: {}", message.unwrap_or_else(|| "no message".to_owned()))
    })
}

/// A future whose panic becomes `Err`.
struct Guarded<F>(Pin<Box<F>>);

impl<F: Future> Future for Guarded<F> {
    type Output = Result<F::Output, String>;
    fn poll(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Self::Output> {
        let inner = self.0.as_mut();
        match guarded("the executor", || inner.poll(cx)) {
            Ok(Poll::Pending) => Poll::Pending,
            Ok(Poll::Ready(v)) => Poll::Ready(Ok(v)),
            Err(e) => Poll::Ready(Err(e)),
        }
    }
}

/// What the executor produced, before verification.
type Executed = Result<Value, String>;

impl<C: ToolSet, S> Pipeline<C, S> {
    /// A pipeline with `gate`, strict resolution, no hooks and no sinks (records
    /// still go to `tracing`).
    pub fn new(gate: impl Gate<C, S> + 'static) -> Pipeline<C, S> {
        Pipeline { gate: Box::new(gate), contract: None, verifier: None, sinks: Vec::new(), options: Options::strict(), seq: AtomicU64::new(0) }
    }

    /// Checks each resolved call before the gate (e.g. [`DigestContract`]).
    pub fn contract(mut self, check: impl ContractCheck<C> + 'static) -> Pipeline<C, S> {
        self.contract = Some(Box::new(check));
        self
    }

    /// Verifies each executed call's effect.
    pub fn verify(mut self, verifier: impl Verify<C> + 'static) -> Pipeline<C, S> {
        self.verifier = Some(Box::new(verifier));
        self
    }

    /// Sends every audit record to `sink` too.
    pub fn audit(mut self, sink: impl AuditSink + 'static) -> Pipeline<C, S> {
        self.sinks.push(Arc::new(sink));
        self
    }

    /// Resolution options (size limit, lenient mode), as `McpResolver::with_options` sets them.
    pub fn with_options(mut self, options: Options) -> Pipeline<C, S> {
        self.options = options;
        self
    }

    fn record(&self) -> AuditRecord {
        AuditRecord::start(self.seq.fetch_add(1, Ordering::Relaxed), C::REGISTRY)
    }

    /// Ends a run: the record is filled in and emitted.
    fn end(&self, outcome: Outcome<C>, mut record: AuditRecord) -> Run<C> {
        record.ending = match &outcome {
            Outcome::Rejected(r) => {
                record.rejection = Some(r.into());
                Ending::Rejected
            }
            Outcome::ContractBroken { reason } => {
                record.contract = Some(reason.clone());
                Ending::ContractBroken
            }
            Outcome::Denied { .. } => Ending::Denied,
            Outcome::Pending(_) => Ending::Pending,
            Outcome::Refused { .. } => Ending::Refused,
            Outcome::Failed { error } => {
                record.error = Some(error.clone());
                Ending::Failed
            }
            Outcome::Executed { verdict, .. } => {
                record.verdict = Some(verdict.clone());
                Ending::Executed
            }
        };
        record.emit(&self.sinks);
        Run { outcome, record }
    }

    /// Resolves a canonical call object `{"name", "arguments"}`.
    fn resolve_bytes(&self, bytes: &[u8]) -> Result<Resolved<C>, Box<Run<C>>> {
        let digest = sha256_hex(bytes);
        match C::resolve_with(bytes, &self.options) {
            Ok(r) => Ok(Resolved::new(r.call, None, digest, "canonical", r.coercions.len())),
            Err(rejection) => {
                let mut record = self.record();
                record.raw_digest = digest;
                // The rejection already names the tool the call gave (clipped); no second parse.
                record.tool = rejection.tool().map(str::to_owned);
                Err(Box::new(self.end(Outcome::Rejected(rejection), record)))
            }
        }
    }

    /// Resolves a call taken from a vendor reply.
    fn resolve_wire(&self, call: &WireCall) -> Result<Resolved<C>, Box<Run<C>>> {
        match call.resolve::<C>(&self.options) {
            Ok(r) => Ok(Resolved::new(r.call, call.id.clone(), call.digest.clone(), call.format.as_str(), r.coercions.len())),
            Err(rejection) => {
                let mut record = self.record();
                record.raw_digest = call.digest.clone();
                record.call_id = call.id.clone();
                record.format = call.format.as_str();
                record.tool = call.name.as_deref().map(|n| clip(n).into_owned());
                Err(Box::new(self.end(Outcome::Rejected(rejection), record)))
            }
        }
    }

    /// A new record for a resolved call: its id, format, raw digest and the identity it is bound to.
    fn bound_record(&self, resolved: &Resolved<C>) -> AuditRecord {
        let mut record = self.record();
        record.call_id = resolved.id().map(str::to_owned);
        record.format = resolved.format();
        record.raw_digest = resolved.raw_digest().to_owned();
        record.tool = Some(resolved.name().to_owned());
        record.schema_digest = Some(resolved.info().digest);
        record.coercions = resolved.coercions();
        record
    }

    /// Contract check and gate: the call is authorized, or the run ends here.
    fn authorize(&self, resolved: Resolved<C>, state: &S) -> Result<(Authorized<C>, AuditRecord), Box<Run<C>>> {
        let mut record = self.bound_record(&resolved);
        if let Some(contract) = &self.contract {
            let verdict = guarded("the contract check", || contract.check(&resolved)).and_then(|r| r);
            if let Err(reason) = verdict {
                return Err(Box::new(self.end(Outcome::ContractBroken { reason }, record)));
            }
        }
        let decision = match guarded("the gate", || self.gate.check(&resolved, state)) {
            Ok(d) => d,
            Err(panic) => Decision::deny(panic),
        };
        record.decision = Some(decision.clone());
        if decision != Decision::Allow {
            record.also_fits = guarded("the gate", || self.gate.rivals(&resolved, state)).unwrap_or_default();
        }
        match decision {
            Decision::Allow => Ok((resolved.authorize(), record)),
            Decision::Deny { reason } => Err(Box::new(self.end(Outcome::Denied { reason }, record))),
            Decision::Confirm { prompt } => {
                let seq = record.seq;
                Err(Box::new(self.end(Outcome::Pending(Pending { resolved, prompt, seq }), record)))
            }
        }
    }

    /// Verification and the end of an executed run.
    fn finish(&self, call: Option<C>, executed: Executed, mut record: AuditRecord) -> Run<C> {
        record.executed = true;
        match executed {
            Err(error) => self.end(Outcome::Failed { error }, record),
            Ok(output) => {
                let verdict = match (&self.verifier, &call) {
                    (Some(v), Some(call)) => guarded("the verifier", || v.verify(call, &output)).unwrap_or_else(|reason| Verdict::Failed { reason }),
                    _ => Verdict::Unchecked,
                };
                self.end(Outcome::Executed { output, verdict }, record)
            }
        }
    }

    fn execute<E: Execute<C>>(&self, authorized: Authorized<C>, exec: &E) -> (Option<C>, Executed)
    where
        C: Clone,
    {
        let call = self.verifier.as_ref().map(|_| authorized.call().clone());
        let result = guarded("the executor", || exec.execute(authorized)).and_then(|r| r.map_err(|e| e.to_string()).and_then(to_json));
        (call, result)
    }

    async fn execute_async<E: AsyncExecute<C>>(&self, authorized: Authorized<C>, exec: &E) -> (Option<C>, Executed)
    where
        C: Clone,
    {
        let call = self.verifier.as_ref().map(|_| authorized.call().clone());
        let result = match guarded("the executor", || exec.execute(authorized)) {
            Ok(future) => Guarded(Box::pin(future)).await.and_then(|r| r.map_err(|e| e.to_string()).and_then(to_json)),
            Err(panic) => Err(panic),
        };
        (call, result)
    }

    /// Runs a canonical call object through every step with a synchronous executor.
    pub fn run<E: Execute<C>>(&self, bytes: &[u8], state: &S, exec: &E) -> Run<C>
    where
        C: Clone,
    {
        match self.resolve_bytes(bytes) {
            Ok(resolved) => self.run_resolved(resolved, state, exec),
            Err(run) => *run,
        }
    }

    /// Runs one call of a vendor reply (see [`crate::wire::parse_reply`]).
    pub fn run_wire<E: Execute<C>>(&self, call: &WireCall, state: &S, exec: &E) -> Run<C>
    where
        C: Clone,
    {
        match self.resolve_wire(call) {
            Ok(resolved) => self.run_resolved(resolved, state, exec),
            Err(run) => *run,
        }
    }

    /// Runs an already resolved call (e.g. [`Resolved::trusted_program_call`]) from the contract check on.
    pub fn run_resolved<E: Execute<C>>(&self, resolved: Resolved<C>, state: &S, exec: &E) -> Run<C>
    where
        C: Clone,
    {
        match self.authorize(resolved, state) {
            Ok((authorized, record)) => {
                let (call, executed) = self.execute(authorized, exec);
                self.finish(call, executed, record)
            }
            Err(run) => *run,
        }
    }

    /// [`Pipeline::run`] with an asynchronous executor.
    pub async fn run_async<E: AsyncExecute<C>>(&self, bytes: &[u8], state: &S, exec: &E) -> Run<C>
    where
        C: Clone,
    {
        match self.resolve_bytes(bytes) {
            Ok(resolved) => self.run_resolved_async(resolved, state, exec).await,
            Err(run) => *run,
        }
    }

    /// [`Pipeline::run_wire`] with an asynchronous executor.
    pub async fn run_wire_async<E: AsyncExecute<C>>(&self, call: &WireCall, state: &S, exec: &E) -> Run<C>
    where
        C: Clone,
    {
        match self.resolve_wire(call) {
            Ok(resolved) => self.run_resolved_async(resolved, state, exec).await,
            Err(run) => *run,
        }
    }

    /// [`Pipeline::run_resolved`] with an asynchronous executor.
    pub async fn run_resolved_async<E: AsyncExecute<C>>(&self, resolved: Resolved<C>, state: &S, exec: &E) -> Run<C>
    where
        C: Clone,
    {
        match self.authorize(resolved, state) {
            Ok((authorized, record)) => {
                let (call, executed) = self.execute_async(authorized, exec).await;
                self.finish(call, executed, record)
            }
            Err(run) => *run,
        }
    }

    /// Settles a pending call: runs it when approved (the gate is not asked
    /// again), records the refusal otherwise. This is a run of its own, with its
    /// own record, whose decision says who decided.
    pub fn confirm<E: Execute<C>>(&self, pending: Pending<C>, approval: Approval, exec: &E) -> Run<C>
    where
        C: Clone,
    {
        let resolved = pending.resolved;
        let mut record = self.bound_record(&resolved);
        match approval {
            Approval::Refuse { reason } => {
                record.decision = Some(Decision::deny(format!("refused by a person (pending run {})", pending.seq)));
                self.end(Outcome::Refused { reason }, record)
            }
            Approval::Approve => {
                record.decision = Some(Decision::Allow);
                let (call, executed) = self.execute(resolved.authorize(), exec);
                self.finish(call, executed, record)
            }
        }
    }
}

fn to_json<O: Serialize>(output: O) -> Executed {
    serde_json::to_value(output).map_err(|e| format!("the tool's output is not JSON: {e}"))
}
