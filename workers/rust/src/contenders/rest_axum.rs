//! `rest-axum`: the HTTP/JSON mapping served by axum, and the predictions seed's
//! `GET /predictions/{id_client}` (404 without a Redis), and a user's method with `--schema`
//! (`POST /package.Service/Method`, `http_json::user`, the code rest-warp serves it with); its
//! client side is the shared hyper http-json client.

use super::http_json::user::UserRoute;
use super::http_json::{client, dispatch, predictions, JSON};
use super::{Contender, ServerOptions, Shutdown};
use crate::drive::call::BoxFut;
use crate::limits;
use crate::predictions::Store;
use axum::body::Bytes;
use axum::extract::DefaultBodyLimit;
use axum::extract::{Path, State};
use axum::http::{header::CONTENT_TYPE, StatusCode};
use axum::response::{IntoResponse, Response};
use axum::routing::{get, post};
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

fn serve(listener: TcpListener, options: ServerOptions, shutdown: Shutdown) -> BoxFut<'static, io::Result<()>> {
    let mut app = Router::new();
    if let Some(user) = options.user.as_deref().map(UserRoute::of) {
        let path = user.path.clone();
        app = app.route(
            &path,
            post(move |body: Bytes| {
                let answer = user.respond(&user.path, body).expect("the route of its own path");
                async move { into_response(answer.await) }
            }),
        );
    }
    let app = app
        .route("/arena/{method}", post(handle))
        .route("/predictions/{id_client}", get(get_predictions))
        .with_state(options.predictions)
        .layer(DefaultBodyLimit::max(limits::MAX_REQUEST_BYTES));
    let listener = limits::IdleListener { listener, idle: limits::idle_timeout() };
    Box::pin(async move { axum::serve(listener, app).with_graceful_shutdown(shutdown).await })
}

async fn handle(Path(method): Path<String>, body: Bytes) -> Response {
    into_response(dispatch::respond(&method, &body))
}

async fn get_predictions(State(store): State<Option<Store>>, Path(id_client): Path<String>) -> Response {
    into_response(predictions::respond(store.as_ref(), &id_client).await)
}

fn into_response(reply: dispatch::Reply) -> Response {
    let status = StatusCode::from_u16(reply.status()).expect("valid status");
    (status, [(CONTENT_TYPE, JSON)], reply.into_body()).into_response()
}
