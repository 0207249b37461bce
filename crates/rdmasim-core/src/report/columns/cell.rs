//! One cell of a result table as a producer hands it over: the value a JSON row would have held
//! under that key. The conversions follow serde_json's, so a table written cell by cell is the
//! one its JSON rows made: a non-finite float is null, an integer above `i64::MAX` stays JSON.
use serde_json::Value;
use std::borrow::Cow;

#[derive(Clone, Debug, PartialEq)]
pub enum Cell<'a> {
    Null,
    Bool(bool),
    Int(i64),
    Float(f64),
    Str(Cow<'a, str>),
    /// A list, an object, or an integer no `i64` holds: kept as JSON.
    Json(Cow<'a, Value>),
}

impl Cell<'_> {
    /// The cell as the JSON value a row holds.
    pub fn to_value(&self) -> Value {
        match self {
            Cell::Null => Value::Null,
            Cell::Bool(b) => Value::Bool(*b),
            Cell::Int(i) => Value::from(*i),
            Cell::Float(f) => Value::from(*f),
            Cell::Str(s) => Value::String(s.to_string()),
            Cell::Json(v) => v.clone().into_owned(),
        }
    }
}

impl<'a> From<&'a Value> for Cell<'a> {
    fn from(v: &'a Value) -> Self {
        match v {
            Value::Null => Cell::Null,
            Value::Bool(b) => Cell::Bool(*b),
            Value::Number(n) => match (n.as_i64(), n.as_f64()) {
                (Some(i), _) => Cell::Int(i),
                // A float is kept as one; only an integer above i64::MAX is neither.
                (None, Some(f)) if n.is_f64() => Cell::Float(f),
                _ => Cell::Json(Cow::Borrowed(v)),
            },
            Value::String(s) => Cell::Str(Cow::Borrowed(s)),
            Value::Array(_) | Value::Object(_) => Cell::Json(Cow::Borrowed(v)),
        }
    }
}

impl From<bool> for Cell<'_> {
    fn from(b: bool) -> Self {
        Cell::Bool(b)
    }
}

impl From<f64> for Cell<'_> {
    /// serde_json writes NaN and the infinities as null; so does a table.
    fn from(f: f64) -> Self {
        if f.is_finite() {
            Cell::Float(f)
        } else {
            Cell::Null
        }
    }
}

impl From<u64> for Cell<'_> {
    fn from(u: u64) -> Self {
        i64::try_from(u).map_or_else(|_| Cell::Json(Cow::Owned(Value::from(u))), Cell::Int)
    }
}

impl From<usize> for Cell<'_> {
    fn from(u: usize) -> Self {
        Cell::from(u as u64)
    }
}

macro_rules! small_ints {
    ($($t:ty),*) => {$(
        impl From<$t> for Cell<'_> {
            fn from(i: $t) -> Self {
                Cell::Int(i64::from(i))
            }
        }
    )*};
}
small_ints!(i64, i32, u32, u16, u8);

impl<'a> From<&'a str> for Cell<'a> {
    fn from(s: &'a str) -> Self {
        Cell::Str(Cow::Borrowed(s))
    }
}

impl<'a> From<&'a String> for Cell<'a> {
    fn from(s: &'a String) -> Self {
        Cell::Str(Cow::Borrowed(s))
    }
}

impl From<String> for Cell<'_> {
    fn from(s: String) -> Self {
        Cell::Str(Cow::Owned(s))
    }
}

impl<'a, T: Into<Cell<'a>>> From<Option<T>> for Cell<'a> {
    fn from(v: Option<T>) -> Self {
        v.map_or(Cell::Null, Into::into)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    /// Every cell converts to the value serde_json makes of the same Rust value.
    #[test]
    fn cells_are_what_serde_json_makes() {
        let cases: Vec<(Cell, Value)> = vec![
            (Cell::from(3u64), json!(3u64)),
            (Cell::from(u64::MAX), json!(u64::MAX)),
            (Cell::from(-2i64), json!(-2i64)),
            (Cell::from(1.0f64), json!(1.0f64)),
            (Cell::from(f64::NAN), json!(f64::NAN)),
            (Cell::from(f64::INFINITY), json!(f64::INFINITY)),
            (Cell::from(None::<u64>), json!(None::<u64>)),
            (Cell::from("x"), json!("x")),
            (Cell::from(true), json!(true)),
        ];
        for (cell, want) in cases {
            assert_eq!(cell.to_value(), want);
            assert_eq!(Cell::from(&want).to_value(), want, "{want}");
        }
        assert!(matches!(Cell::from(&json!(1.0)), Cell::Float(_)), "a float stays a float");
        assert!(matches!(Cell::from(&json!(u64::MAX)), Cell::Json(_)));
        assert!(matches!(Cell::from(&json!([1])), Cell::Json(_)));
    }
}
