//! The predictions seed's REST twin, kept as published rather than in the contract's
//! `POST /arena/{Method}` mapping: `GET /predictions/{id_client}` answers the Redis hash as a JSON
//! object, class_name -> score. The server core ([`respond`]) is framework-independent; the
//! client's [`route`] turns the object into the canonical reply, sorted by class_name.

use super::dispatch::Reply;
use super::route::{Call, Route};
use crate::predictions::{response, GetPredictions, Scores, Store};
use crate::proto::predictions::{PredictionRequest, PredictionResponse};
use hyper::Method;
use percent_encoding::{utf8_percent_encode, AsciiSet, NON_ALPHANUMERIC};
use serde::{de, Deserialize, Deserializer};
use std::collections::BTreeMap;

/// The path prefix; the id follows as one percent-encoded segment.
pub const PREFIX: &str = "/predictions/";

/// RFC 3986 unreserved characters stay as they are; everything else is escaped.
const SEGMENT: &AsciiSet = &NON_ALPHANUMERIC.remove(b'-').remove(b'.').remove(b'_').remove(b'~');

/// The reply to `GET /predictions/{id_client}` (an already decoded id): 404 without a Redis,
/// 500 when Redis fails, else the hash as a JSON object of numbers (`{}` for an unknown id).
pub async fn respond(store: Option<&Store>, id_client: &str) -> Reply {
    let Some(store) = store else { return Reply::NotFound };
    match store.scores(id_client).await {
        // serde_json writes an f32 in its shortest form; a BTreeMap keeps the keys sorted.
        Ok(scores) => Reply::Ok(serde_json::to_vec(&scores).unwrap_or_default()),
        Err(why) => Reply::Failed(why),
    }
}

/// The client's side of the mapping, for `drive`.
pub fn route() -> Route<GetPredictions> {
    Route { request: get, reply }
}

fn get(request: &PredictionRequest) -> Option<Call> {
    let path = format!("{PREFIX}{}", utf8_percent_encode(&request.id_client, SEGMENT));
    Some(Call { method: Method::GET, path, body: None })
}

fn reply(body: &[u8]) -> Option<PredictionResponse> {
    let object: BTreeMap<String, Score> = serde_json::from_slice(body).ok()?;
    let scores: Scores = object.into_iter().map(|(name, score)| (name, score.0)).collect();
    Some(response(scores))
}

/// A score written as a JSON number, or as a string holding one (the seed's FastAPI answered
/// the hash's raw strings).
struct Score(f32);

impl<'de> Deserialize<'de> for Score {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Score, D::Error> {
        match serde_json::Value::deserialize(deserializer)? {
            serde_json::Value::Number(n) => n.as_f64().map(|v| Score(v as f32)).ok_or_else(|| de::Error::custom("not a number")),
            serde_json::Value::String(text) => text.trim().parse().map(Score).map_err(de::Error::custom),
            other => Err(de::Error::custom(format!("score {other} is neither a number nor a string"))),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reply_reads_numbers_or_strings_sorted_by_class_name() {
        let got = reply(br#"{"upsell": "0.203125", "churn": 0, "cross_sell": 0.40625}"#).unwrap();
        let entries: Vec<_> = got.predictions.iter().map(|p| (p.class_name.as_str(), p.value)).collect();
        assert_eq!(entries, [("churn", 0.0), ("cross_sell", 0.40625), ("upsell", 0.203125)]);
        assert_eq!(reply(b"{}").unwrap().predictions.len(), 0);
        assert!(reply(br#"{"churn": "high"}"#).is_none());
        assert!(reply(b"[1]").is_none());
    }

    #[test]
    fn the_id_is_one_escaped_segment() {
        let call = get(&PredictionRequest { id_client: "client-0001".into() }).unwrap();
        assert_eq!((call.method, call.path.as_str(), call.body), (Method::GET, "/predictions/client-0001", None));
        assert_eq!(get(&PredictionRequest { id_client: "a b/c".into() }).unwrap().path, "/predictions/a%20b%2Fc");
    }

    #[tokio::test]
    async fn without_a_store_the_route_is_not_found() {
        assert_eq!(respond(None, "client-0001").await, Reply::NotFound);
    }
}
