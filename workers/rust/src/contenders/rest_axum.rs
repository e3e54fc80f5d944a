//! `rest-axum`: the HTTP/JSON mapping served by axum; its client side is the shared hyper
//! http-json client.

use super::http_json::{client, dispatch, JSON};
use super::{Contender, Shutdown};
use crate::drive::call::BoxFut;
use axum::body::Bytes;
use axum::extract::Path;
use axum::http::{header::CONTENT_TYPE, StatusCode};
use axum::response::{IntoResponse, Response};
use axum::routing::post;
use axum::Router;
use std::io;
use tokio::net::TcpListener;

pub const CONTENDER: Contender = Contender {
    id: "rest-axum",
    protocol: "http-json",
    version: concat!("axum ", env!("RPCARENA_VERSION_AXUM")),
    server: Some(serve),
    client: Some(client::connector),
};

fn serve(listener: TcpListener, shutdown: Shutdown) -> BoxFut<'static, io::Result<()>> {
    let app = Router::new().route("/arena/{method}", post(handle));
    Box::pin(async move { axum::serve(listener, app).with_graceful_shutdown(shutdown).await })
}

async fn handle(Path(method): Path<String>, body: Bytes) -> Response {
    let reply = dispatch::respond(&method, &body);
    let status = StatusCode::from_u16(reply.status()).expect("valid status");
    (status, [(CONTENT_TYPE, JSON)], reply.into_body()).into_response()
}
