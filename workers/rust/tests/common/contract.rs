//! The golden worker-contract documents of `proto/contract/` (written by `tools/gen_contract.py`
//! from `src/rpcarena/contract.py`, never by hand) and the one validator of a document against
//! the field table `fields.json`.

use serde_json::{Map, Value};
use std::path::PathBuf;

fn dir() -> PathBuf {
    PathBuf::from(concat!(env!("CARGO_MANIFEST_DIR"), "/../../proto/contract"))
}

fn read(name: &str) -> String {
    let path = dir().join(name);
    std::fs::read_to_string(&path)
        .unwrap_or_else(|e| panic!("cannot read {}: {e} (python tools/gen_contract.py writes it)", path.display()))
}

/// A golden document, e.g. `result.json`.
pub fn golden(name: &str) -> Value {
    serde_json::from_str(&read(name)).unwrap_or_else(|e| panic!("proto/contract/{name} is not JSON: {e}"))
}

/// Every `spec.*.json` as (file name, text), sorted by name.
pub fn golden_specs() -> Vec<(String, String)> {
    let entries = std::fs::read_dir(dir()).expect("proto/contract/ exists (python tools/gen_contract.py)");
    let mut names: Vec<String> = entries.map(|e| e.unwrap().file_name().to_string_lossy().into_owned()).collect();
    names.retain(|name| name.starts_with("spec.") && name.ends_with(".json"));
    names.sort();
    names.into_iter().map(|name| (name.clone(), read(&name))).collect()
}

/// The field table of one document kind: `drive_spec`, `drive_result` or `ready`.
pub fn fields(document: &str) -> Map<String, Value> {
    let table = golden("fields.json")[document].as_object().cloned();
    table.unwrap_or_else(|| panic!("proto/contract/fields.json has no {document:?} table"))
}

/// What breaks the field table in `doc`, one message per breach (empty when none): a required
/// key missing, a key the table lacks, a value of another JSON kind, null where it is not allowed.
pub fn violations(document: &str, doc: &Value) -> Vec<String> {
    let table = fields(document);
    let Some(object) = doc.as_object() else {
        return vec![format!("a {document} document must be a JSON object, not {}", kind_of(doc))];
    };
    let required = |(key, field): (&String, &Value)| field["required"] == true && !object.contains_key(key);
    let missing = table.iter().filter(|entry| required(*entry)).map(|(key, _)| format!("required key {key:?} is missing"));
    let wrong = object.iter().filter_map(|(key, value)| match table.get(key) {
        None => Some(format!("key {key:?} is not in the {document} table")),
        Some(field) => kind_error(key, value, field),
    });
    missing.chain(wrong).collect()
}

/// Panics with every breach of the field table in `doc`.
pub fn assert_follows(document: &str, doc: &Value) {
    let found = violations(document, doc);
    assert!(found.is_empty(), "{document} breaks proto/contract/fields.json: {}\n{doc}", found.join("; "));
}

fn kind_error(key: &str, value: &Value, field: &Value) -> Option<String> {
    let kind = field["json"].as_str().unwrap_or_else(|| panic!("fields.json: {key:?} has no JSON kind"));
    let allowed = match value {
        Value::Null => field["nullable"] == true,
        _ => is_kind(value, kind),
    };
    (!allowed).then(|| format!("key {key:?} must be {kind}, not {}", kind_of(value)))
}

/// JSON kinds as `rpcarena.contract` reads them: an integer is a number too, a boolean never is;
/// `1.0` is a number, not an integer (Python's json reads it as a float).
fn is_kind(value: &Value, kind: &str) -> bool {
    match kind {
        "integer" => value.is_i64() || value.is_u64(),
        "number" => value.is_number(),
        "string" => value.is_string(),
        "boolean" => value.is_boolean(),
        "object" => value.is_object(),
        "array" => value.is_array(),
        other => panic!("fields.json names JSON kind {other:?}, which this validator does not know: add it to is_kind"),
    }
}

fn kind_of(value: &Value) -> &'static str {
    match value {
        Value::Null => "null",
        Value::Bool(_) => "boolean",
        Value::Number(n) if n.is_f64() => "number",
        Value::Number(_) => "integer",
        Value::String(_) => "string",
        Value::Array(_) => "array",
        Value::Object(_) => "object",
    }
}
