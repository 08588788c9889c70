//! kubectl-style tables: no borders, upper-case headers, three spaces between columns.

use std::io::Write;

use comfy_table::{ContentArrangement, Table, presets};

use crate::error::Result;

/// Writes rows under `headers`; `--no-headers` drops the header line.
pub fn write_table(
    out: &mut dyn Write,
    headers: &[&str],
    rows: &[Vec<String>],
    no_headers: bool,
) -> Result<()> {
    let mut table = Table::new();
    table.load_style(presets::NOTHING).set_content_arrangement(ContentArrangement::Disabled).force_no_tty();
    if !no_headers {
        table.set_header(headers.to_vec());
    }
    for row in rows {
        table.add_row(row.clone());
    }
    let last = headers.len().saturating_sub(1);
    for (i, column) in table.column_iter_mut().enumerate() {
        column.set_padding((0, if i == last { 0 } else { 3 }));
    }
    for line in table.lines() {
        writeln!(out, "{}", line.trim_end())?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn aligned_like_kubectl() {
        let mut out = Vec::new();
        let rows = vec![vec!["a".to_string(), "1".to_string()], vec!["longer".to_string(), "22".to_string()]];
        write_table(&mut out, &["NAME", "N"], &rows, false).unwrap();
        assert_eq!(String::from_utf8(out).unwrap(), "NAME     N\na        1\nlonger   22\n");
        let mut out = Vec::new();
        write_table(&mut out, &["NAME", "N"], &rows, true).unwrap();
        assert_eq!(String::from_utf8(out).unwrap(), "a        1\nlonger   22\n");
    }
}
