//! Result tables: named tables of typed columns ([`ColumnTable`]), filled by the engines and
//! workloads a row at a time (JSON rows, or cells for the large ones), turned into DataFrames /
//! CSV / Parquet by the Python layer. A run can be asked for some tables only
//! ([`TableSelect`]): a table left out is not built, and is still named among those offered.
use crate::report::columns::ColumnTable;
use serde_json::Value;
use std::collections::{BTreeMap, BTreeSet};

pub type Row = serde_json::Map<String, Value>;

/// Which tables a result is built with: all (the default), or those named in `only`, less those
/// in `skip`.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct TableSelect {
    pub only: Option<BTreeSet<String>>,
    pub skip: BTreeSet<String>,
}

impl TableSelect {
    /// No table: what a caller asks for to learn the names a run offers.
    pub fn none() -> TableSelect {
        TableSelect { only: Some(BTreeSet::new()), skip: BTreeSet::new() }
    }

    pub fn wants(&self, table: &str) -> bool {
        self.only.as_ref().is_none_or(|o| o.contains(table)) && !self.skip.contains(table)
    }
}

#[derive(Default, Debug, Clone)]
pub struct Tables {
    tables: BTreeMap<String, ColumnTable>,
    select: TableSelect,
    /// Every table a producer offered, built or not.
    offered: BTreeSet<String>,
    /// Tables that exist even with no row (`extend` with none): any other exists once it has one.
    declared: BTreeSet<String>,
}

impl Tables {
    pub fn new(select: TableSelect) -> Tables {
        Tables { select, ..Tables::default() }
    }

    /// Whether `table` is to be built; a producer of a large table asks before it builds rows.
    pub fn wants(&mut self, table: &str) -> bool {
        if !self.offered.contains(table) {
            self.offered.insert(table.to_string());
        }
        self.select.wants(table)
    }

    /// The table to write cells into; None when it is left out. It is part of the result only
    /// once it has a row.
    pub fn table(&mut self, table: &str) -> Option<&mut ColumnTable> {
        if !self.wants(table) {
            return None;
        }
        if !self.tables.contains_key(table) {
            self.tables.insert(table.to_string(), ColumnTable::default());
        }
        self.tables.get_mut(table)
    }

    pub fn push(&mut self, table: &str, r: Row) {
        if let Some(t) = self.table(table) {
            t.push_row(&r);
        }
    }

    /// Appends rows; the table exists afterwards even when there were none.
    pub fn extend(&mut self, table: &str, rows: impl IntoIterator<Item = Row>) {
        if let Some(t) = self.table(table) {
            for r in rows {
                t.push_row(&r);
            }
            self.declared.insert(table.to_string());
        }
    }

    /// The tables built, and the names of every table offered (built or left out).
    pub fn finish(mut self) -> (BTreeMap<String, ColumnTable>, Vec<String>) {
        self.tables.retain(|name, t| !t.is_empty() || self.declared.contains(name));
        (self.tables, self.offered.into_iter().collect())
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

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn a_table_left_out_is_offered_but_not_built() {
        let select = TableSelect { only: None, skip: BTreeSet::from(["ports".to_string()]) };
        let mut t = Tables::new(select);
        t.push("ports", row(json!({"node": "h0"})));
        t.push("run", row(json!({"events": 1})));
        t.extend("qps", []);
        t.table("srqs");
        let (tables, offered) = t.finish();
        assert_eq!(tables.keys().collect::<Vec<_>>(), ["qps", "run"], "a table extended by no rows is a table, one never written to is not");
        assert_eq!(offered, ["ports", "qps", "run", "srqs"]);
        assert!(TableSelect::none().only.is_some_and(|o| o.is_empty()));
        assert!(!TableSelect::none().wants("run"));
    }
}
