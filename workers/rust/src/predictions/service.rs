//! `predictions.Predictions` for tonic, over a [`Store`].

use super::{response, Store};
use crate::proto::predictions::predictions_server::{Predictions, PredictionsServer};
use crate::proto::predictions::{PredictionRequest, PredictionResponse};
use tonic::{Request, Response, Status};

pub struct PredictionsService {
    store: Store,
}

/// The tonic service of a store.
pub fn server(store: Store) -> PredictionsServer<PredictionsService> {
    PredictionsServer::new(PredictionsService { store })
}

#[tonic::async_trait]
impl Predictions for PredictionsService {
    /// A Redis that fails is INTERNAL: UNAVAILABLE would read as the RPC's own transport failing.
    async fn get_predictions(&self, request: Request<PredictionRequest>) -> Result<Response<PredictionResponse>, Status> {
        let scores = self.store.scores(&request.into_inner().id_client).await.map_err(Status::internal)?;
        Ok(Response::new(response(scores)))
    }
}
