//! The CSV and JSON writers of every table this crate writes (`bench.*`, `cold_start.csv`,
//! `report.*`): a row type lists its [`Field`]s once, in the order of its column names, and
//! [`csv_table`] and [`json_table`] write them.

use std::fmt::Write as _;

/// One field of a written row: text (quoted in CSV, a string in JSON) or a number already
/// formatted (as is in both; an empty one is an empty CSV field and `null` in JSON).
pub(crate) enum Field<'a> {
    /// Text, escaped by the writer.
    Text(&'a str),
    /// A formatted number, or empty for none.
    Num(String),
}

impl Field<'_> {
    /// The field in CSV (RFC 4180): text quoted with inner quotes doubled, since inputs
    /// such as `uniform[0,16)` hold commas.
    fn csv(&self) -> String {
        match self {
            Field::Text(t) => format!("\"{}\"", t.replace('"', "\"\"")),
            Field::Num(v) => v.clone(),
        }
    }

    /// The field as a JSON value.
    fn json(&self) -> String {
        match self {
            Field::Text(t) => json_str(t),
            Field::Num(v) if v.is_empty() => "null".into(),
            Field::Num(v) => v.clone(),
        }
    }
}

/// The fields every benchmark row starts with: operation, type, input, n.
pub(crate) fn case_fields<'a>(
    op: &'a str,
    ty: &'a str,
    input: &'a str,
    n: usize,
) -> Vec<Field<'a>> {
    vec![
        Field::Text(op),
        Field::Text(ty),
        Field::Text(input),
        Field::Num(n.to_string()),
    ]
}

/// The column names of [`case_fields`].
pub(crate) const CASE_COLUMNS: [&str; 4] = ["op", "type", "input", "n"];

/// A JSON string literal of `t`, quotes included.
fn json_str(t: &str) -> String {
    let mut s = String::from("\"");
    for c in t.chars() {
        match c {
            '"' => s.push_str("\\\""),
            '\\' => s.push_str("\\\\"),
            '\n' => s.push_str("\\n"),
            '\t' => s.push_str("\\t"),
            c if (c as u32) < 0x20 => {
                let _ = write!(s, "\\u{:04x}", c as u32);
            }
            c => s.push(c),
        }
    }
    s.push('"');
    s
}

/// Rows as CSV: a header of `columns`, then one line per row.
pub(crate) fn csv_table<S: AsRef<str>>(columns: &[S], rows: &[Vec<Field>]) -> String {
    let header: Vec<&str> = columns.iter().map(AsRef::as_ref).collect();
    let mut s = header.join(",");
    s.push('\n');
    for row in rows {
        let fields: Vec<String> = row.iter().map(Field::csv).collect();
        s.push_str(&fields.join(","));
        s.push('\n');
    }
    s
}

/// A JSON document: the string `fields` (`"device"`, ...), then `"rows"`, one object per
/// row and per line, keyed by `columns`.
pub(crate) fn json_table(fields: &[(&str, &str)], columns: &[&str], rows: &[Vec<Field>]) -> String {
    let mut s = String::from("{\n");
    for (k, v) in fields {
        let _ = writeln!(s, "  {}: {},", json_str(k), json_str(v));
    }
    s.push_str("  \"rows\": [\n");
    for (i, row) in rows.iter().enumerate() {
        let members: Vec<String> = columns
            .iter()
            .zip(row)
            .map(|(k, v)| format!("{}: {}", json_str(k), v.json()))
            .collect();
        let comma = if i + 1 < rows.len() { "," } else { "" };
        let _ = writeln!(s, "    {{{}}}{comma}", members.join(", "));
    }
    s.push_str("  ]\n}\n");
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn csv_quotes_text_and_json_escapes_it() {
        let rows = vec![vec![
            Field::Text("a \"b\", c"),
            Field::Num("1.50".into()),
            Field::Num(String::new()),
        ]];
        assert_eq!(
            csv_table(&["t", "x", "y"], &rows),
            "t,x,y\n\"a \"\"b\"\", c\",1.50,\n"
        );
        assert_eq!(
            json_table(&[("device", "H\\1\n")], &["t", "x", "y"], &rows),
            "{\n  \"device\": \"H\\\\1\\n\",\n  \"rows\": [\n    \
             {\"t\": \"a \\\"b\\\", c\", \"x\": 1.50, \"y\": null}\n  ]\n}\n"
        );
        assert_eq!(json_str("\u{1}"), "\"\\u0001\"");
    }
}
