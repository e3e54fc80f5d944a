//! The http-json client: hyper HTTP/1.1, one keep-alive connection per client (TCP_NODELAY),
//! serde encoding of the typed request and decoding of the typed reply, along the operation's
//! [`Route`] (`POST /arena/{Method}`, or `GET /predictions/{id_client}`).

use super::route::{self, ClientKind, Route};
use super::JSON;
use crate::drive::call::{connect_tcp, BoxFut, CallError, Conn, Connector, SharedConnector};
use crate::drive::payloads::Payloads;
use crate::drive::spec::{Spec, SpecError};
use crate::methods::Rpc;
use bytes::Bytes;
use http_body_util::{BodyExt, Full};
use hyper::client::conn::http1::{self, Connection, SendRequest};
use hyper::header::{CONTENT_TYPE, HOST};
use hyper::{Request, StatusCode};
use hyper_util::rt::TokioIo;
use std::future::{poll_fn, Future};
use std::pin::pin;
use std::sync::Arc;
use std::task::Poll;
use tokio::net::TcpStream;

pub fn connector(spec: &Spec) -> Result<SharedConnector, SpecError> {
    route::connector::<Hyper>(spec)
}

struct Hyper;

impl ClientKind for Hyper {
    fn build<M: Rpc>(spec: &Spec, route: Route<M>) -> Result<SharedConnector, SpecError> {
        let payloads = Arc::new(Payloads::<M>::from_spec(spec)?);
        Ok(Arc::new(HttpConnector { target: spec.target.clone(), route, payloads }))
    }
}

struct HttpConnector<M: Rpc> {
    target: String,
    route: Route<M>,
    payloads: Arc<Payloads<M>>,
}

impl<M: Rpc> Connector for HttpConnector<M> {
    fn connect(&self) -> BoxFut<'_, Result<Box<dyn Conn>, CallError>> {
        Box::pin(async move {
            let stream = connect_tcp(&self.target).await?;
            let (sender, connection) = http1::handshake(TokioIo::new(stream)).await.map_err(|_| CallError::Connection)?;
            // The connection is driven by the calling task itself (see `HttpConn::call`), not spawned:
            // a spawned connection task costs two task hand-offs per call.
            let conn = HttpConn::<M> {
                sender,
                connection,
                closed: false,
                target: self.target.clone(),
                route: self.route,
                payloads: self.payloads.clone(),
                reply: None,
            };
            Ok(Box::new(conn) as Box<dyn Conn>)
        })
    }

    fn payload_count(&self) -> usize {
        self.payloads.len()
    }
}

struct HttpConn<M: Rpc> {
    sender: SendRequest<Full<Bytes>>,
    /// hyper's connection state machine (socket reads and writes), polled only inside `call`:
    /// between calls the connection is idle (one request at a time, nothing pipelined).
    connection: Connection<TokioIo<TcpStream>, Full<Bytes>>,
    /// The connection future has finished (peer closed or I/O error): every further call fails.
    closed: bool,
    target: String,
    route: Route<M>,
    payloads: Arc<Payloads<M>>,
    reply: Option<M::Resp>,
}

impl<M: Rpc> HttpConn<M> {
    fn request(&self, index: usize) -> Result<Request<Full<Bytes>>, CallError> {
        let call = (self.route.request)(&self.payloads.requests[index]).ok_or(CallError::Other)?;
        let builder = Request::builder().method(call.method).uri(call.path).header(HOST, self.target.as_str());
        match call.body {
            Some(body) => builder.header(CONTENT_TYPE, JSON).body(Full::new(body)),
            None => builder.body(Full::new(Bytes::new())),
        }
        .map_err(|_| CallError::Other)
    }
}

impl<M: Rpc> Conn for HttpConn<M> {
    fn call(&mut self, index: usize) -> BoxFut<'_, Result<(), CallError>> {
        Box::pin(async move {
            self.reply = None;
            if self.closed {
                return Err(CallError::Connection);
            }
            let request = self.request(index)?;
            let HttpConn { sender, connection, closed, .. } = self;
            let mut exchange = pin!(async {
                sender.ready().await.map_err(|_| CallError::Connection)?;
                let response = sender.send_request(request).await.map_err(|e| classify(&e))?;
                let status = response.status();
                let body = response.into_body().collect().await.map_err(|e| classify(&e))?.to_bytes();
                Ok::<_, CallError>((status, body))
            });
            // Poll the connection, the exchange, then the connection again: the exchange's request
            // is written in the same poll that queued it, with no wake-up in between.
            let (status, body) = poll_fn(|cx| {
                for _ in 0..2 {
                    if !*closed && std::pin::Pin::new(&mut *connection).poll(cx).is_ready() {
                        *closed = true;
                    }
                    if let Poll::Ready(outcome) = exchange.as_mut().poll(cx) {
                        return Poll::Ready(outcome);
                    }
                }
                // A finished connection delivers nothing more: the exchange can never complete.
                match *closed {
                    true => Poll::Ready(Err(CallError::Connection)),
                    false => Poll::Pending,
                }
            })
            .await?;
            if status != StatusCode::OK {
                return Err(CallError::Status(status.as_u16().to_string()));
            }
            // A 200 whose body is not the operation's response is a wrong answer.
            self.reply = (self.route.reply)(&body);
            Ok(())
        })
    }

    fn reply_matches(&self, index: usize) -> bool {
        self.reply.as_ref().is_some_and(|reply| self.payloads.matches(index, reply))
    }
}

/// hyper failures: a closed, reset or half-read connection is `connection`, anything else `other`.
fn classify(error: &hyper::Error) -> CallError {
    let io_source = std::error::Error::source(error).is_some_and(|s| s.is::<std::io::Error>());
    if error.is_closed() || error.is_incomplete_message() || error.is_canceled() || io_source {
        CallError::Connection
    } else {
        CallError::Other
    }
}
