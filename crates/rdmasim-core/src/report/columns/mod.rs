//! Result tables as typed columns (integers, floats, booleans, strings; JSON where a column's
//! cells mix kinds), the form they cross to Python in (as Arrow, built by the binding) instead of
//! a JSON row per row. A table reads back as exactly the JSON rows it was given.
pub mod cell;
pub mod column;
mod fields;
pub mod table;

pub use cell::Cell;
pub use column::{Column, Slot, Values};
pub use table::{ColumnTable, RowWriter};
