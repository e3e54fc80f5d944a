//! google.protobuf.FieldMask in the proto3 JSON mapping: one string of its paths, each in
//! lowerCamelCase ("user.displayName,photo"), where pbjson's generic code writes `{"paths": [...]}`.

use prost::Message;
use serde::ser::Error as _;
use serde::{Deserialize, Deserializer, Serialize, Serializer};

/// google.protobuf.FieldMask.
#[derive(Clone, PartialEq, Eq, Hash, Message)]
pub struct FieldMask {
    #[prost(string, repeated, tag = "1")]
    pub paths: Vec<String>,
}

impl Serialize for FieldMask {
    fn serialize<S: Serializer>(&self, ser: S) -> Result<S::Ok, S::Error> {
        let paths: Result<Vec<String>, String> = self.paths.iter().map(|p| camel(p)).collect();
        paths.map_err(S::Error::custom)?.join(",").serialize(ser)
    }
}

impl<'de> Deserialize<'de> for FieldMask {
    fn deserialize<D: Deserializer<'de>>(de: D) -> Result<Self, D::Error> {
        let text = String::deserialize(de)?;
        let paths = text.split(',').filter(|p| !p.is_empty()).map(snake).collect();
        Ok(FieldMask { paths })
    }
}

/// "foo_bar.baz" -> "fooBar.baz"; a path the mapping cannot round-trip is an error, as protobuf's
/// own JSON printers refuse it.
fn camel(path: &str) -> Result<String, String> {
    let mut out = String::with_capacity(path.len());
    let mut upper = false;
    for c in path.chars() {
        match c {
            '_' if upper => return Err(format!("FieldMask path {path:?} has \"__\": it has no JSON form")),
            '_' => upper = true,
            c if c.is_ascii_uppercase() => return Err(format!("FieldMask path {path:?} has an upper-case letter: it has no JSON form")),
            c if upper && c.is_ascii_lowercase() => {
                out.push(c.to_ascii_uppercase());
                upper = false;
            }
            _ if upper => return Err(format!("FieldMask path {path:?}: \"_\" before a non-letter has no JSON form")),
            c => out.push(c),
        }
    }
    if upper {
        return Err(format!("FieldMask path {path:?} ends with \"_\": it has no JSON form"));
    }
    Ok(out)
}

fn snake(path: &str) -> String {
    let mut out = String::with_capacity(path.len() + 4);
    for c in path.chars() {
        if c.is_ascii_uppercase() {
            out.push('_');
            out.push(c.to_ascii_lowercase());
        } else {
            out.push(c);
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn a_field_mask_is_one_string_of_camel_case_paths() {
        let mask = FieldMask { paths: vec!["user.display_name".into(), "photo".into()] };
        assert_eq!(serde_json::to_value(&mask).unwrap(), json!("user.displayName,photo"));
        assert_eq!(serde_json::from_value::<FieldMask>(json!("user.displayName,photo")).unwrap(), mask);
        assert_eq!(serde_json::from_value::<FieldMask>(json!("")).unwrap(), FieldMask::default());
        assert!(serde_json::to_value(FieldMask { paths: vec!["Upper".into()] }).is_err());
    }
}
