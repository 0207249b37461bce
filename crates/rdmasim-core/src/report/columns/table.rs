//! A result table as typed columns, filled a row at a time: by name and cell
//! ([`ColumnTable::row`]), from a JSON row ([`ColumnTable::push_row`]) or from a struct's fields
//! (`RowWriter::fields`, in fields.rs). It reads back as the JSON rows it was given ([`ColumnTable::to_rows`]),
//! and its columns come in the order pandas gives the columns of those rows.
use super::cell::Cell;
use super::column::{Column, Slot};
use crate::report::tables::Row;
use serde::{Serialize, Serializer};
use std::collections::HashMap;

#[derive(Clone, Debug, Default, PartialEq)]
pub struct ColumnTable {
    rows: usize,
    /// In the order their names were first given.
    columns: Vec<Column>,
    index: HashMap<String, usize>,
}

impl ColumnTable {
    /// Rows.
    pub fn len(&self) -> usize {
        self.rows
    }

    pub fn is_empty(&self) -> bool {
        self.rows == 0
    }

    /// Starts a row; it ends when the writer is dropped. Keys it does not set are missing.
    pub fn row(&mut self) -> RowWriter<'_> {
        RowWriter { table: self, next: 0 }
    }

    /// Appends a JSON row.
    pub fn push_row(&mut self, r: &Row) {
        let mut w = self.row();
        for (k, v) in r {
            w.set(k, v);
        }
    }

    /// The columns in the order pandas makes of the JSON rows (`DataFrame.from_records`): keys
    /// by first appearance, each row's keys in the order the row has them. The core's rows are
    /// serde_json maps, whose keys are sorted; the order is the same however the table was
    /// filled.
    pub fn columns(&self) -> Vec<&Column> {
        let mut by_name: Vec<usize> = (0..self.columns.len()).collect();
        by_name.sort_by(|&a, &b| self.columns[a].name.cmp(&self.columns[b].name));
        let mut seen = vec![false; self.columns.len()];
        let mut order: Vec<&Column> = Vec::with_capacity(by_name.len());
        for row in 0..self.rows {
            if order.len() == by_name.len() {
                break;
            }
            for &i in &by_name {
                if !seen[i] && self.columns[i].slots()[row] != Slot::Missing {
                    seen[i] = true;
                    order.push(&self.columns[i]);
                }
            }
        }
        order
    }

    /// The JSON rows the table was given (each row's keys sorted, as a serde_json map has them).
    pub fn to_rows(&self) -> Vec<Row> {
        (0..self.rows)
            .map(|i| self.columns.iter().filter_map(|c| Some((c.name.clone(), c.value(i)?))).collect())
            .collect()
    }

    fn column_index(&mut self, name: &str) -> usize {
        if let Some(&i) = self.index.get(name) {
            return i;
        }
        let mut c = Column::new(name);
        c.pad(self.rows);
        self.columns.push(c);
        self.index.insert(name.to_string(), self.columns.len() - 1);
        self.columns.len() - 1
    }
}

/// The JSON of the rows, as the table's rows were written before they became columns.
impl Serialize for ColumnTable {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.collect_seq(self.to_rows())
    }
}

/// One row being written; dropping it ends the row.
pub struct RowWriter<'t> {
    table: &'t mut ColumnTable,
    /// The column after the one set last: producers set keys in the same order every row, so
    /// the name is compared there before it is looked up.
    next: usize,
}

impl RowWriter<'_> {
    pub fn set<'c>(&mut self, name: &str, cell: impl Into<Cell<'c>>) -> &mut Self {
        let t = &mut *self.table;
        let i = match t.columns.get(self.next) {
            Some(c) if c.name == name => self.next,
            _ => t.column_index(name),
        };
        t.columns[i].set(t.rows, cell.into());
        self.next = i + 1;
        self
    }
}

impl Drop for RowWriter<'_> {
    fn drop(&mut self) {
        let t = &mut *self.table;
        t.rows += 1;
        for c in &mut t.columns {
            c.pad(t.rows);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::report::tables::row;
    use serde_json::json;

    fn names(t: &ColumnTable) -> Vec<&str> {
        t.columns().iter().map(|c| c.name.as_str()).collect()
    }

    #[test]
    fn json_rows_read_back_and_serialize_as_given() {
        let rows = vec![row(json!({"b": 1, "a": "x"})), row(json!({"c": [1], "a": null})), row(json!({}))];
        let mut t = ColumnTable::default();
        for r in &rows {
            t.push_row(r);
        }
        assert_eq!(t.len(), 3);
        assert_eq!(t.to_rows(), rows);
        assert_eq!(serde_json::to_string(&t).unwrap(), serde_json::to_string(&rows).unwrap());
    }

    /// Keys by first appearance, each row's keys sorted: {a, c} then {a, b, c} is a, c, b.
    #[test]
    fn columns_come_in_pandas_order() {
        let mut t = ColumnTable::default();
        t.row().set("c", 1u64).set("a", 2u64);
        t.row().set("b", 3u64).set("a", 4u64).set("c", 5u64);
        assert_eq!(names(&t), ["a", "c", "b"]);
    }

    #[test]
    fn cells_and_json_rows_make_the_same_table() {
        let mut by_cells = ColumnTable::default();
        by_cells.row().set("node", "h0").set("x", 1.5).set("n", 2u64).set("none", None::<u64>);
        let mut by_rows = ColumnTable::default();
        by_rows.push_row(&row(json!({"node": "h0", "x": 1.5, "n": 2, "none": null})));
        assert_eq!(by_cells.to_rows(), by_rows.to_rows());
        assert_eq!(names(&by_cells), names(&by_rows));
    }
}
