//! The tonic service: every unary operation from the method table, plus `InvertStream`; and
//! `predictions.Predictions` when `serve` has a Redis (else that service is UNIMPLEMENTED); and a
//! user's method with `--schema` (`user`).

use crate::contenders::{ServerOptions, Shutdown};
use crate::drive::call::BoxFut;
use crate::limits;
use crate::methods::{op, Method, Refused};
use crate::proto::arena_server::{Arena, ArenaServer};
use crate::proto::large_data::*;
use crate::proto::*;
use std::io;
use std::pin::Pin;
use tokio::net::TcpListener;
use tokio_stream::{Stream, StreamExt};
use tonic::transport::server::TcpIncoming;
use tonic::{Request, Response, Status, Streaming};

pub struct ArenaService;

type WordStream = Pin<Box<dyn Stream<Item = Result<Word, Status>> + Send>>;

macro_rules! tonic_service {
    ($($name:ident $snake:ident $req:ty => $resp:ty = $logic:path;)*) => {
        #[tonic::async_trait]
        impl Arena for ArenaService {
            $(async fn $snake(&self, request: Request<$req>) -> Result<Response<$resp>, Status> {
                Ok(Response::new(<op::$name as Method>::respond(request.into_inner())?))
            })*

            type InvertStreamStream = WordStream;

            async fn invert_stream(&self, request: Request<Streaming<Word>>) -> Result<Response<WordStream>, Status> {
                // Per message, the semantics of the method table's InvertStream.
                let replies = request.into_inner().map(|word| -> Result<Word, Status> { Ok(<op::InvertStream as Method>::respond(word?)?) });
                Ok(Response::new(Box::pin(replies)))
            }
        }
    };
}
crate::for_each_unary_method!(tonic_service);

/// A refused request is the caller's error: INVALID_ARGUMENT, with the reason.
impl From<Refused> for Status {
    fn from(refused: Refused) -> Status {
        Status::invalid_argument(refused.0)
    }
}

pub fn serve(listener: TcpListener, options: ServerOptions, shutdown: Shutdown) -> BoxFut<'static, io::Result<()>> {
    Box::pin(async move {
        // A message over the bound is RESOURCE_EXHAUSTED; a connection idle, or not taking its
        // replies, for the idle timeout is closed (tonic has no max_connection_idle).
        let idle = limits::idle_timeout();
        let incoming = TcpIncoming::from(listener).with_nodelay(Some(true)).map(move |stream| stream.map(|s| limits::Idle::new(s, idle)));
        let service =
            ArenaServer::new(ArenaService).max_decoding_message_size(limits::MAX_REQUEST_BYTES).max_encoding_message_size(usize::MAX);
        let mut router = tonic::transport::Server::builder()
            .add_service(service)
            .add_optional_service(options.predictions.map(crate::predictions::service::server));
        if let Some(served) = &options.user {
            router = super::user::add(router, served);
        }
        router.serve_with_incoming_shutdown(incoming, shutdown).await.map_err(io::Error::other)
    })
}
