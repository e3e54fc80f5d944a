//! Canonical-JSON details serde's defaults do not cover.

use serde::de::{self, Deserializer, Visitor};
use std::fmt;

/// Reads an int64 written either as a JSON number or as a decimal string (proto3 JSON allows both).
pub fn int64<'de, D: Deserializer<'de>>(deserializer: D) -> Result<i64, D::Error> {
    deserializer.deserialize_any(Int64Visitor)
}

struct Int64Visitor;

impl Visitor<'_> for Int64Visitor {
    type Value = i64;

    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("an int64 as a number or a string")
    }
    fn visit_i64<E: de::Error>(self, v: i64) -> Result<i64, E> {
        Ok(v)
    }
    fn visit_u64<E: de::Error>(self, v: u64) -> Result<i64, E> {
        i64::try_from(v).map_err(|_| E::custom("int64 out of range"))
    }
    fn visit_str<E: de::Error>(self, v: &str) -> Result<i64, E> {
        v.parse().map_err(|_| E::custom("int64 string is not a number"))
    }
}

#[cfg(test)]
mod tests {
    use crate::proto::Int64Msg;

    #[test]
    fn int64_accepts_numbers_and_strings() {
        let n: Int64Msg = serde_json::from_str(r#"{"value": -9223372036854775808}"#).unwrap();
        let s: Int64Msg = serde_json::from_str(r#"{"value": "1234567890123456789"}"#).unwrap();
        let missing: Int64Msg = serde_json::from_str("{}").unwrap();
        assert_eq!((n.value, s.value, missing.value), (i64::MIN, 1234567890123456789, 0));
    }
}
