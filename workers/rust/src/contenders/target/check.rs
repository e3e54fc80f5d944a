//! `--expect-json PATH=VALUE` checks of a target's replies, as the Go driver's check.go and
//! src/rpcarena/protocol/replies.py judge them: dotted paths (`$` the whole reply, negative list
//! indexes from the end), numbers within a tolerance when a float is among them, an int64
//! written as a string equal to the number, and a missing key equal to its type's default.

use serde_json::{Map, Number, Value};

/// Tolerance of doubles, relative with this absolute floor, as replies.py compares them.
const TOLERANCE: f64 = 1e-9;

/// One check, its value rendered for one request.
#[derive(Debug, Clone, PartialEq)]
pub struct Check {
    pub path: String,
    pub want: Value,
}

/// The spec's `responses`: for each request, its `[path, value]` pairs.
pub fn decode(responses: &[Value]) -> Result<Vec<Vec<Check>>, String> {
    let request = |(i, raw): (usize, &Value)| {
        let pairs = raw.as_array().ok_or_else(|| format!("responses[{i}]: want a list of [path, value] checks, got {raw}"))?;
        let pair = |pair: &Value| match pair.as_array().map(Vec::as_slice) {
            Some([Value::String(path), want]) => Ok(Check { path: path.clone(), want: want.clone() }),
            _ => Err(format!("responses[{i}]: a check is [path, value], got {pair}")),
        };
        pairs.iter().map(pair).collect()
    };
    responses.iter().enumerate().map(request).collect()
}

/// The first check a decoded reply fails, in words; `None` when every check holds.
pub fn failed(reply: &Value, checks: &[Check]) -> Option<String> {
    checks.iter().find_map(|c| match dig(reply, &c.path) {
        None => Some(format!("{}: missing, want {}", c.path, c.want)),
        Some(got) if !equivalent(got, &c.want) => Some(format!("{}: got {got}, want {}", c.path, c.want)),
        Some(_) => None,
    })
}

/// The value at a dotted path.
fn dig<'a>(reply: &'a Value, path: &str) -> Option<&'a Value> {
    let steps = path.strip_prefix('$').unwrap_or(path).trim_start_matches('.');
    steps.split('.').filter(|step| !step.is_empty()).try_fold(reply, |node, step| match node {
        Value::Object(map) => map.get(step),
        Value::Array(list) => {
            let i: i64 = step.parse().ok()?;
            let i = if i < 0 { i + list.len() as i64 } else { i };
            usize::try_from(i).ok().and_then(|i| list.get(i))
        }
        _ => None,
    })
}

/// replies.equivalent: objects key by key, lists in order, numbers by value, an int64's text
/// equal to the number.
fn equivalent(got: &Value, want: &Value) -> bool {
    match (got, want) {
        (Value::Object(g), Value::Object(w)) => same_objects(g, w),
        (Value::Array(g), Value::Array(w)) => g.len() == w.len() && g.iter().zip(w).all(|(g, w)| equivalent(g, w)),
        (Value::Number(g), Value::Number(w)) => same_numbers(g, w),
        (Value::String(s), Value::Number(n)) | (Value::Number(n), Value::String(s)) => int_text(s, n),
        _ => got == want,
    }
}

fn same_objects(got: &Map<String, Value>, want: &Map<String, Value>) -> bool {
    let wanted = want.iter().all(|(k, w)| match got.get(k) {
        Some(g) => equivalent(g, w),
        None => equivalent(&default_like(w), w),
    });
    wanted && got.iter().all(|(k, g)| want.contains_key(k) || equivalent(g, &default_like(g)))
}

fn same_numbers(a: &Number, b: &Number) -> bool {
    match (a.as_i64(), b.as_i64(), a.as_u64(), b.as_u64()) {
        (Some(x), Some(y), _, _) => x == y,
        (_, _, Some(x), Some(y)) => x == y,
        _ if integer(a) && integer(b) => false, // one beyond i64 on the other side of zero
        _ => match (a.as_f64(), b.as_f64()) {
            (Some(x), Some(y)) => x == y || (x - y).abs() <= (TOLERANCE * x.abs().max(y.abs())).max(TOLERANCE),
            _ => false,
        },
    }
}

fn integer(n: &Number) -> bool {
    n.is_i64() || n.is_u64()
}

/// An int64 written as a string ("-12") equal to an integer.
fn int_text(text: &str, n: &Number) -> bool {
    let digits = text.strip_prefix('-').unwrap_or(text);
    integer(n)
        && !digits.is_empty()
        && digits.bytes().all(|b| b.is_ascii_digit())
        && text.parse::<i128>().ok() == n.to_string().parse::<i128>().ok()
}

/// The default of a value's type, as a missing key's.
fn default_like(v: &Value) -> Value {
    match v {
        Value::Bool(_) => Value::Bool(false),
        Value::Number(_) => Value::from(0),
        Value::String(_) => Value::from(""),
        Value::Array(_) => Value::Array(Vec::new()),
        Value::Object(_) => Value::Object(Map::new()),
        Value::Null => Value::Null,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn holds(reply: Value, path: &str, want: Value) -> bool {
        failed(&reply, &[Check { path: path.into(), want }]).is_none()
    }

    #[test]
    fn paths_are_dotted_with_negative_indexes_from_the_end() {
        let reply = json!({"a": {"items": [{"id": 1}, {"id": 2}, {"id": 3}]}});
        assert!(holds(reply.clone(), "a.items.0.id", json!(1)));
        assert!(holds(reply.clone(), "$.a.items.-1.id", json!(3)));
        assert!(holds(reply.clone(), "$", reply.clone()));
        assert!(!holds(reply.clone(), "a.items.3.id", json!(3)));
        assert!(!holds(reply.clone(), "a.items.-4", json!({})));
        assert!(!holds(reply, "a.items.x", json!(1)));
    }

    #[test]
    fn numbers_compare_by_value_floats_within_the_tolerance_and_int64_text_equals_the_number() {
        assert!(holds(json!({"v": 1.0}), "v", json!(1)));
        assert!(holds(json!({"v": 0.1 + 0.2}), "v", json!(0.3)));
        assert!(!holds(json!({"v": 1.001}), "v", json!(1)));
        assert!(holds(json!({"v": 1e-12}), "v", json!(0)));
        assert!(holds(json!({"id": "9007199254740993"}), "id", json!(9007199254740993_i64)));
        assert!(holds(json!({"id": -12}), "id", json!("-12")));
        assert!(!holds(json!({"id": "12x"}), "id", json!(12)));
        assert!(!holds(json!({"id": "1.5"}), "id", json!(1.5)));
        assert!(!holds(json!({"v": u64::MAX}), "v", json!(-1)));
    }

    #[test]
    fn a_missing_key_is_its_default_and_an_extra_key_must_be_one() {
        assert!(holds(json!({"o": {"name": "w"}}), "o", json!({"name": "w", "n": 0, "tags": [], "ok": false})));
        assert!(!holds(json!({"o": {}}), "o", json!({"n": 2})));
        assert!(holds(json!({"o": {"name": "w", "n": 0}}), "o", json!({"name": "w"})));
        assert!(!holds(json!({"o": {"name": "w", "n": 1}}), "o", json!({"name": "w"})));
        assert!(!holds(json!({"l": [1, 2]}), "l", json!([2, 1])));
        assert!(!holds(json!({"s": "1"}), "s", json!(true)));
    }

    #[test]
    fn a_failure_names_its_path_what_came_and_what_was_wanted() {
        let checks = decode(&[json!([["id", 7], ["name", "w"]])]).unwrap();
        assert_eq!(failed(&json!({"id": 7, "name": "v"}), &checks[0]).unwrap(), r#"name: got "v", want "w""#);
        assert_eq!(failed(&json!({"name": "w"}), &checks[0]).unwrap(), "id: missing, want 7");
        assert_eq!(failed(&json!({"id": 7, "name": "w"}), &checks[0]), None);
        assert!(decode(&[json!([["id"]])]).unwrap_err().contains("[path, value]"));
        assert!(decode(&[json!({})]).unwrap_err().contains("responses[0]"));
    }
}
