//! Result tables: named lists of rows (JSON objects), turned into DataFrames / CSV / Parquet by
//! the Python layer.
use serde_json::Value;
use std::collections::BTreeMap;

pub type Row = serde_json::Map<String, Value>;

#[derive(Default, Debug, Clone)]
pub struct Tables(pub BTreeMap<String, Vec<Row>>);

impl Tables {
    pub fn push(&mut self, table: &str, r: Row) {
        self.0.entry(table.to_string()).or_default().push(r);
    }
    pub fn extend(&mut self, table: &str, rows: impl IntoIterator<Item = Row>) {
        self.0.entry(table.to_string()).or_default().extend(rows);
    }
}

/// A row from a `json!({...})` object literal.
pub fn row(v: Value) -> Row {
    match v {
        Value::Object(m) => m,
        _ => Row::new(),
    }
}

/// A row of leading columns followed by the fields of a serializable struct (counters, stats).
pub fn row_with(leading: Value, fields: &impl serde::Serialize) -> Row {
    let mut r = row(leading);
    if let Ok(Value::Object(m)) = serde_json::to_value(fields) {
        r.extend(m);
    }
    r
}
