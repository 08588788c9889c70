//! `-w` output, as `kubectl get -w` prints it: the first table, then one row each time
//! a row changes, padded to the first table's columns (with `--output-watch-events`, led
//! by ADDED, MODIFIED or DELETED). One printer for `list -w` and `history -w`: each
//! command says what its rows are and when they may have changed.

use std::collections::BTreeMap;
use std::io::Write;

use serde_json::Value;

use super::Format;
use crate::error::Result;
use crate::model::jobset::RESOURCE_NAME;

/// What a watch event did to a row.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum WatchEvent {
    Added,
    Modified,
    Deleted,
}

impl WatchEvent {
    pub fn word(self) -> &'static str {
        match self {
            WatchEvent::Added => "ADDED",
            WatchEvent::Modified => "MODIFIED",
            WatchEvent::Deleted => "DELETED",
        }
    }
}

/// How a row compares with the one printed last for the same key.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Seen {
    /// Nothing was printed for this key yet.
    New,
    /// A cell other than the age differs.
    Changed,
    /// Only the age can differ (it changes with time, not with the object).
    Same,
}

/// The rows of a watched table: the column widths of the first table, and per key the
/// row printed last, to tell a change from a repeat.
pub struct WatchTable<K> {
    headers: Vec<String>,
    /// `--output-watch-events`: an EVENT column first.
    events: bool,
    /// Widths of the first table's columns (the EVENT column not counted).
    widths: Vec<usize>,
    /// The column that ages by itself (AGE, CREATED): not compared.
    age_column: Option<usize>,
    /// Rows as last printed, without the age cell.
    printed: BTreeMap<K, Vec<String>>,
}

/// The EVENT column is as wide as its longest word, whatever the first table held.
const EVENT_WIDTH: usize = "MODIFIED".len();

impl<K: Ord> WatchTable<K> {
    /// Columns as wide as `headers` and the `first` rows need; `age_header` names the
    /// column left out when rows are compared. Nothing is recorded yet.
    pub fn new(headers: &[&str], age_header: &str, first: &[Vec<String>], events: bool) -> Self {
        let mut widths: Vec<usize> = headers.iter().map(|h| h.len()).collect();
        for row in first {
            for (w, cell) in widths.iter_mut().zip(row) {
                *w = (*w).max(cell.chars().count());
            }
        }
        WatchTable {
            headers: headers.iter().map(|h| h.to_string()).collect(),
            events,
            widths,
            age_column: headers.iter().position(|h| *h == age_header),
            printed: BTreeMap::new(),
        }
    }

    /// Makes the `header` column at least `width` wide, for values known to come later
    /// (a STATUS that becomes `Restarting,Mixed`, an AGE of `5m10s`), so that the rows
    /// printed afterwards stay under the first table's columns.
    pub fn reserve(mut self, header: &str, width: usize) -> Self {
        if let Some(i) = self.headers.iter().position(|h| h == header) {
            self.widths[i] = self.widths[i].max(width);
        }
        self
    }

    /// Records `row` as the one printed for `key`, and how it compares with the last. A
    /// cell wider than its column widens it, so the rows after it line up again.
    pub fn record(&mut self, key: K, row: &[String]) -> Seen {
        for (width, cell) in self.widths.iter_mut().zip(row) {
            *width = (*width).max(cell.chars().count());
        }
        let mut row = row.to_vec();
        if let Some(age) = self.age_column.filter(|&age| age < row.len()) {
            row.remove(age);
        }
        let seen = match self.printed.get(&key) {
            None => Seen::New,
            Some(printed) if *printed == row => Seen::Same,
            Some(_) => Seen::Changed,
        };
        self.printed.insert(key, row);
        seen
    }

    /// Forgets `key` (its object was deleted); the row printed last, without its age.
    pub fn forget(&mut self, key: &K) -> Option<Vec<String>> {
        self.printed.remove(key)
    }

    /// The header line, with EVENT first when events are shown.
    pub fn header_line(&self) -> String {
        self.padded(self.events.then_some("EVENT"), &self.headers)
    }

    /// One row, led by the event's word when events are shown.
    pub fn line(&self, event: WatchEvent, row: &[String]) -> String {
        self.padded(self.events.then(|| event.word()), row)
    }

    /// Cells padded to the first table's widths, three spaces apart and the last one
    /// as it is, as `write_table` lays them out.
    fn padded(&self, event: Option<&str>, row: &[String]) -> String {
        let cells: Vec<&str> = event.into_iter().chain(row.iter().map(String::as_str)).collect();
        let widths = event.map(|_| EVENT_WIDTH).into_iter().chain(self.widths.iter().copied());
        let last = cells.len().saturating_sub(1);
        let padded: Vec<String> = cells
            .iter()
            .zip(widths.chain(std::iter::repeat(0)))
            .enumerate()
            .map(|(i, (cell, width))| if i == last { cell.to_string() } else { format!("{cell:<width$}   ") })
            .collect();
        padded.concat().trim_end().to_owned()
    }
}

/// `-w -o name`: one line per change, as `kubectl get -w -o name` prints it (led by
/// the event and a tab with `--output-watch-events`).
pub fn write_name(out: &mut dyn Write, event: Option<WatchEvent>, name: &str) -> Result<()> {
    let prefix = event.map(|e| format!("{}\t", e.word())).unwrap_or_default();
    Ok(writeln!(out, "{prefix}{RESOURCE_NAME}/{name}")?)
}

/// `-w -o json|yaml`: one object per change (with `--output-watch-events`, wrapped in a
/// `{"type", "object"}` event), YAML ones each after `---`.
pub fn write_object(
    out: &mut dyn Write,
    format: Format,
    event: Option<WatchEvent>,
    object: Value,
) -> Result<()> {
    let object = super::without_managed_fields(object);
    let document = match event {
        Some(event) => serde_json::json!({"type": event.word(), "object": object}),
        None => object,
    };
    if format == Format::Yaml {
        writeln!(out, "---")?;
    }
    super::write_structured(out, format, &document)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn cells(row: &[&str]) -> Vec<String> {
        row.iter().map(|c| c.to_string()).collect()
    }

    #[test]
    fn rows_keep_the_first_tables_columns() {
        let first = [cells(&["train", "2", "5m"])];
        let table = WatchTable::<&str>::new(&["NAME", "RESTARTS", "AGE"], "AGE", &first, false);
        assert_eq!(table.header_line(), "NAME    RESTARTS   AGE");
        assert_eq!(table.line(WatchEvent::Modified, &cells(&["a", "10", "1s"])), "a       10         1s");
        let events = WatchTable::<&str>::new(&["NAME", "AGE"], "AGE", &first, true);
        assert_eq!(events.header_line(), "EVENT      NAME    AGE");
        assert_eq!(events.line(WatchEvent::Added, &cells(&["a", "1s"])), "ADDED      a       1s");
    }

    #[test]
    fn reserved_and_widened_columns_keep_rows_in_line() {
        let first = vec![cells(&["a", "Running", "1s", "-"])];
        let mut table = WatchTable::new(&["NAME", "STATUS", "AGE", "STRATEGY"], "AGE", &first, false)
            .reserve("STATUS", 16);
        let header = table.header_line();
        assert_eq!(header, "NAME   STATUS             AGE   STRATEGY");
        let restarting = cells(&["a", "Restarting,Mixed", "1s", "Never"]);
        table.record("a", &restarting);
        let line = table.line(WatchEvent::Modified, &restarting);
        assert_eq!(line.find("Never"), header.find("STRATEGY"), "{line}");
        // Wider than reserved: that column widens, the rows after it line up with it.
        let managed = cells(&["a", "ManagedElsewhere,Mixed", "5m10s", "Never"]);
        table.record("a", &managed);
        let wide = table.line(WatchEvent::Modified, &managed);
        let again = table.line(WatchEvent::Modified, &restarting);
        assert_eq!(wide.find("Never"), again.find("Never"), "{wide}\n{again}");
    }

    #[test]
    fn a_row_that_only_aged_is_the_same() {
        let mut table = WatchTable::new(&["NAME", "AGE", "STATUS"], "AGE", &[], false);
        assert_eq!(table.record("a", &cells(&["a", "1s", "Running"])), Seen::New);
        assert_eq!(table.record("a", &cells(&["a", "9s", "Running"])), Seen::Same);
        assert_eq!(table.record("a", &cells(&["a", "9s", "Failed"])), Seen::Changed);
        assert_eq!(table.forget(&"a"), Some(cells(&["a", "Failed"])));
        assert_eq!(table.record("a", &cells(&["a", "9s", "Failed"])), Seen::New);
    }
}
