//! One audit record per pipeline run, accepted or not: emitted as a `tracing`
//! event (target `toolseal::audit`) and handed to every configured sink.

use std::io::Write;
use std::sync::Mutex;
use std::time::{SystemTime, UNIX_EPOCH};

use serde::Serialize;

use super::gate::Decision;
use super::hooks::Verdict;
use crate::rejection::Rejection;

/// How a run ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Ending {
    /// Resolution rejected the call (Malformed, H1–H3); nothing else ran.
    Rejected,
    /// The contract check failed; the gate did not run.
    ContractBroken,
    /// The gate denied the call (or panicked).
    Denied,
    /// The gate asked for confirmation; the call waits.
    Pending,
    /// A person refused the pending call.
    Refused,
    /// The executor returned an error or panicked.
    Failed,
    /// The executor ran the call.
    Executed,
    /// The host shut down while the call was in flight: the call was answered
    /// an error saying so, and its result, if any, was not awaited (`executed`
    /// says whether it had been handed on).
    Shutdown,
}

/// The rejection part of a record.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct RejectionRecord {
    /// `Malformed`, `H1`, `H2`, `H3`.
    pub class: &'static str,
    /// JSON pointer into the call object.
    pub pointer: String,
    /// The one-line message (bounded).
    pub message: String,
}

impl From<&Rejection> for RejectionRecord {
    fn from(r: &Rejection) -> Self {
        RejectionRecord { class: r.class().as_str(), pointer: r.pointer().to_owned(), message: r.to_string() }
    }
}

/// Everything known about one run of the pipeline.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct AuditRecord {
    /// Sequence number, unique per pipeline.
    pub seq: u64,
    /// Wall-clock time the run started, RFC 3339 UTC.
    pub time: String,
    /// The same, in milliseconds since the Unix epoch.
    pub unix_ms: u64,
    /// The call id from the wire format.
    pub call_id: Option<String>,
    /// The wire format (`openai_chat`, `anthropic`, …, `canonical`, `program`).
    pub format: &'static str,
    /// SHA-256 (hex) of the raw call.
    pub raw_digest: String,
    /// The registry the call was resolved against.
    pub registry: &'static str,
    /// The tool: as resolved, or as given (clipped) when rejected.
    pub tool: Option<String>,
    /// The digest of the tool's definition the call was bound to.
    pub schema_digest: Option<&'static str>,
    /// How the run ended.
    pub ending: Ending,
    /// Why resolution rejected it.
    pub rejection: Option<RejectionRecord>,
    /// Why the contract check stopped it.
    pub contract: Option<String>,
    /// Who called, when the host knows (the gateway's principal: `User::"<name>"` in its policies).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub principal: Option<String>,
    /// The gate's decision (`None` when the gate did not run).
    pub decision: Option<Decision>,
    /// The person's answer when the decision asked them to confirm (`None`: not asked, or could not be).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub confirmed: Option<bool>,
    /// The policies that decided it (a Cedar gate: the permits of an allowed call, the forbids of a denied one).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub policies: Vec<String>,
    /// Whether the executor was called.
    pub executed: bool,
    /// The executor's error, if any.
    pub error: Option<String>,
    /// The effect verifier's verdict (`None` when nothing executed).
    pub verdict: Option<Verdict>,
    /// Numbers lenient mode coerced.
    pub coercions: usize,
    /// H5: the other visible tools the arguments fit at least as well, when a gate that looks
    /// (`AlsoFitsGate`) did not allow the call; best first.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub also_fits: Vec<String>,
}

impl AuditRecord {
    /// A record of run `seq` against `registry`, started now; it says
    /// `Rejected` until the run says otherwise.
    pub fn start(seq: u64, registry: &'static str) -> AuditRecord {
        let now = SystemTime::now().duration_since(UNIX_EPOCH).unwrap_or_default();
        let unix_ms = u64::try_from(now.as_millis()).unwrap_or(u64::MAX);
        AuditRecord {
            seq,
            time: rfc3339(unix_ms),
            unix_ms,
            call_id: None,
            format: "canonical",
            raw_digest: String::new(),
            registry,
            tool: None,
            schema_digest: None,
            ending: Ending::Rejected,
            rejection: None,
            contract: None,
            principal: None,
            decision: None,
            confirmed: None,
            policies: Vec::new(),
            executed: false,
            error: None,
            verdict: None,
            coercions: 0,
            also_fits: Vec::new(),
        }
    }

    /// Emits the record as a `tracing` event (target `toolseal::audit`) and hands it to every sink.
    pub fn emit(&self, sinks: &[std::sync::Arc<dyn AuditSink>]) {
        tracing::info!(
            target: "toolseal::audit",
            seq = self.seq,
            call_id = self.call_id.as_deref(),
            format = self.format,
            tool = self.tool.as_deref(),
            ending = ?self.ending,
            class = self.rejection.as_ref().map(|r| r.class),
            pointer = self.rejection.as_ref().map(|r| r.pointer.as_str()),
            executed = self.executed,
            verdict = ?self.verdict,
            "tool call"
        );
        for sink in sinks {
            sink.record(self);
        }
    }
}

/// Receives every audit record.
pub trait AuditSink: Send + Sync {
    /// Stores or forwards `record`.
    fn record(&self, record: &AuditRecord);
}

/// Writes each record as one JSON line.
pub struct JsonLines<W: Write + Send> {
    out: Mutex<W>,
}

impl<W: Write + Send> JsonLines<W> {
    /// Records go to `out` (a file, stdout, a buffer).
    pub fn new(out: W) -> JsonLines<W> {
        JsonLines { out: Mutex::new(out) }
    }

    /// The writer back.
    pub fn into_inner(self) -> W {
        self.out.into_inner().unwrap_or_else(|poisoned| poisoned.into_inner())
    }
}

impl<W: Write + Send> AuditSink for JsonLines<W> {
    fn record(&self, record: &AuditRecord) {
        let mut out = self.out.lock().unwrap_or_else(|poisoned| poisoned.into_inner());
        let written = serde_json::to_writer(&mut *out, record).map_err(std::io::Error::from).and_then(|()| out.write_all(b"\n"));
        if let Err(e) = written {
            tracing::error!(target: "toolseal::audit", seq = record.seq, error = %e, "audit record not written");
        }
    }
}

/// Keeps every record in memory (tests, small hosts).
#[derive(Default)]
pub struct MemorySink {
    records: Mutex<Vec<AuditRecord>>,
}

impl MemorySink {
    /// An empty sink.
    pub fn new() -> MemorySink {
        MemorySink::default()
    }

    /// A copy of the records so far.
    pub fn records(&self) -> Vec<AuditRecord> {
        self.records.lock().unwrap_or_else(|poisoned| poisoned.into_inner()).clone()
    }
}

impl AuditSink for MemorySink {
    fn record(&self, record: &AuditRecord) {
        self.records.lock().unwrap_or_else(|poisoned| poisoned.into_inner()).push(record.clone());
    }
}

impl<T: AuditSink + ?Sized> AuditSink for std::sync::Arc<T> {
    fn record(&self, record: &AuditRecord) {
        (**self).record(record);
    }
}

/// `YYYY-MM-DDTHH:MM:SS.mmmZ` for milliseconds since the epoch (civil-from-days).
fn rfc3339(unix_ms: u64) -> String {
    let secs = unix_ms / 1000;
    let days = (secs / 86_400) as i64;
    let rem = secs % 86_400;
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z.rem_euclid(146_097);
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let day = doy - (153 * mp + 2) / 5 + 1;
    let month = if mp < 10 { mp + 3 } else { mp - 9 };
    let year = yoe + era * 400 + i64::from(month <= 2);
    format!("{year:04}-{month:02}-{day:02}T{:02}:{:02}:{:02}.{:03}Z", rem / 3600, rem % 3600 / 60, rem % 60, unix_ms % 1000)
}

#[cfg(test)]
mod tests {
    #[test]
    fn rfc3339_dates() {
        assert_eq!(super::rfc3339(0), "1970-01-01T00:00:00.000Z");
        assert_eq!(super::rfc3339(951_782_400_123), "2000-02-29T00:00:00.123Z");
        assert_eq!(super::rfc3339(1_796_256_000_000), "2026-12-03T00:00:00.000Z");
    }
}
