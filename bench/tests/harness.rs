//! The benchmark's figures follow from what the components guarantee: this
//! test runs the harness and checks each table against those guarantees.

use indicatif::ProgressBar;

fn rate(table: &toolseal_bench::report::Table, row: &str, column: &str) -> f64 {
    let r = table.rows.iter().find(|(l, _)| l == row).unwrap_or_else(|| panic!("row {row}"));
    let c = table.columns.iter().position(|c| c == column).unwrap_or_else(|| panic!("column {column}"));
    let (events, trials) = r.1[c];
    assert!(trials > 0, "{row}/{column} has trials");
    events as f64 / trials as f64
}

#[test]
fn the_tables_match_the_components_guarantees() {
    let report = toolseal_bench::run(120, 3, &ProgressBar::hidden());
    let [single, synthetic, reference, real] = &report.tables[..] else { panic!("four tables") };
    for class in ["H1", "H2", "H3", "H4", "H5"] {
        assert_eq!(rate(single, "no defense", class), 1.0);
    }
    for class in ["H1", "H2", "H3"] {
        assert_eq!(rate(single, "gate only", class), 1.0, "the gate cannot see {class}");
        assert_eq!(rate(single, "resolver only", class), 0.0);
        assert_eq!(rate(single, "full stack", class), 0.0);
    }
    assert_eq!(rate(single, "gate only", "H4"), 0.0);
    assert_eq!(rate(single, "resolver only", "H4"), 1.0, "H4 is the gate's job");
    assert_eq!(rate(single, "full stack", "H4"), 0.0);
    let residue = rate(single, "full stack", "H5");
    assert_eq!(residue, rate(single, "resolver only", "H5"), "the H5 residue is what fits the named tool's signature");
    let accepted_h5 = report.resolver_classes.iter().find(|(k, c, _)| k == "H5" && c == "accepted").map_or(0, |r| r.2);
    assert_eq!(residue, accepted_h5 as f64 / 120.0);
    for row in ["no defense", "gate only", "gate + contract", "resolver only", "full stack"] {
        assert_eq!(rate(single, row, "honest over-rejection"), 0.0, "{row}");
    }
    for table in [synthetic, reference] {
        for class in ["M1", "M2", "M3", "M4", "M5"] {
            assert_eq!(rate(table, "naive first provider", class), 1.0);
            assert_eq!(rate(table, "strict", class), 0.0, "{class}");
            assert_eq!(rate(table, "pin-assisted", class), 0.0, "{class}");
        }
        assert_eq!(rate(table, "strict", "honest same-tier flat"), 1.0, "Strict over-rejects same-tier flat calls");
        assert_eq!(rate(table, "pin-assisted", "honest same-tier flat"), 0.0);
        for column in ["honest flat", "honest qualified", "honest pinned"] {
            assert_eq!(rate(table, "strict", column), 0.0);
        }
    }
    assert!(real.rows.len() >= 9);
    for (row, _) in &real.rows {
        for class in ["H1", "H2", "H3"] {
            assert_eq!(rate(real, row, class), 1.0, "{row} {class}");
        }
        assert_eq!(rate(real, row, "honest over-rejection"), 0.0, "{row}");
    }
    assert_eq!(report.lenient.h3_numeric_strings + report.lenient.other_h3, 120);
    assert!(report.lenient.accepted_by_a_lenient_bridge <= report.lenient.h3_numeric_strings);
}

#[test]
fn the_same_seed_gives_the_same_report() {
    let a = toolseal_bench::run(50, 9, &ProgressBar::hidden());
    let b = toolseal_bench::run(50, 9, &ProgressBar::hidden());
    let tables = |r: &toolseal_bench::Report| serde_json::to_string(&r.tables).expect("json");
    assert_eq!(tables(&a), tables(&b));
}
