//! Comparison of replies with expected responses: doubles within a relative tolerance of 1e-9
//! (floats of 1e-6), and a field missing from a JSON object equal to its default value.

use serde::Serialize;
use serde_json::{Map, Number, Value};

pub const DOUBLE_TOLERANCE: f64 = 1e-9;
pub const FLOAT_TOLERANCE: f64 = 1e-6;

/// Slow path for typed messages that are not exactly equal: compare their JSON forms.
pub fn typed_equal<T: Serialize>(expected: &T, actual: &T, tolerance: f64) -> bool {
    match (serde_json::to_value(expected), serde_json::to_value(actual)) {
        (Ok(e), Ok(a)) => json_equal(&e, &a, tolerance),
        _ => false,
    }
}

/// Canonical-JSON equality: numbers by value (doubles within `tolerance`), int64 strings equal to
/// numbers, and a missing object field equal to a default (zero, "", false, [], {} or null).
pub fn json_equal(expected: &Value, actual: &Value, tolerance: f64) -> bool {
    match (expected, actual) {
        (Value::Number(e), Value::Number(a)) => numbers_equal(e, a, tolerance),
        (Value::String(s), Value::Number(n)) | (Value::Number(n), Value::String(s)) => n.to_string() == *s,
        (Value::Array(e), Value::Array(a)) => e.len() == a.len() && e.iter().zip(a).all(|(x, y)| json_equal(x, y, tolerance)),
        (Value::Object(e), Value::Object(a)) => objects_equal(e, a, tolerance),
        _ => expected == actual,
    }
}

fn objects_equal(expected: &Map<String, Value>, actual: &Map<String, Value>, tolerance: f64) -> bool {
    let same = |key: &String| match (expected.get(key), actual.get(key)) {
        (Some(e), Some(a)) => json_equal(e, a, tolerance),
        (Some(v), None) | (None, Some(v)) => is_default(v),
        (None, None) => true,
    };
    expected.keys().chain(actual.keys()).all(same)
}

fn is_default(value: &Value) -> bool {
    match value {
        Value::Null => true,
        Value::Bool(b) => !b,
        Value::Number(n) => n.as_f64() == Some(0.0),
        Value::String(s) => s.is_empty(),
        Value::Array(a) => a.is_empty(),
        Value::Object(o) => o.values().all(is_default),
    }
}

fn numbers_equal(expected: &Number, actual: &Number, tolerance: f64) -> bool {
    if let (Some(e), Some(a)) = (expected.as_i64(), actual.as_i64()) {
        return e == a;
    }
    if let (Some(e), Some(a)) = (expected.as_u64(), actual.as_u64()) {
        return e == a;
    }
    match (expected.as_f64(), actual.as_f64()) {
        (Some(e), Some(a)) => e == a || (e - a).abs() <= tolerance * e.abs().max(a.abs()),
        _ => false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn doubles_within_relative_tolerance_match() {
        assert!(json_equal(&json!({"value": 1.0}), &json!({"value": 1.0 + 1e-12}), DOUBLE_TOLERANCE));
        assert!(!json_equal(&json!({"value": 1.0}), &json!({"value": 1.0 + 1e-6}), DOUBLE_TOLERANCE));
        assert!(!json_equal(&json!({"value": 1.0}), &json!({"value": 1.0 + 1e-12}), 0.0));
    }

    #[test]
    fn missing_fields_equal_defaults_only() {
        assert!(json_equal(&json!({"value": 0.0, "items": []}), &json!({}), 0.0));
        assert!(!json_equal(&json!({"value": 2}), &json!({}), 0.0));
        assert!(json_equal(&json!({"id": "12"}), &json!({"id": 12}), 0.0));
        assert!(!json_equal(&json!([1, 2]), &json!([1]), 0.0));
    }
}
