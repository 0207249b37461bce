//! One column of a result table: its cells stored by kind (integers, floats, booleans, strings)
//! with, per row, whether the row has a value, an explicit null, or no such key at all. A JSON
//! row tells these three apart, and pandas does too (a missing key is NaN, a null None), so a
//! column keeps them. Cells of different kinds (an integer beside a float, a string beside a
//! number) turn the column into JSON values, so every cell stays what its row said.
use super::cell::Cell;
use serde_json::Value;

/// What a row holds under a column's name.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Slot {
    Value,
    Null,
    Missing,
}

/// The values of one kind, one per row; a row without a value holds the kind's default.
#[derive(Clone, Debug, PartialEq)]
pub enum Values {
    /// No row has a value yet.
    Empty,
    Int(Vec<i64>),
    Float(Vec<f64>),
    Bool(Vec<bool>),
    /// Arrow's layout: row i is `text[offsets[i]..offsets[i + 1]]`.
    Str { offsets: Vec<usize>, text: String },
    Json(Vec<Value>),
}

#[derive(Clone, Debug, PartialEq)]
pub struct Column {
    pub name: String,
    slots: Vec<Slot>,
    values: Values,
}

impl Column {
    pub fn new(name: &str) -> Column {
        Column { name: name.to_string(), slots: Vec::new(), values: Values::Empty }
    }

    pub fn slots(&self) -> &[Slot] {
        &self.slots
    }

    pub fn values(&self) -> &Values {
        &self.values
    }

    /// Gives row `row` (the table's current row) this cell; rows before it that had none miss
    /// the key. A second cell in the same row replaces the first, as a JSON object's key does.
    pub fn set(&mut self, row: usize, cell: Cell) {
        if self.slots.len() == row + 1 {
            self.pop();
        }
        self.pad(row);
        match cell {
            Cell::Null => self.push_empty(Slot::Null),
            cell => {
                self.push_value(cell);
                self.slots.push(Slot::Value);
            }
        }
    }

    /// Rows up to `rows` that have no cell yet miss the key.
    pub fn pad(&mut self, rows: usize) {
        while self.slots.len() < rows {
            self.push_empty(Slot::Missing);
        }
    }

    /// Row `i`'s cell as the JSON value its row holds; None when the row has no such key.
    pub fn value(&self, i: usize) -> Option<Value> {
        match self.slots.get(i)? {
            Slot::Missing => None,
            Slot::Null => Some(Value::Null),
            Slot::Value => Some(match &self.values {
                Values::Empty => Value::Null,
                Values::Int(v) => Value::from(v[i]),
                Values::Float(v) => Value::from(v[i]),
                Values::Bool(v) => Value::Bool(v[i]),
                Values::Str { offsets, text } => Value::String(text[offsets[i]..offsets[i + 1]].to_string()),
                Values::Json(v) => v[i].clone(),
            }),
        }
    }

    fn push_empty(&mut self, slot: Slot) {
        match &mut self.values {
            Values::Empty => {}
            Values::Int(v) => v.push(0),
            Values::Float(v) => v.push(0.0),
            Values::Bool(v) => v.push(false),
            Values::Str { offsets, text } => offsets.push(text.len()),
            Values::Json(v) => v.push(Value::Null),
        }
        self.slots.push(slot);
    }

    fn push_value(&mut self, cell: Cell) {
        let rows = self.slots.len();
        if matches!(self.values, Values::Empty) {
            self.values = match cell {
                Cell::Int(_) => Values::Int(vec![0; rows]),
                Cell::Float(_) => Values::Float(vec![0.0; rows]),
                Cell::Bool(_) => Values::Bool(vec![false; rows]),
                Cell::Str(_) => Values::Str { offsets: vec![0; rows + 1], text: String::new() },
                Cell::Null | Cell::Json(_) => Values::Json(vec![Value::Null; rows]),
            };
        }
        match (&mut self.values, cell) {
            (Values::Int(v), Cell::Int(i)) => v.push(i),
            (Values::Float(v), Cell::Float(f)) => v.push(f),
            (Values::Bool(v), Cell::Bool(b)) => v.push(b),
            (Values::Str { offsets, text }, Cell::Str(s)) => {
                text.push_str(&s);
                offsets.push(text.len());
            }
            (Values::Json(v), cell) => v.push(cell.to_value()),
            (_, cell) => {
                self.make_json();
                self.push_value(cell);
            }
        }
    }

    /// Turns the values into JSON values: a cell of another kind arrived.
    fn make_json(&mut self) {
        let values = (0..self.slots.len()).map(|i| self.value(i).unwrap_or(Value::Null)).collect();
        self.values = Values::Json(values);
    }

    /// Takes back the current row's cell (it is being set again).
    fn pop(&mut self) {
        self.slots.pop();
        match &mut self.values {
            Values::Empty => {}
            Values::Int(v) => drop(v.pop()),
            Values::Float(v) => drop(v.pop()),
            Values::Bool(v) => drop(v.pop()),
            Values::Str { offsets, text } => {
                offsets.pop();
                text.truncate(offsets.last().copied().unwrap_or(0));
            }
            Values::Json(v) => drop(v.pop()),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn column(cells: &[Option<Value>]) -> Column {
        let mut c = Column::new("x");
        for (row, cell) in cells.iter().enumerate() {
            if let Some(v) = cell {
                c.set(row, Cell::from(v));
            }
        }
        c.pad(cells.len());
        c
    }

    /// Whatever the mix of kinds, nulls and missing keys, each row reads back as it was given.
    #[test]
    fn rows_read_back_as_given() {
        let cases: Vec<Vec<Option<Value>>> = vec![
            vec![Some(json!(1)), None, Some(json!(null)), Some(json!(3))],
            vec![None, Some(json!(1.5)), Some(json!(2))],
            vec![Some(json!("a")), Some(json!("")), None, Some(json!("bc"))],
            vec![Some(json!(true)), Some(json!("x")), Some(json!([1, 2]))],
            vec![None, Some(json!(null)), None],
            vec![Some(json!(u64::MAX)), Some(json!(1))],
        ];
        for cells in cases {
            let c = column(&cells);
            let got: Vec<Option<Value>> = (0..cells.len()).map(|i| c.value(i)).collect();
            assert_eq!(got, cells);
        }
    }

    #[test]
    fn kinds_stay_typed_until_they_mix() {
        assert!(matches!(column(&[Some(json!(1)), None, Some(json!(null))]).values(), Values::Int(v) if v == &[1, 0, 0]));
        assert!(matches!(column(&[Some(json!(1.5)), Some(json!(2.0))]).values(), Values::Float(_)));
        assert!(matches!(column(&[Some(json!(1)), Some(json!(2.0))]).values(), Values::Json(_)));
        assert!(matches!(column(&[None, Some(json!(null))]).values(), Values::Empty));
    }

    /// A key set twice in one row keeps the last value, as a JSON object does.
    #[test]
    fn a_second_cell_in_a_row_replaces_the_first() {
        let mut c = Column::new("x");
        c.set(0, Cell::from("first"));
        c.set(0, Cell::from("second"));
        c.set(1, Cell::from(2u64));
        c.set(1, Cell::from(3u64));
        assert_eq!((c.value(0), c.value(1)), (Some(json!("second")), Some(json!(3))));
    }
}
