//! google.protobuf.Timestamp in the proto3 JSON mapping: RFC 3339 in UTC with "Z" and 0, 3, 6 or
//! 9 fractional digits, between 0001-01-01 and 9999-12-31, where pbjson-types writes "+00:00".
//! Any RFC 3339 offset is read.

use chrono::{DateTime, SecondsFormat, Utc};
use prost::Message;
use serde::de::Error as _;
use serde::ser::Error as _;
use serde::{Deserialize, Deserializer, Serialize, Serializer};

/// The seconds of 0001-01-01T00:00:00Z and of 9999-12-31T23:59:59Z, the mapping's range.
const MIN_SECONDS: i64 = -62_135_596_800;
const MAX_SECONDS: i64 = 253_402_300_799;

/// google.protobuf.Timestamp.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Message)]
pub struct Timestamp {
    #[prost(int64, tag = "1")]
    pub seconds: i64,
    #[prost(int32, tag = "2")]
    pub nanos: i32,
}

impl Timestamp {
    fn utc(self) -> Result<DateTime<Utc>, String> {
        let nanos = u32::try_from(self.nanos).ok().filter(|n| *n < 1_000_000_000);
        match nanos {
            Some(nanos) if (MIN_SECONDS..=MAX_SECONDS).contains(&self.seconds) => {
                DateTime::from_timestamp(self.seconds, nanos).ok_or_else(|| format!("Timestamp {self:?} out of range"))
            }
            _ => Err(format!("Timestamp {self:?} is outside 0001-01-01..9999-12-31 or its nanos outside 0..1e9")),
        }
    }
}

impl Serialize for Timestamp {
    fn serialize<S: Serializer>(&self, ser: S) -> Result<S::Ok, S::Error> {
        let utc = self.utc().map_err(S::Error::custom)?;
        ser.serialize_str(&utc.to_rfc3339_opts(SecondsFormat::AutoSi, true))
    }
}

impl<'de> Deserialize<'de> for Timestamp {
    fn deserialize<D: Deserializer<'de>>(de: D) -> Result<Self, D::Error> {
        let text = String::deserialize(de)?;
        let utc = DateTime::parse_from_rfc3339(&text).map_err(|e| D::Error::custom(format!("Timestamp {text:?}: {e}")))?;
        let stamp = Timestamp { seconds: utc.timestamp(), nanos: utc.timestamp_subsec_nanos() as i32 };
        stamp.utc().map_err(D::Error::custom)?;
        Ok(stamp)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn utc_with_z_and_three_six_or_nine_digits() {
        let cases = [
            (0, 0, "1970-01-01T00:00:00Z"),
            (1, 500_000_000, "1970-01-01T00:00:01.500Z"),
            (-1, 123_456_000, "1969-12-31T23:59:59.123456Z"),
            (MAX_SECONDS, 999_999_999, "9999-12-31T23:59:59.999999999Z"),
        ];
        for (seconds, nanos, text) in cases {
            let stamp = Timestamp { seconds, nanos };
            assert_eq!(serde_json::to_value(stamp).unwrap(), json!(text));
            assert_eq!(serde_json::from_value::<Timestamp>(json!(text)).unwrap(), stamp);
        }
    }

    #[test]
    fn an_offset_is_read_and_out_of_range_is_an_error() {
        let stamp: Timestamp = serde_json::from_value(json!("1970-01-01T01:00:00+01:00")).unwrap();
        assert_eq!(stamp, Timestamp { seconds: 0, nanos: 0 });
        assert!(serde_json::to_value(Timestamp { seconds: MAX_SECONDS + 1, nanos: 0 }).is_err());
        assert!(serde_json::to_value(Timestamp { seconds: 0, nanos: -1 }).is_err());
        assert!(serde_json::from_value::<Timestamp>(json!("10000-01-01T00:00:00Z")).is_err());
    }
}
