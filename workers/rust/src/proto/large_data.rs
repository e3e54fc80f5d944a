//! The hprpc2016 LargeData messages: N distinct int32 fields `f1..fN` with tags 1..N.
//!
//! Deriving prost and serde for structs of 8192 named fields makes compile time explode, so all
//! seven sizes share one const-generic type holding the fields in an array (index i = field
//! f{i+1}), with hand-written protobuf and JSON codecs that are wire-identical to the generated
//! ones: zero fields are omitted on the protobuf wire, every field is written in JSON, unknown
//! tags/keys are skipped, and missing ones read as 0.

use bytes::{Buf, BufMut};
use prost::encoding::{int32, skip_field, DecodeContext, WireType};
use prost::DecodeError;
use serde::de::{self, MapAccess, Visitor};
use serde::ser::SerializeMap;
use serde::{Deserialize, Deserializer, Serialize, Serializer};
use std::fmt;

#[derive(Clone, PartialEq, Debug)]
pub struct LargeData<const N: usize> {
    /// `fields[i]` is field `f{i+1}`; always exactly N long.
    pub fields: Vec<i32>,
}

pub type LargeData128 = LargeData<128>;
pub type LargeData256 = LargeData<256>;
pub type LargeData512 = LargeData<512>;
pub type LargeData1024 = LargeData<1024>;
pub type LargeData2048 = LargeData<2048>;
pub type LargeData4096 = LargeData<4096>;
pub type LargeData8192 = LargeData<8192>;

impl<const N: usize> Default for LargeData<N> {
    fn default() -> Self {
        LargeData { fields: vec![0; N] }
    }
}

fn tag_of(index: usize) -> u32 {
    index as u32 + 1
}

impl<const N: usize> prost::Message for LargeData<N> {
    fn encode_raw(&self, buf: &mut impl BufMut) {
        for (i, value) in self.fields.iter().enumerate().filter(|(_, v)| **v != 0) {
            int32::encode(tag_of(i), value, buf);
        }
    }

    fn merge_field(&mut self, tag: u32, wire_type: WireType, buf: &mut impl Buf, ctx: DecodeContext) -> Result<(), DecodeError> {
        match self.fields.get_mut((tag as usize).wrapping_sub(1)) {
            Some(field) => int32::merge(wire_type, field, buf, ctx),
            None => skip_field(wire_type, tag, buf, ctx),
        }
    }

    fn encoded_len(&self) -> usize {
        let nonzero = self.fields.iter().enumerate().filter(|(_, v)| **v != 0);
        nonzero.map(|(i, v)| int32::encoded_len(tag_of(i), v)).sum()
    }

    fn clear(&mut self) {
        self.fields.fill(0);
    }
}

impl<const N: usize> Serialize for LargeData<N> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let mut map = serializer.serialize_map(Some(N))?;
        let mut key = String::with_capacity(6);
        for (i, value) in self.fields.iter().enumerate() {
            key.clear();
            fmt::write(&mut key, format_args!("f{}", i + 1)).expect("write to String");
            map.serialize_entry(&key, value)?;
        }
        map.end()
    }
}

impl<'de, const N: usize> Deserialize<'de> for LargeData<N> {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        deserializer.deserialize_map(LargeDataVisitor::<N>)
    }
}

struct LargeDataVisitor<const N: usize>;

impl<'de, const N: usize> Visitor<'de> for LargeDataVisitor<N> {
    type Value = LargeData<N>;

    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        write!(f, "an object with int32 fields f1..f{N}")
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Self::Value, A::Error> {
        let mut data = LargeData::<N>::default();
        while let Some(key) = map.next_key::<FieldKey>()? {
            match key.0.and_then(|i| data.fields.get_mut(i)) {
                Some(field) => *field = map.next_value()?,
                None => map.next_value::<de::IgnoredAny>().map(drop)?,
            }
        }
        Ok(data)
    }
}

/// A JSON key `f<k>` read as the array index k-1 without allocating; `None` for other keys.
struct FieldKey(Option<usize>);

impl<'de> Deserialize<'de> for FieldKey {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        deserializer.deserialize_str(FieldKeyVisitor)
    }
}

struct FieldKeyVisitor;

impl Visitor<'_> for FieldKeyVisitor {
    type Value = FieldKey;

    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("a field name")
    }
    fn visit_str<E: de::Error>(self, key: &str) -> Result<FieldKey, E> {
        let number = key.strip_prefix('f').and_then(|k| k.parse::<usize>().ok());
        Ok(FieldKey(number.and_then(|k| k.checked_sub(1))))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use prost::Message;

    #[test]
    fn protobuf_round_trip_skips_zero_and_unknown_fields() {
        let mut data = LargeData128::default();
        data.fields[0] = 7;
        data.fields[127] = -1;
        let bytes = data.encode_to_vec();
        assert_eq!(LargeData128::decode(bytes.as_slice()).unwrap(), data);
        // Read as the smaller message, tag 128 is unknown and skipped (not an error).
        let small = LargeData::<4>::decode(bytes.as_slice()).unwrap();
        assert_eq!(small.fields, vec![7, 0, 0, 0]);
    }

    #[test]
    fn json_writes_every_field_and_reads_missing_as_zero() {
        let data: LargeData<3> = serde_json::from_str(r#"{"f2": 5, "other": [1]}"#).unwrap();
        assert_eq!(data.fields, vec![0, 5, 0]);
        assert_eq!(serde_json::to_string(&data).unwrap(), r#"{"f1":0,"f2":5,"f3":0}"#);
    }
}
