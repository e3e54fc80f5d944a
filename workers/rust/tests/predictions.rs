//! The predictions seed over a real Redis: the servers' replies and both clients' drives.
//! Each test starts its own redis-server (skipped when absent, unless CI=true).

mod common;

use common::{drive_spec, invert_spec, redis, start, start_with};
use http_body_util::{BodyExt, Empty};
use hyper::body::Bytes;
use hyper::client::conn::http1;
use hyper_util::rt::TokioIo;
use rpcarena_worker::contenders::ServerOptions;
use rpcarena_worker::predictions::Store;
use rpcarena_worker::proto::predictions::{PredictionRequest, PredictionResponse};
use serde_json::{json, Value};
use std::net::SocketAddr;
use tonic::client::Grpc;
use tonic::transport::Channel;
use tonic_prost::ProstCodec;

const SERVERS: [&str; 3] = ["grpc-tonic", "rest-warp", "rest-axum"];

async fn options(redis: &redis::RedisServer) -> ServerOptions {
    ServerOptions { predictions: Some(Store::open(&redis.url).await.expect("store opens")), user: None }
}

fn predictions_spec(contender: &str, addr: SocketAddr, calls: u64) -> Value {
    let (requests, responses) = redis::requests_and_responses();
    let mut spec = invert_spec(contender, addr, calls, 2);
    spec["method"] = json!("GetPredictions");
    spec["requests"] = requests;
    spec["responses"] = responses;
    spec
}

#[tokio::test]
async fn grpc_tonic_answers_sorted_entries_as_floats() {
    let Some(redis) = redis::start() else { return };
    let server = start_with("grpc-tonic", options(&redis).await).await;
    let channel = Channel::from_shared(format!("http://{}", server.addr)).unwrap().connect().await.unwrap();
    let (requests, responses) = redis::requests_and_responses();
    for (request, expected) in requests.as_array().unwrap().iter().zip(responses.as_array().unwrap()) {
        let request: PredictionRequest = serde_json::from_value(request.clone()).unwrap();
        let expected: PredictionResponse = serde_json::from_value(expected.clone()).unwrap();
        let mut grpc = Grpc::new(channel.clone());
        grpc.ready().await.unwrap();
        let path = "/predictions.Predictions/GetPredictions".parse().unwrap();
        let codec = ProstCodec::<PredictionRequest, PredictionResponse>::default();
        let reply = grpc.unary(tonic::Request::new(request), path, codec).await.unwrap().into_inner();
        assert_eq!(reply, expected);
    }
}

#[tokio::test]
async fn rest_servers_answer_the_hash_as_an_object_of_numbers() {
    let Some(redis) = redis::start() else { return };
    for id in ["rest-warp", "rest-axum"] {
        let server = start_with(id, options(&redis).await).await;
        let (status, body) = get(server.addr, "/predictions/client-0000").await;
        assert_eq!(status, 200, "{id}");
        assert_eq!(body, json!({"churn": 0.0, "cross_sell": 0.40625, "upsell": 0.203125}), "{id}");
        assert_eq!(get(server.addr, "/predictions/nobody").await, (200, json!({})), "{id}");
        assert_eq!(get(server.addr, "/predictions/client%2D0000").await.1["upsell"], 0.203125, "{id}: a decoded id");
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn both_clients_drive_get_predictions_verified() {
    let Some(redis) = redis::start() else { return };
    for id in SERVERS {
        let server = start_with(id, options(&redis).await).await;
        let result = drive_spec(&predictions_spec(id, server.addr, 200)).await;
        assert_eq!((result.calls, result.error_total()), (200, 0), "{id}: {:?}", result.errors);
    }
}

#[tokio::test]
async fn a_wrong_score_is_a_wrong_answer() {
    let Some(redis) = redis::start() else { return };
    for id in SERVERS {
        let server = start_with(id, options(&redis).await).await;
        let mut spec = predictions_spec(id, server.addr, 8);
        spec["responses"][0]["predictions"][1]["value"] = json!(0.4063);
        let result = drive_spec(&spec).await;
        assert_eq!((result.calls, result.errors["wrong_answer"]), (6, 2), "{id}: {:?}", result.errors);
    }
}

#[tokio::test]
async fn without_redis_the_service_is_absent() {
    for (id, kind) in [("grpc-tonic", "status_unimplemented"), ("rest-warp", "status_404"), ("rest-axum", "status_404")] {
        let server = start(id).await;
        let result = drive_spec(&predictions_spec(id, server.addr, 10)).await;
        assert_eq!((result.calls, result.errors.get(kind).copied()), (0, Some(10)), "{id}: {:?}", result.errors);
    }
}

#[tokio::test]
async fn a_redis_that_does_not_answer_is_refused_at_startup() {
    let url = format!("redis://{}/0", common::dead_address());
    let why = Store::open(&url).await.err().expect("no store");
    assert!(why.contains("does not answer"), "{why}");
    assert!(Store::open("http://127.0.0.1:1/0").await.err().unwrap().contains("--redis"));
}

async fn get(addr: SocketAddr, path: &str) -> (u16, Value) {
    let stream = tokio::net::TcpStream::connect(addr).await.unwrap();
    let (mut sender, connection) = http1::handshake(TokioIo::new(stream)).await.unwrap();
    tokio::spawn(connection);
    let request = hyper::Request::get(path).header("host", addr.to_string()).body(Empty::<Bytes>::new()).unwrap();
    let response = sender.send_request(request).await.unwrap();
    let status = response.status().as_u16();
    let body = response.into_body().collect().await.unwrap().to_bytes();
    (status, serde_json::from_slice(&body).unwrap_or(Value::Null))
}
