//! The predictions seed's service (`proto/predictions.proto`): GetPredictions(id_client) reads the
//! Redis hash `predictions:{id_client}` (class_name -> score, stored as decimal text) and answers
//! its entries sorted by class_name, scores as f32, so every language answers alike.
//!
//! `store` reads Redis, `service` is the tonic server; the REST twin lives with the http-json
//! mapping (`contenders::http_json::predictions`).

pub mod service;
pub mod store;

use crate::drive::verify::FLOAT_TOLERANCE;
use crate::methods::Rpc;
use crate::proto::predictions::{Prediction, PredictionRequest, PredictionResponse};
use std::collections::BTreeMap;

pub use store::Store;

/// One client's scores, ordered by class_name.
pub type Scores = BTreeMap<String, f32>;

/// The operation as clients call it: `/predictions.Predictions/GetPredictions`.
pub struct GetPredictions;

impl Rpc for GetPredictions {
    const SERVICE: &'static str = "predictions.Predictions";
    const NAME: &'static str = "GetPredictions";
    const TOLERANCE: f64 = FLOAT_TOLERANCE;
    type Req = PredictionRequest;
    type Resp = PredictionResponse;
}

/// The canonical reply of a hash: its entries sorted by class_name.
pub fn response(scores: Scores) -> PredictionResponse {
    let predictions = scores.into_iter().map(|(class_name, value)| Prediction { class_name, value }).collect();
    PredictionResponse { predictions }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn response_sorts_by_class_name() {
        let scores = Scores::from([("upsell".into(), 0.5), ("churn".into(), 0.25), ("fraud".into(), 0.0)]);
        let names: Vec<_> = response(scores).predictions.into_iter().map(|p| (p.class_name, p.value)).collect();
        assert_eq!(names, [("churn".into(), 0.25), ("fraud".into(), 0.0), ("upsell".to_string(), 0.5)]);
    }

    #[test]
    fn scores_match_within_the_float_tolerance() {
        use crate::drive::payloads::Payloads;
        let expected = serde_json::json!([{"predictions": [{"class_name": "churn", "value": 0.40625}]}]);
        let payloads = Payloads::<GetPredictions>::decode(&[serde_json::json!({"id_client": "a"})], expected.as_array().unwrap()).unwrap();
        let reply = |value: f32| response(Scores::from([("churn".into(), value)]));
        assert!(payloads.matches(0, &reply(0.40625)));
        assert!(payloads.matches(0, &reply(0.40625 * (1.0 + 5e-7))));
        assert!(!payloads.matches(0, &reply(0.40625 * (1.0 + 5e-6))));
        assert!(!payloads.matches(0, &PredictionResponse::default()));
    }
}
