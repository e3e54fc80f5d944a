//! google.protobuf.Any in the proto3 JSON mapping: its message's JSON with "@type" beside the
//! fields, or under "value" for a type whose JSON is not an object of fields (a Timestamp, a
//! wrapper, a Struct...), where pbjson's generic code writes `{"typeUrl", "value": base64}`.

use prost::Message;
use serde::de::{DeserializeOwned, Error as _};
use serde::ser::Error as _;
use serde::{Deserialize, Deserializer, Serialize, Serializer};
use serde_json::{Map, Value as Json};

/// google.protobuf.Any.
#[derive(Clone, PartialEq, Eq, Hash, Message)]
pub struct Any {
    #[prost(string, tag = "1")]
    pub type_url: String,
    #[prost(bytes = "bytes", tag = "2")]
    pub value: prost::bytes::Bytes,
}

/// How the message of an Any is read and written as JSON: found by its full name among the
/// schema's messages (`generated::any_type`) and the well-known types ([`well_known_type`]).
#[derive(Clone, Copy)]
pub struct AnyType {
    /// Its JSON is not an object of fields (a Timestamp, a wrapper...): the mapping puts it under "value".
    special: bool,
    to_json: fn(&[u8]) -> Result<Json, String>,
    from_json: fn(Json) -> Result<Vec<u8>, String>,
}

impl AnyType {
    pub fn of<M: Message + Default + Serialize + DeserializeOwned>(special: bool) -> Self {
        AnyType {
            special,
            to_json: |bytes| {
                let message = M::decode(bytes).map_err(|e| e.to_string())?;
                serde_json::to_value(&message).map_err(|e| e.to_string())
            },
            from_json: |json| M::deserialize(json).map(|m| m.encode_to_vec()).map_err(|e| e.to_string()),
        }
    }
}

/// A well-known type by its full name.
pub fn well_known_type(name: &str) -> Option<AnyType> {
    macro_rules! table {
        ($($special:literal $name:ident),* $(,)?) => {
            match name {
                $(concat!("google.protobuf.", stringify!($name)) => Some(AnyType::of::<super::$name>($special)),)*
                _ => None,
            }
        };
    }
    table!(true Timestamp, true Duration, true FieldMask, true Struct, true Value, true ListValue, true Any,
        true BoolValue, true BytesValue, true DoubleValue, true FloatValue, true Int32Value, true Int64Value,
        true StringValue, true UInt32Value, true UInt64Value, false Empty)
}

fn any_type(type_url: &str) -> Result<AnyType, String> {
    let name = type_url.rsplit('/').next().unwrap_or_default();
    crate::userschema::generated::any_type(name)
        .or_else(|| well_known_type(name))
        .ok_or_else(|| format!("Any of type {type_url:?}: no such message in the schema"))
}

impl Serialize for Any {
    fn serialize<S: Serializer>(&self, ser: S) -> Result<S::Ok, S::Error> {
        let found = any_type(&self.type_url).map_err(S::Error::custom)?;
        let json = (found.to_json)(&self.value).map_err(S::Error::custom)?;
        let mut object = Map::new();
        object.insert("@type".into(), Json::String(self.type_url.clone()));
        match json {
            Json::Object(fields) if !found.special => object.extend(fields),
            value => {
                object.insert("value".into(), value);
            }
        }
        object.serialize(ser)
    }
}

impl<'de> Deserialize<'de> for Any {
    fn deserialize<D: Deserializer<'de>>(de: D) -> Result<Self, D::Error> {
        let mut object = Map::<String, Json>::deserialize(de)?;
        let type_url = match object.remove("@type") {
            Some(Json::String(url)) => url,
            _ => return Err(D::Error::custom("an Any without its \"@type\"")),
        };
        let found = any_type(&type_url).map_err(D::Error::custom)?;
        let json = if found.special { object.remove("value").unwrap_or(Json::Null) } else { Json::Object(object) };
        let value = (found.from_json)(json).map_err(D::Error::custom)?;
        Ok(Any { type_url, value: value.into() })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::userschema::well_known::Timestamp;
    use serde_json::json;

    #[test]
    fn an_any_of_a_well_known_type_has_its_json_under_value() {
        let stamp = Timestamp { seconds: 1, nanos: 500_000_000 };
        let any = Any { type_url: "type.googleapis.com/google.protobuf.Timestamp".into(), value: stamp.encode_to_vec().into() };
        let json = serde_json::to_value(&any).unwrap();
        assert_eq!(json["@type"], "type.googleapis.com/google.protobuf.Timestamp");
        assert_eq!(serde_json::from_value::<Timestamp>(json["value"].clone()).unwrap(), stamp);
        assert_eq!(serde_json::from_value::<Any>(json).unwrap(), any);
    }

    #[test]
    fn an_any_of_a_message_has_its_fields_beside_the_type_and_an_unknown_type_is_an_error() {
        let empty = Any { type_url: "type.googleapis.com/google.protobuf.Empty".into(), value: Default::default() };
        assert_eq!(serde_json::to_value(&empty).unwrap(), json!({"@type": "type.googleapis.com/google.protobuf.Empty"}));
        let nested = Any { type_url: "type.googleapis.com/google.protobuf.Any".into(), value: empty.encode_to_vec().into() };
        let json = serde_json::to_value(&nested).unwrap();
        assert_eq!(json["value"]["@type"], "type.googleapis.com/google.protobuf.Empty");
        assert_eq!(serde_json::from_value::<Any>(json).unwrap(), nested);
        let error = serde_json::from_value::<Any>(json!({"@type": "x/no.Such"})).unwrap_err().to_string();
        assert!(error.contains("no such message"), "{error}");
    }
}
