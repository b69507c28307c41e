//! Tables as text, Markdown and JSON.

use serde::Serialize;

/// One table of rates: rows are pipelines or hosts, columns are trial classes.
#[derive(Debug, Clone, Serialize)]
pub struct Table {
    /// What was measured.
    pub title: String,
    /// Column headers (after the row label).
    pub columns: Vec<String>,
    /// Row label and one cell per column: `(events, trials)`.
    pub rows: Vec<(String, Vec<(usize, usize)>)>,
    /// What each cell counts.
    pub cell: String,
    /// Which figures are outcomes by construction and which are measured.
    pub provenance: String,
}

impl Table {
    fn rate((events, trials): (usize, usize)) -> String {
        if trials == 0 { "—".to_owned() } else { format!("{:.3}", events as f64 / trials as f64) }
    }

    /// A fixed-width text table.
    pub fn text(&self) -> String {
        let label_width = self.rows.iter().map(|(l, _)| l.len()).max().unwrap_or(8).max(8);
        let widths: Vec<usize> = self.columns.iter().map(|c| c.len().max(6)).collect();
        let mut out = format!("{}\n{}\n", self.title, self.cell);
        out.push_str(&format!("{:label_width$}", ""));
        for (c, w) in self.columns.iter().zip(&widths) {
            out.push_str(&format!("  {c:>w$}"));
        }
        out.push('\n');
        for (label, cells) in &self.rows {
            out.push_str(&format!("{label:label_width$}"));
            for (cell, w) in cells.iter().zip(&widths) {
                out.push_str(&format!("  {:>w$}", Table::rate(*cell)));
            }
            out.push('\n');
        }
        out.push_str(&format!("({})\n", self.provenance));
        out
    }

    /// A Markdown table.
    pub fn markdown(&self) -> String {
        let mut out = format!("### {}\n\n{}\n\n| |", self.title, self.cell);
        for c in &self.columns {
            out.push_str(&format!(" {c} |"));
        }
        out.push_str("\n|---|");
        out.push_str(&"---|".repeat(self.columns.len()));
        out.push('\n');
        for (label, cells) in &self.rows {
            out.push_str(&format!("| {label} |"));
            for cell in cells {
                out.push_str(&format!(" {} ({}/{}) |", Table::rate(*cell), cell.0, cell.1));
            }
            out.push('\n');
        }
        out.push_str(&format!("\n_{}_\n", self.provenance));
        out
    }
}
