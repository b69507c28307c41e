//! The live table: real models' tool calls (AgentDojo's published runs, [`crate::corpus`])
//! resolved by the project's dynamic resolver against the registry each run's model saw,
//! per pipeline, with the commonest examples per class and an independent oracle's verdict.

use std::collections::{BTreeMap, HashMap};

use serde::Serialize;
use toolseal::Class;
use toolseal_runtime::dynamic::DynamicRegistry;
use toolseal_runtime::schema::CompileOptions;

use crate::corpus::{Corpus, Run};
use crate::oracle::Oracle;
use crate::report::Table;
use crate::verdict::{Verdict, classify};

/// Compiled registries for the tool sets the runs saw (the suite's, or a filter's subset), built once each.
#[derive(Default)]
pub struct Registries {
    compiled: HashMap<(String, Option<Vec<String>>), DynamicRegistry>,
}

impl Registries {
    /// The dynamic registry of the tools `run`'s model saw.
    pub fn seen<'a>(&'a mut self, corpus: &Corpus, run: &Run) -> &'a DynamicRegistry {
        self.compiled.entry((run.suite.clone(), run.visible.clone())).or_insert_with(|| DynamicRegistry::new(&corpus.registry_seen(run), &CompileOptions::default()))
    }
}

/// The columns of the live table, in order.
pub const COLUMNS: [&str; 11] = [
    "no-call tasks",
    "tasks with H1-H3",
    "H1-H3 calls",
    "H1",
    "H2",
    "H3",
    "of H3: numeric strings",
    "other rejections",
    "H1-H3, benign calls",
    "H1-H3, attacked calls",
    "rejected yet run by AgentDojo",
];

#[derive(Default, Clone, Copy)]
struct Counts {
    tasks: usize,
    no_call: usize,
    tasks_bad: usize,
    calls: usize,
    h: [usize; 3],
    numeric: usize,
    other: usize,
    benign: (usize, usize),
    attacked: (usize, usize),
    rejected: usize,
    rejected_ran: usize,
}

impl Counts {
    fn add(&mut self, o: &Counts) {
        self.tasks += o.tasks;
        self.no_call += o.no_call;
        self.tasks_bad += o.tasks_bad;
        self.calls += o.calls;
        for i in 0..3 {
            self.h[i] += o.h[i];
        }
        self.numeric += o.numeric;
        self.other += o.other;
        self.benign.0 += o.benign.0;
        self.benign.1 += o.benign.1;
        self.attacked.0 += o.attacked.0;
        self.attacked.1 += o.attacked.1;
        self.rejected += o.rejected;
        self.rejected_ran += o.rejected_ran;
    }

    fn cells(&self) -> Vec<(usize, usize)> {
        let hs: usize = self.h.iter().sum();
        vec![
            (self.no_call, self.tasks),
            (self.tasks_bad, self.tasks),
            (hs, self.calls),
            (self.h[0], self.calls),
            (self.h[1], self.calls),
            (self.h[2], self.calls),
            (self.numeric, self.calls),
            (self.other, self.calls),
            self.benign,
            self.attacked,
            (self.rejected_ran, self.rejected),
        ]
    }
}

/// Everything the live run measured.
#[derive(Debug, Serialize)]
pub struct Live {
    /// Per pipeline and in all.
    pub table: Table,
    /// Runs and calls read.
    pub tasks: usize,
    /// Calls resolved.
    pub calls: usize,
    /// The commonest examples per class (`H1`, `H2`, `H3`, `H3 numeric string`): text and count.
    pub examples: Vec<(String, Vec<(String, usize)>)>,
    /// The oracle's check of every call.
    pub oracle: crate::oracle::Agreement,
    /// Every call's verdict, in corpus order (run by run), for the H5 measurement.
    #[serde(skip)]
    pub verdicts: Vec<Vec<Verdict>>,
}

/// How many examples per class are kept.
pub const EXAMPLES: usize = 3;

/// Resolves every call of `corpus`, and checks each against `oracle`.
pub fn run(corpus: &Corpus, registries: &mut Registries, oracle: &Oracle) -> Live {
    let mut rows: BTreeMap<&str, Counts> = BTreeMap::new();
    let mut examples: HashMap<(&'static str, String), usize> = HashMap::new();
    let mut agreement = crate::oracle::Agreement::default();
    let mut verdicts = Vec::with_capacity(corpus.runs.len());
    for run in &corpus.runs {
        let registry = registries.seen(corpus, run);
        let mut c = Counts { tasks: 1, no_call: usize::from(run.calls.is_empty()), ..Counts::default() };
        let mut run_verdicts = Vec::with_capacity(run.calls.len());
        for call in &run.calls {
            let v = classify(registry, call);
            agreement.check(oracle, run, call, &v);
            c.calls += 1;
            let h = match v.class {
                Some(Class::H1) => Some(0),
                Some(Class::H2) => Some(1),
                Some(Class::H3) => Some(2),
                _ => None,
            };
            if let Some(i) = h {
                c.h[i] += 1;
                let kind = if v.numeric_string { "H3 numeric string" } else { ["H1", "H2", "H3"][i] };
                *examples.entry((kind, v.example.clone())).or_default() += 1;
            } else if v.class.is_some() {
                c.other += 1;
            }
            c.numeric += usize::from(v.numeric_string);
            let side = if run.attacked() { &mut c.attacked } else { &mut c.benign };
            side.1 += 1;
            side.0 += usize::from(h.is_some());
            if v.class.is_some() {
                c.rejected += 1;
                c.rejected_ran += usize::from(call.runtime_error.is_none());
            }
            run_verdicts.push(v);
        }
        c.tasks_bad = usize::from(c.h.iter().sum::<usize>() > 0);
        rows.entry(run.pipeline.as_str()).or_default().add(&c);
        verdicts.push(run_verdicts);
    }
    let mut total = Counts::default();
    let mut table_rows = Vec::new();
    for (pipeline, counts) in &rows {
        total.add(counts);
        table_rows.push((format!("{pipeline} ({} tasks, {} calls)", counts.tasks, counts.calls), counts.cells()));
    }
    table_rows.push((format!("all pipelines ({} tasks, {} calls)", total.tasks, total.calls), total.cells()));
    Live {
        table: Table {
            title: format!(
                "Live: real models' tool calls from AgentDojo's published runs ({} pipelines, suites {}), each resolved against the tools its run saw",
                rows.len(),
                corpus.registries.keys().cloned().collect::<Vec<_>>().join(", ")
            ),
            columns: COLUMNS.iter().map(|c| (*c).to_owned()).collect(),
            rows: table_rows,
            cell: "task columns: share of tasks (run files); call columns: share of calls; benign/attacked: share of those calls (attack `none` or not); last: share of the calls toolseal rejects that AgentDojo's own runtime (pydantic, lax) ran without error".into(),
            provenance: "measured: every call of data/agentdojo/runs.jsonl.gz (fork commit 7ee80b4, schemas from agentdojo 0.1.35) resolved by DynamicRegistry, strict, then lenient for H3; a fail-open executor would have run every rejected call".into(),
        },
        tasks: total.tasks,
        calls: total.calls,
        examples: top_examples(examples),
        oracle: agreement,
        verdicts,
    }
}

fn top_examples(examples: HashMap<(&'static str, String), usize>) -> Vec<(String, Vec<(String, usize)>)> {
    let mut by_class: BTreeMap<&str, Vec<(String, usize)>> = BTreeMap::new();
    for ((class, text), n) in examples {
        by_class.entry(class).or_default().push((text, n));
    }
    by_class
        .into_iter()
        .map(|(class, mut list)| {
            list.sort_by(|a, b| b.1.cmp(&a.1).then_with(|| a.0.cmp(&b.0)));
            list.truncate(EXAMPLES);
            (class.to_owned(), list)
        })
        .collect()
}
