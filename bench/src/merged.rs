//! The merged-MCP experiment: M1–M5 and honest flat / qualified / pinned calls
//! through a naive first-provider host and the `Strict` and `PinAssisted` resolvers.

use indicatif::ProgressBar;
use toolseal::mcp::trials::{Trial, TrialKind, trials};
use toolseal::mcp::{McpRequest, McpResolver, McpSet, Policy};
use toolseal::{Class, Options};

use crate::report::Table;

const COLUMNS: [TrialKind; 9] = [
    TrialKind::Attack(Class::M1),
    TrialKind::Attack(Class::M2),
    TrialKind::Attack(Class::M3),
    TrialKind::Attack(Class::M4),
    TrialKind::Attack(Class::M5),
    TrialKind::HonestFlat,
    TrialKind::HonestPinnedFlat,
    TrialKind::HonestQualified,
    TrialKind::HonestPinned,
];

fn column(kind: TrialKind) -> String {
    match kind {
        TrialKind::Attack(c) => c.as_str().to_owned(),
        TrialKind::HonestFlat => "honest flat".into(),
        TrialKind::HonestPinnedFlat => "honest same-tier flat".into(),
        TrialKind::HonestQualified => "honest qualified".into(),
        TrialKind::HonestPinned => "honest pinned".into(),
    }
}

/// Whether `policy`'s resolver lets `trial` through.
fn admitted<M: McpSet>(resolver: &McpResolver<M>, trial: &Trial) -> bool {
    let Ok(request) = McpRequest::parse(trial.call.as_bytes(), &Options::strict()) else {
        return false;
    };
    match &trial.stamp {
        Some(stamp) => resolver.resolve_stamped(&request, stamp).is_ok(),
        None => resolver.resolve_request(&request).is_ok(),
    }
}

/// Runs the trials of deployment `M` through the three hosts.
pub fn run<M: McpSet>(name: &str, per_kind: usize, seed: u64, bar: &ProgressBar) -> Table {
    let strict = McpResolver::<M>::new().with_policy(Policy::Strict);
    let pinned = McpResolver::<M>::new().with_policy(Policy::PinAssisted);
    let trials = trials::<M>(strict.catalog(), per_kind, seed);
    let mut rows: Vec<(String, Vec<(usize, usize)>)> = ["naive first provider", "strict", "pin-assisted"].iter().map(|r| ((*r).to_owned(), vec![(0, 0); COLUMNS.len()])).collect();
    for trial in &trials {
        let Some(col) = COLUMNS.iter().position(|k| *k == trial.kind) else {
            continue;
        };
        let honest = !matches!(trial.kind, TrialKind::Attack(_));
        // The naive host routes a flat name to the first server that lists it, forwards
        // pinned and qualified calls, checks no digest and no argument, and fails open.
        let executed = [true, admitted(&strict, trial), admitted(&pinned, trial)];
        for (row, ran) in rows.iter_mut().zip(executed) {
            row.1[col].1 += 1;
            row.1[col].0 += usize::from(ran != honest);
        }
        bar.inc(1);
    }
    let servers = strict.catalog().servers();
    let tiers: Vec<String> = servers.iter().map(|s| format!("{} ({})", s.name, s.tier_name)).collect();
    Table {
        title: format!("Merged MCP, {name}: {}; up to {per_kind} trials per class, seed {seed}", tiers.join(", ")),
        columns: COLUMNS.iter().map(|k| column(*k)).collect(),
        rows,
        cell: "M columns: attack success (share routed and admitted); honest columns: over-rejection (share rejected)".into(),
        provenance: "by construction: the naive host admits everything (fail-open, first provider, no digest or argument check). Measured: `strict` and `pin-assisted` \
                     (McpResolver on the generated McpCall). M4 trials carry the stamp of an older listing"
            .into(),
    }
}
