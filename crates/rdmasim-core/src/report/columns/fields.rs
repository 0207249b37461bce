//! A struct's fields (or a map's entries) written as cells of a table row, each as serde_json
//! would write it, without building a JSON object per row: the counters of 49 152 ports at
//! 8192 hosts are half a million cells.
use super::table::RowWriter;
use serde::ser::{self, Impossible, Serialize, SerializeMap, SerializeStruct};
use serde_json::{Error, Value};

impl RowWriter<'_> {
    /// Sets a cell per field of a struct (counters, statistics), as serde_json would write it.
    pub fn fields(&mut self, value: &impl Serialize) -> &mut Self {
        // An error would mean a struct that serde_json could not write either: no fields.
        let _ = value.serialize(FieldCells { row: self });
        self
    }
}

struct FieldCells<'r, 't> {
    row: &'r mut RowWriter<'t>,
}

fn not_a_struct<T>() -> Result<T, Error> {
    Err(ser::Error::custom("a table row is written from a struct or a map"))
}

impl<'r, 't> ser::Serializer for FieldCells<'r, 't> {
    type Ok = ();
    type Error = Error;
    type SerializeStruct = Self;
    type SerializeMap = MapCells<'r, 't>;
    type SerializeSeq = Impossible<(), Error>;
    type SerializeTuple = Impossible<(), Error>;
    type SerializeTupleStruct = Impossible<(), Error>;
    type SerializeTupleVariant = Impossible<(), Error>;
    type SerializeStructVariant = Impossible<(), Error>;

    fn serialize_struct(self, _name: &'static str, _len: usize) -> Result<Self, Error> {
        Ok(self)
    }
    fn serialize_map(self, _len: Option<usize>) -> Result<MapCells<'r, 't>, Error> {
        Ok(MapCells { row: self.row, key: None })
    }

    fn serialize_bool(self, _: bool) -> Result<(), Error> {
        not_a_struct()
    }
    fn serialize_i8(self, _: i8) -> Result<(), Error> {
        not_a_struct()
    }
    fn serialize_i16(self, _: i16) -> Result<(), Error> {
        not_a_struct()
    }
    fn serialize_i32(self, _: i32) -> Result<(), Error> {
        not_a_struct()
    }
    fn serialize_i64(self, _: i64) -> Result<(), Error> {
        not_a_struct()
    }
    fn serialize_u8(self, _: u8) -> Result<(), Error> {
        not_a_struct()
    }
    fn serialize_u16(self, _: u16) -> Result<(), Error> {
        not_a_struct()
    }
    fn serialize_u32(self, _: u32) -> Result<(), Error> {
        not_a_struct()
    }
    fn serialize_u64(self, _: u64) -> Result<(), Error> {
        not_a_struct()
    }
    fn serialize_f32(self, _: f32) -> Result<(), Error> {
        not_a_struct()
    }
    fn serialize_f64(self, _: f64) -> Result<(), Error> {
        not_a_struct()
    }
    fn serialize_char(self, _: char) -> Result<(), Error> {
        not_a_struct()
    }
    fn serialize_str(self, _: &str) -> Result<(), Error> {
        not_a_struct()
    }
    fn serialize_bytes(self, _: &[u8]) -> Result<(), Error> {
        not_a_struct()
    }
    fn serialize_none(self) -> Result<(), Error> {
        not_a_struct()
    }
    fn serialize_some<T: ?Sized + Serialize>(self, value: &T) -> Result<(), Error> {
        value.serialize(self)
    }
    fn serialize_unit(self) -> Result<(), Error> {
        not_a_struct()
    }
    fn serialize_unit_struct(self, _: &'static str) -> Result<(), Error> {
        not_a_struct()
    }
    fn serialize_unit_variant(self, _: &'static str, _: u32, _: &'static str) -> Result<(), Error> {
        not_a_struct()
    }
    fn serialize_newtype_struct<T: ?Sized + Serialize>(self, _: &'static str, value: &T) -> Result<(), Error> {
        value.serialize(self)
    }
    fn serialize_newtype_variant<T: ?Sized + Serialize>(self, _: &'static str, _: u32, _: &'static str, _: &T) -> Result<(), Error> {
        not_a_struct()
    }
    fn serialize_seq(self, _: Option<usize>) -> Result<Self::SerializeSeq, Error> {
        not_a_struct()
    }
    fn serialize_tuple(self, _: usize) -> Result<Self::SerializeTuple, Error> {
        not_a_struct()
    }
    fn serialize_tuple_struct(self, _: &'static str, _: usize) -> Result<Self::SerializeTupleStruct, Error> {
        not_a_struct()
    }
    fn serialize_tuple_variant(self, _: &'static str, _: u32, _: &'static str, _: usize) -> Result<Self::SerializeTupleVariant, Error> {
        not_a_struct()
    }
    fn serialize_struct_variant(self, _: &'static str, _: u32, _: &'static str, _: usize) -> Result<Self::SerializeStructVariant, Error> {
        not_a_struct()
    }
}

impl SerializeStruct for FieldCells<'_, '_> {
    type Ok = ();
    type Error = Error;
    fn serialize_field<T: ?Sized + Serialize>(&mut self, key: &'static str, value: &T) -> Result<(), Error> {
        // A number or a bool becomes a JSON value without allocating; a string once.
        self.row.set(key, &serde_json::to_value(value)?);
        Ok(())
    }
    fn end(self) -> Result<(), Error> {
        Ok(())
    }
}

/// A map's entries (a struct with a flattened field is written as a map).
struct MapCells<'r, 't> {
    row: &'r mut RowWriter<'t>,
    key: Option<String>,
}

impl SerializeMap for MapCells<'_, '_> {
    type Ok = ();
    type Error = Error;
    fn serialize_key<T: ?Sized + Serialize>(&mut self, key: &T) -> Result<(), Error> {
        // serde_json's own rule for map keys: strings (numbers are written as their text).
        self.key = Some(match serde_json::to_value(key)? {
            Value::String(s) => s,
            Value::Number(n) => n.to_string(),
            _ => return Err(ser::Error::custom("a table row's keys are strings")),
        });
        Ok(())
    }
    fn serialize_value<T: ?Sized + Serialize>(&mut self, value: &T) -> Result<(), Error> {
        let key = self.key.take().unwrap_or_default();
        self.row.set(&key, &serde_json::to_value(value)?);
        Ok(())
    }
    fn end(self) -> Result<(), Error> {
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use crate::report::columns::ColumnTable;
    use crate::report::tables::row_with;
    use serde::Serialize;
    use serde_json::json;
    use std::collections::BTreeMap;

    #[derive(Serialize)]
    struct Counters {
        packets: u64,
        rate: f64,
        name: &'static str,
        unset: Option<u32>,
        #[serde(skip_serializing_if = "Option::is_none")]
        skipped: Option<u32>,
    }

    #[derive(Serialize)]
    struct Flattened {
        lead: u64,
        #[serde(flatten)]
        rest: BTreeMap<String, f64>,
    }

    /// The cells are what `row_with` (a JSON object per row) makes of the same struct.
    #[test]
    fn fields_are_the_json_objects_fields() {
        let c = Counters { packets: 7, rate: f64::NAN, name: "x", unset: None, skipped: None };
        let f = Flattened { lead: 1, rest: BTreeMap::from([("a".to_string(), 0.5)]) };
        let mut t = ColumnTable::default();
        t.row().set("node", "h0").fields(&c);
        t.row().set("node", "h1").fields(&f);
        let want = vec![row_with(json!({"node": "h0"}), &c), row_with(json!({"node": "h1"}), &f)];
        assert_eq!(t.to_rows(), want);
    }
}
