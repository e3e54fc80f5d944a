//! Every shared vector (proto/vectors/arena.json) gives exactly its response through each server.

mod common;

use common::{start, vectors, Vector};
use http_body_util::{BodyExt, Full};
use hyper::client::conn::http1;
use hyper_util::rt::TokioIo;
use rpcarena_worker::drive::verify::json_equal;
use rpcarena_worker::methods::{self, Method, MethodVisitor};
use serde_json::Value;
use std::future::Future;
use std::net::SocketAddr;
use std::pin::Pin;
use tonic::client::Grpc;
use tonic::transport::Channel;

#[tokio::test]
async fn grpc_tonic_answers_every_vector_exactly() {
    let server = start("grpc-tonic").await;
    let channel = Channel::from_shared(format!("http://{}", server.addr)).unwrap().connect().await.unwrap();
    for v in vectors() {
        let call = GrpcCall { channel: channel.clone(), request: v.request.clone(), response: v.response.clone() };
        let outcome = methods::visit(&v.method, call).expect("known method").await;
        assert_eq!(outcome, Ok(()), "{} {}", v.method, short(&v.request));
    }
}

#[tokio::test]
async fn rest_warp_answers_every_vector_exactly() {
    check_http_server("rest-warp").await;
}

#[tokio::test]
async fn rest_axum_answers_every_vector_exactly() {
    check_http_server("rest-axum").await;
}

#[tokio::test]
async fn rest_servers_reject_bad_bodies_and_unknown_methods() {
    for id in ["rest-warp", "rest-axum"] {
        let server = start(id).await;
        assert_eq!(post(server.addr, "/arena/Invert", "{\"value\": 3}").await.0, 400, "{id}");
        assert_eq!(post(server.addr, "/arena/NoSuchMethod", "{}").await.0, 404, "{id}");
    }
}

async fn check_http_server(id: &str) {
    let server = start(id).await;
    for Vector { method, request, response } in vectors() {
        let (status, body) = post(server.addr, &format!("/arena/{method}"), &request.to_string()).await;
        assert_eq!(status, 200, "{id} {method}");
        let reply: Value = serde_json::from_slice(&body).expect("JSON reply");
        // Exact numbers (tolerance 0); a field the writer omitted equals its default.
        assert!(json_equal(&response, &reply, 0.0), "{id} {method} {} -> {}", short(&request), short(&reply));
    }
}

/// One POST on a fresh connection: (status, body).
async fn post(addr: SocketAddr, path: &str, body: &str) -> (u16, Vec<u8>) {
    let stream = tokio::net::TcpStream::connect(addr).await.unwrap();
    let (mut sender, conn) = http1::handshake(TokioIo::new(stream)).await.unwrap();
    tokio::spawn(conn);
    let request = hyper::Request::post(path)
        .header("host", addr.to_string())
        .header("content-type", "application/json")
        .body(Full::new(bytes::Bytes::from(body.to_string())))
        .unwrap();
    let response = sender.send_request(request).await.unwrap();
    let status = response.status().as_u16();
    (status, response.into_body().collect().await.unwrap().to_bytes().to_vec())
}

fn short(v: &Value) -> String {
    v.to_string().chars().take(120).collect()
}

struct GrpcCall {
    channel: Channel,
    request: Value,
    response: Value,
}

type CallFuture = Pin<Box<dyn Future<Output = Result<(), String>> + Send>>;

impl MethodVisitor for GrpcCall {
    type Out = CallFuture;
    fn visit<M: Method>(self) -> CallFuture {
        Box::pin(async move {
            let request: M::Req = serde_json::from_value(self.request).map_err(|e| e.to_string())?;
            let expected: M::Resp = serde_json::from_value(self.response).map_err(|e| e.to_string())?;
            let mut grpc = Grpc::new(self.channel).max_decoding_message_size(usize::MAX);
            grpc.ready().await.map_err(|e| e.to_string())?;
            let path = format!("/arena.Arena/{}", M::NAME).parse().unwrap();
            let codec = tonic_prost::ProstCodec::<M::Req, M::Resp>::default();
            let reply = grpc.unary(tonic::Request::new(request), path, codec).await.map_err(|e| e.to_string())?;
            // Typed equality: doubles compared exactly.
            match reply.into_inner() == expected {
                true => Ok(()),
                false => Err("reply differs from the vector's response".into()),
            }
        })
    }
}

#[tokio::test]
async fn tcp_raw_echoes_every_vector_encoding() {
    use tokio::io::{AsyncReadExt, AsyncWriteExt};
    let server = start("tcp-raw-rust").await;
    let mut stream = tokio::net::TcpStream::connect(server.addr).await.unwrap();
    for v in vectors() {
        let payload = methods::visit(&v.method, Encode(v.request.clone())).expect("known method");
        let mut frame = (payload.len() as u32).to_be_bytes().to_vec();
        frame.extend_from_slice(&payload);
        stream.write_all(&frame).await.unwrap();
        let mut echo = vec![0u8; frame.len()];
        stream.read_exact(&mut echo).await.unwrap();
        assert_eq!(echo, frame, "{}", v.method);
    }
}

/// A request's protobuf encoding.
struct Encode(Value);

impl MethodVisitor for Encode {
    type Out = Vec<u8>;
    fn visit<M: Method>(self) -> Vec<u8> {
        let request: M::Req = serde_json::from_value(self.0).expect("vector decodes");
        prost::Message::encode_to_vec(&request)
    }
}
