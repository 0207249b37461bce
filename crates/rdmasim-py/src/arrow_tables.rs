//! A result table in Arrow's IPC stream format, the form tables cross to Python in
//! (`python/rdmasim/columns.py` reads it): one stream per table, one column per column, in the
//! order pandas gives the table's JSON rows.
//!
//! What a column becomes, so that Python can rebuild exactly the DataFrame (and the JSON rows)
//! that the table's rows gave before they crossed as columns:
//! - integers, floats, booleans, strings: int64, float64, bool, utf8. A row without a value is
//!   null; the field's metadata `rdmasim.empty` says whether such rows held an explicit null
//!   (`"null"`) or had no such key (`"missing"`): pandas makes NaN of one and None of the other.
//! - a column whose every row holds an explicit null: Arrow's null type.
//! - anything else (cells of several kinds, lists, integers above `i64::MAX`, a column with
//!   both kinds of empty rows): each cell's JSON text, null where the row has no such key;
//!   metadata `rdmasim.cells = "json"`.
use arrow_array::{ArrayRef, BooleanArray, Float64Array, Int64Array, LargeStringArray, NullArray, RecordBatch, RecordBatchOptions, StringArray};
use arrow_buffer::{BooleanBuffer, Buffer, NullBuffer, OffsetBuffer, ScalarBuffer};
use arrow_ipc::writer::StreamWriter;
use arrow_schema::{ArrowError, DataType, Field, Schema};
use rdmasim_core::report::columns::{Column, ColumnTable, Slot, Values};
use std::collections::HashMap;
use std::sync::Arc;

/// The table as the bytes of an Arrow IPC stream (its schema and one record batch).
pub fn ipc_stream(t: &ColumnTable) -> Result<Vec<u8>, ArrowError> {
    let (fields, arrays): (Vec<Field>, Vec<ArrayRef>) = t.columns().into_iter().map(array).unzip();
    let schema = Arc::new(Schema::new(fields));
    // The row count is stated: a table can have rows but no columns.
    let options = RecordBatchOptions::new().with_row_count(Some(t.len()));
    let batch = RecordBatch::try_new_with_options(schema.clone(), arrays, &options)?;
    let mut w = StreamWriter::try_new(Vec::new(), &schema)?;
    w.write(&batch)?;
    w.finish()?;
    w.into_inner()
}

fn array(c: &Column) -> (Field, ArrayRef) {
    let slots = c.slots();
    let (null, missing) = (slots.contains(&Slot::Null), slots.contains(&Slot::Missing));
    let valid = || (null || missing).then(|| NullBuffer::from_iter(slots.iter().map(|s| *s == Slot::Value)));
    let typed = |dtype: DataType, a: ArrayRef| {
        let empty = if missing { "missing" } else { "null" };
        let field = Field::new(&c.name, dtype, null || missing);
        let field = if null || missing { field.with_metadata(meta("rdmasim.empty", empty)) } else { field };
        (field, a)
    };
    match c.values() {
        _ if null && missing => json_text(c),
        Values::Json(_) => json_text(c),
        Values::Empty if !missing => (Field::new(&c.name, DataType::Null, true), Arc::new(NullArray::new(slots.len())) as ArrayRef),
        Values::Empty => json_text(c),
        Values::Int(v) => typed(DataType::Int64, Arc::new(Int64Array::new(ScalarBuffer::from(v.clone()), valid()))),
        Values::Float(v) => typed(DataType::Float64, Arc::new(Float64Array::new(ScalarBuffer::from(v.clone()), valid()))),
        Values::Bool(v) => typed(DataType::Boolean, Arc::new(BooleanArray::new(BooleanBuffer::from(v.as_slice()), valid()))),
        Values::Str { offsets, text } => match i32::try_from(text.len()) {
            Ok(_) => typed(DataType::Utf8, Arc::new(StringArray::new(offsets_of(offsets), Buffer::from(text.as_bytes()), valid()))),
            // Over 2 GiB of text: 64-bit offsets (pyarrow reads both as str).
            Err(_) => typed(DataType::LargeUtf8, Arc::new(LargeStringArray::new(offsets_of(offsets), Buffer::from(text.as_bytes()), valid()))),
        },
    }
}

/// Each cell's JSON text; null where the row has no such key.
fn json_text(c: &Column) -> (Field, ArrayRef) {
    let cells: Vec<Option<String>> = (0..c.slots().len()).map(|i| c.value(i).map(|v| v.to_string())).collect();
    let field = Field::new(&c.name, DataType::Utf8, true).with_metadata(meta("rdmasim.cells", "json"));
    (field, Arc::new(StringArray::from(cells)))
}

fn offsets_of<O: arrow_array::OffsetSizeTrait>(offsets: &[usize]) -> OffsetBuffer<O> {
    // Every offset is at most the text's length, which the caller checked fits O.
    OffsetBuffer::new(ScalarBuffer::from(offsets.iter().map(|&o| O::usize_as(o)).collect::<Vec<O>>()))
}

fn meta(key: &str, value: &str) -> HashMap<String, String> {
    HashMap::from([(key.to_string(), value.to_string())])
}
