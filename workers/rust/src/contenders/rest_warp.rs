//! `rest-warp`: the HTTP/JSON mapping served by warp (the seed being reproduced used warp), and
//! the seed's `GET /predictions/{id_client}` (404 without a Redis), and a user's method with
//! `--schema` (`POST /package.Service/Method`, `http_json::user`); its client side is the shared
//! hyper http-json client.
//!
//! The warp filter runs as a hyper service in an accept loop equivalent to `warp::serve`'s
//! (hyper HTTP/1.1 per connection): `warp::serve(..).incoming(..).run()` is a future the compiler
//! cannot prove `Send` (a known limit of `async fn` in warp's private `Accept` trait), and a
//! contender's server future must be `Send`.

use super::http_json::user::UserRoute;
use super::http_json::{client, dispatch, predictions, JSON};
use super::{Contender, ServerOptions, Shutdown};
use crate::drive::call::BoxFut;
use crate::limits;
use bytes::Bytes;
use hyper::server::conn::http1;
use hyper_util::rt::TokioIo;
use hyper_util::service::TowerToHyperService;
use percent_encoding::percent_decode_str;
use std::io;
use tokio::net::TcpListener;
use warp::http::{header::CONTENT_TYPE, Response, StatusCode};
use warp::path::FullPath;
use warp::Filter;

pub const CONTENDER: Contender = Contender {
    id: "rest-warp",
    protocol: "http-json",
    version: concat!("warp ", env!("RPCARENA_VERSION_WARP")),
    server: Some(serve),
    client: Some(client::connector),
};

fn serve(listener: TcpListener, options: ServerOptions, shutdown: Shutdown) -> BoxFut<'static, io::Result<()>> {
    let arena = warp::post()
        .and(warp::path("arena"))
        .and(warp::path::param::<String>())
        .and(warp::path::end())
        .and(warp::body::content_length_limit(limits::MAX_REQUEST_BYTES as u64))
        .and(warp::body::bytes())
        .map(|method: String, body: Bytes| reply(dispatch::respond(&method, &body)));
    let store = options.predictions;
    let predictions =
        warp::get().and(warp::path("predictions")).and(warp::path::param::<String>()).and(warp::path::end()).then(move |id: String| {
            let store = store.clone();
            // warp hands the segment over as sent; axum decodes it.
            async move { reply(predictions::respond(store.as_ref(), &percent_decode_str(&id).decode_utf8_lossy()).await) }
        });
    // Last: it reads the body of any other POST, which only a 404 then answers.
    let user = options.user.as_deref().map(UserRoute::of);
    let user = warp::post()
        .and(warp::path::full())
        .and(warp::body::content_length_limit(limits::MAX_REQUEST_BYTES as u64))
        .and(warp::body::bytes())
        .and_then(move |path: FullPath, body: Bytes| {
            let answer = user.as_ref().and_then(|route| route.respond(path.as_str(), body));
            async move {
                match answer {
                    Some(answer) => Ok(reply(answer.await)),
                    None => Err(warp::reject::not_found()),
                }
            }
        });
    let routes = arena.or(predictions).unify().or(user).unify().recover(too_large);
    Box::pin(async move {
        tokio::select! {
            result = accept_loop(listener, routes) => result,
            _ = shutdown => Ok(()),
        }
    })
}

async fn accept_loop<F>(listener: TcpListener, routes: F) -> io::Result<()>
where
    F: Filter + Clone + Send + Sync + 'static,
    F::Extract: warp::Reply,
{
    let idle = limits::idle_timeout();
    loop {
        let (stream, _) = listener.accept().await?;
        let service = TowerToHyperService::new(warp::service(routes.clone()));
        tokio::spawn(http1::Builder::new().serve_connection(TokioIo::new(limits::Idle::new(stream, idle)), service));
    }
}

/// warp's refusal of a body over the bound (or of one without a Content-Length: warp reads no
/// chunked body under a limit), as a 413 or 411 with the reason; any other rejection as warp
/// makes it.
async fn too_large(rejection: warp::Rejection) -> Result<Response<Vec<u8>>, warp::Rejection> {
    let status = if rejection.find::<warp::reject::PayloadTooLarge>().is_some() {
        StatusCode::PAYLOAD_TOO_LARGE
    } else if rejection.find::<warp::reject::LengthRequired>().is_some() {
        StatusCode::LENGTH_REQUIRED
    } else {
        return Err(rejection);
    };
    let mut response = Response::new(format!("request body over {} bytes: send less", limits::MAX_REQUEST_BYTES).into_bytes());
    *response.status_mut() = status;
    Ok(response)
}

fn reply(reply: dispatch::Reply) -> Response<Vec<u8>> {
    let mut response = Response::new(Vec::new());
    *response.status_mut() = StatusCode::from_u16(reply.status()).expect("valid status");
    response.headers_mut().insert(CONTENT_TYPE, JSON.parse().expect("valid header"));
    *response.body_mut() = reply.into_body();
    response
}
