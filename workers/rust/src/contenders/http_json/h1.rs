//! `rust-h1`: rpcarena's own HTTP/1.1 client for the http-json mapping, built to load a server as
//! hard as wrk does. `--client rust` (hyper) tells what a Rust service's HTTP client costs; this
//! one tells what the server can take, spending as little of the client CPU per call as it can:
//!
//! - each request (head and canonical JSON body) is encoded once, before the run, and sent with
//!   one `write` per call;
//! - the reply head is parsed with httparse; the body is framed by Content-Length, chunked
//!   transfer coding, or the end of the connection (RFC 9112 §6.3);
//! - a 200 body is checked byte for byte against this request's last reply that was decoded and
//!   found right, so serde decodes a reply only when its bytes are new (the same bytes always
//!   decode to the same value, so the check is as strict as decoding every reply).
//!
//! One keep-alive connection per client, one request in flight (nothing pipelined). A server that
//! answers `Connection: close` (or closes after a reply framed by the close) is reconnected on
//! the next call, inside that call's time, as wrk does.

use super::route::{self, Call, ClientKind, Route};
use super::JSON;
use crate::contenders::Contender;
use crate::drive::call::{connect_tcp, BoxFut, CallError, Conn, Connector, SharedConnector};
use crate::drive::payloads::Payloads;
use crate::drive::spec::{bad, Spec, SpecError};
use crate::methods::Rpc;
use std::sync::Arc;
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpStream;

/// The largest reply accepted; a bigger one is an error, not an unbounded buffer.
const MAX_REPLY: usize = 64 << 20;
const FIRST_BUFFER: usize = 16 << 10;
const MAX_HEADERS: usize = 64;

/// A client only: it drives any http-json server (`--client rust-h1`).
pub const CONTENDER: Contender = Contender {
    id: "rust-h1",
    protocol: "http-json",
    version: concat!("httparse ", env!("RPCARENA_VERSION_HTTPARSE")),
    server: None,
    client: Some(connector),
};

pub fn connector(spec: &Spec) -> Result<SharedConnector, SpecError> {
    route::connector::<H1>(spec)
}

struct H1;

impl ClientKind for H1 {
    fn build<M: Rpc>(spec: &Spec, route: Route<M>) -> Result<SharedConnector, SpecError> {
        let payloads = Payloads::<M>::from_spec(spec)?;
        let encode = |(i, request): (usize, &M::Req)| {
            let call = (route.request)(request).ok_or_else(|| bad(format!("request {i} of {} does not encode", M::NAME)))?;
            Ok(encode(&spec.target, call))
        };
        let wire = payloads.requests.iter().enumerate().map(encode).collect::<Result<_, SpecError>>()?;
        let shared = Arc::new(Shared { target: spec.target.clone(), wire, route, payloads });
        Ok(Arc::new(H1Connector { shared }))
    }
}

/// The whole request as sent: request line, Host, Content-Type and Content-Length when there is
/// a body, then the body.
fn encode(host: &str, call: Call) -> Vec<u8> {
    let mut out = format!("{} {} HTTP/1.1\r\nHost: {host}\r\n", call.method, call.path).into_bytes();
    match call.body {
        Some(body) => {
            out.extend_from_slice(format!("Content-Type: {JSON}\r\nContent-Length: {}\r\n\r\n", body.len()).as_bytes());
            out.extend_from_slice(&body);
        }
        None => out.extend_from_slice(b"\r\n"),
    }
    out
}

struct Shared<M: Rpc> {
    target: String,
    /// Request `i` as sent, for every payload.
    wire: Vec<Vec<u8>>,
    route: Route<M>,
    payloads: Payloads<M>,
}

struct H1Connector<M: Rpc> {
    shared: Arc<Shared<M>>,
}

impl<M: Rpc> Connector for H1Connector<M> {
    fn connect(&self) -> BoxFut<'_, Result<Box<dyn Conn>, CallError>> {
        Box::pin(async move {
            let stream = connect_tcp(&self.shared.target).await?;
            let verified = vec![Vec::new(); self.shared.wire.len()];
            let conn = H1Conn { stream: Some(stream), shared: self.shared.clone(), inbox: Inbox::new(), verified, right: false };
            Ok(Box::new(conn) as Box<dyn Conn>)
        })
    }

    fn payload_count(&self) -> usize {
        self.shared.wire.len()
    }
}

struct H1Conn<M: Rpc> {
    /// `None` after the server ended the connection with a reply: reopened on the next call.
    stream: Option<TcpStream>,
    shared: Arc<Shared<M>>,
    inbox: Inbox,
    /// Per request, the last reply body that decoded to the expected response (empty: none yet).
    verified: Vec<Vec<u8>>,
    /// Whether the last call's reply was the expected response.
    right: bool,
}

impl<M: Rpc> Conn for H1Conn<M> {
    fn call(&mut self, index: usize) -> BoxFut<'_, Result<(), CallError>> {
        Box::pin(async move {
            self.right = false;
            let stream = match &mut self.stream {
                Some(stream) => stream,
                None => self.stream.insert(connect_tcp(&self.shared.target).await?),
            };
            stream.write_all(&self.shared.wire[index]).await.map_err(|_| CallError::Connection)?;
            let reply = self.inbox.receive(stream).await?;
            if !reply.keep_alive {
                self.stream = None;
            }
            if reply.status != 200 {
                return Err(CallError::Status(reply.status.to_string()));
            }
            self.right = check(&self.shared, &mut self.verified[index], index, self.inbox.body(&reply.body));
            Ok(())
        })
    }

    fn reply_matches(&self, _index: usize) -> bool {
        self.right
    }
}

/// Whether `body` is the expected reply to request `index`: the bytes of a reply already found
/// right, or a body that decodes to the expected response (then remembered as found right).
fn check<M: Rpc>(shared: &Shared<M>, verified: &mut Vec<u8>, index: usize, body: &[u8]) -> bool {
    if !verified.is_empty() && verified.as_slice() == body {
        return true;
    }
    let right = (shared.route.reply)(body).is_some_and(|reply| shared.payloads.matches(index, &reply));
    if right {
        verified.clear();
        verified.extend_from_slice(body);
    }
    right
}

/// Where a reply's body lies: in the read buffer (Content-Length or until close), or assembled
/// from chunks.
pub(crate) enum Body {
    InBuffer(usize, usize),
    Dechunked,
}

pub(crate) struct Reply {
    pub(crate) status: u16,
    pub(crate) body: Body,
    pub(crate) keep_alive: bool,
}

/// How the body of a reply is delimited (RFC 9112 §6.3).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Framing {
    Length(usize),
    Chunked,
    UntilClose,
}

struct Head {
    len: usize,
    status: u16,
    framing: Framing,
    keep_alive: bool,
}

/// The connection's read side: one buffer, emptied at every reply (nothing is pipelined, so
/// bytes past the end of a reply are a protocol error).
pub(crate) struct Inbox {
    buf: Vec<u8>,
    filled: usize,
    dechunked: Vec<u8>,
}

impl Inbox {
    pub(crate) fn new() -> Self {
        Inbox { buf: vec![0; FIRST_BUFFER], filled: 0, dechunked: Vec::new() }
    }

    pub(crate) fn body(&self, at: &Body) -> &[u8] {
        match *at {
            Body::InBuffer(start, end) => &self.buf[start..end],
            Body::Dechunked => &self.dechunked,
        }
    }

    pub(crate) async fn receive(&mut self, stream: &mut TcpStream) -> Result<Reply, CallError> {
        self.filled = 0;
        let head = loop {
            match parse_head(&self.buf[..self.filled])? {
                Some(head) if (100..200).contains(&head.status) => self.drop_front(head.len),
                Some(head) => break head,
                None => {
                    if self.fill(stream).await? == 0 {
                        return Err(CallError::Connection);
                    }
                }
            }
        };
        let body = match head.framing {
            Framing::Length(len) => self.read_length(stream, head.len, len).await?,
            Framing::Chunked => self.read_chunked(stream, head.len).await?,
            Framing::UntilClose => self.read_to_close(stream, head.len).await?,
        };
        // A body framed by the close of the connection leaves nothing to keep alive.
        let keep_alive = head.keep_alive && head.framing != Framing::UntilClose;
        Ok(Reply { status: head.status, body, keep_alive })
    }

    async fn read_length(&mut self, stream: &mut TcpStream, start: usize, len: usize) -> Result<Body, CallError> {
        let end = start.checked_add(len).filter(|end| *end <= MAX_REPLY).ok_or(CallError::Other)?;
        while self.filled < end {
            if self.fill(stream).await? == 0 {
                return Err(CallError::Connection);
            }
        }
        match self.filled == end {
            true => Ok(Body::InBuffer(start, end)),
            false => Err(CallError::Other),
        }
    }

    async fn read_to_close(&mut self, stream: &mut TcpStream, start: usize) -> Result<Body, CallError> {
        while self.fill(stream).await? > 0 {}
        Ok(Body::InBuffer(start, self.filled))
    }

    async fn read_chunked(&mut self, stream: &mut TcpStream, start: usize) -> Result<Body, CallError> {
        self.dechunked.clear();
        let mut at = start;
        loop {
            match dechunk_step(&self.buf[at..self.filled], &mut self.dechunked)? {
                Step::Consumed(n) => at += n,
                Step::Done(n) if at + n == self.filled => return Ok(Body::Dechunked),
                Step::Done(_) => return Err(CallError::Other),
                Step::NeedMore => {
                    if self.fill(stream).await? == 0 {
                        return Err(CallError::Connection);
                    }
                }
            }
        }
    }

    /// Reads what the socket has into the buffer (grown when full); 0 at the end of the stream.
    async fn fill(&mut self, stream: &mut TcpStream) -> Result<usize, CallError> {
        if self.filled == self.buf.len() {
            if self.buf.len() >= MAX_REPLY {
                return Err(CallError::Other);
            }
            self.buf.resize(self.buf.len() * 2, 0);
        }
        let n = stream.read(&mut self.buf[self.filled..]).await.map_err(|_| CallError::Connection)?;
        self.filled += n;
        Ok(n)
    }

    fn drop_front(&mut self, n: usize) {
        self.buf.copy_within(n..self.filled, 0);
        self.filled -= n;
    }
}

/// The reply head at the front of `bytes`, `None` while it is incomplete.
fn parse_head(bytes: &[u8]) -> Result<Option<Head>, CallError> {
    let mut headers = [httparse::EMPTY_HEADER; MAX_HEADERS];
    let mut response = httparse::Response::new(&mut headers);
    let len = match response.parse(bytes) {
        Ok(httparse::Status::Complete(len)) => len,
        Ok(httparse::Status::Partial) => return Ok(None),
        Err(_) => return Err(CallError::Other),
    };
    let status = response.code.ok_or(CallError::Other)?;
    let http10 = response.version == Some(0);
    let mut framing = None;
    let mut keep_alive = !http10;
    for header in response.headers.iter() {
        let value = std::str::from_utf8(header.value).map_err(|_| CallError::Other)?.trim();
        if header.name.eq_ignore_ascii_case("content-length") && framing != Some(Framing::Chunked) {
            let len = value.parse::<usize>().map_err(|_| CallError::Other)?;
            if framing.is_some_and(|f| f != Framing::Length(len)) {
                return Err(CallError::Other);
            }
            framing = Some(Framing::Length(len));
        } else if header.name.eq_ignore_ascii_case("transfer-encoding") {
            let last = value.rsplit(',').next().unwrap_or("").trim();
            framing = Some(if last.eq_ignore_ascii_case("chunked") { Framing::Chunked } else { Framing::UntilClose });
        } else if header.name.eq_ignore_ascii_case("connection") {
            let tokens = || value.split(',').map(str::trim);
            if tokens().any(|t| t.eq_ignore_ascii_case("close")) {
                keep_alive = false;
            } else if tokens().any(|t| t.eq_ignore_ascii_case("keep-alive")) {
                keep_alive = true;
            }
        }
    }
    let bodiless = status == 204 || status == 304 || (100..200).contains(&status);
    let framing = if bodiless { Framing::Length(0) } else { framing.unwrap_or(Framing::UntilClose) };
    Ok(Some(Head { len, status, framing, keep_alive }))
}

#[derive(Debug, PartialEq, Eq)]
enum Step {
    /// A chunk (size line, data, CRLF) of this many bytes was appended to the body.
    Consumed(usize),
    /// The last chunk and the trailer section ended after this many bytes.
    Done(usize),
    NeedMore,
}

/// Decodes the next chunk at the front of `bytes` into `body`.
fn dechunk_step(bytes: &[u8], body: &mut Vec<u8>) -> Result<Step, CallError> {
    let (line, size) = match httparse::parse_chunk_size(bytes) {
        Ok(httparse::Status::Complete((line, size))) => (line, usize::try_from(size).map_err(|_| CallError::Other)?),
        Ok(httparse::Status::Partial) => return Ok(Step::NeedMore),
        Err(_) => return Err(CallError::Other),
    };
    if size == 0 {
        return Ok(trailers_end(&bytes[line..]).map_or(Step::NeedMore, |n| Step::Done(line + n)));
    }
    if body.len() + size > MAX_REPLY {
        return Err(CallError::Other);
    }
    let Some(end) = line.checked_add(size).filter(|end| end + 2 <= bytes.len()) else { return Ok(Step::NeedMore) };
    if &bytes[end..end + 2] != b"\r\n" {
        return Err(CallError::Other);
    }
    body.extend_from_slice(&bytes[line..end]);
    Ok(Step::Consumed(end + 2))
}

/// The length of the trailer section (trailer lines, then an empty line), once all of it is here.
fn trailers_end(bytes: &[u8]) -> Option<usize> {
    let mut at = 0;
    loop {
        let line = bytes[at..].windows(2).position(|w| w == b"\r\n")?;
        at += line + 2;
        if line == 0 {
            return Some(at);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn encodes_a_post_with_its_length_and_a_get_without_a_body() {
        let post = Call { method: hyper::Method::POST, path: "/arena/SayHello".into(), body: Some(b"{\"name\":\"w\"}".to_vec().into()) };
        let text = String::from_utf8(encode("127.0.0.1:9", post)).unwrap();
        assert_eq!(text, "POST /arena/SayHello HTTP/1.1\r\nHost: 127.0.0.1:9\r\nContent-Type: application/json\r\nContent-Length: 12\r\n\r\n{\"name\":\"w\"}");
        let get = Call { method: hyper::Method::GET, path: "/predictions/a".into(), body: None };
        assert_eq!(encode("h:1", get), b"GET /predictions/a HTTP/1.1\r\nHost: h:1\r\n\r\n");
    }

    #[test]
    fn frames_a_reply_by_length_chunks_or_close() {
        let head = |text: &str| parse_head(text.as_bytes()).unwrap().unwrap();
        let h = head("HTTP/1.1 200 OK\r\ncontent-length: 5\r\n\r\nhello");
        assert_eq!((h.status, h.framing, h.keep_alive, h.len), (200, Framing::Length(5), true, 38));
        assert_eq!(head("HTTP/1.1 200 OK\r\nTransfer-Encoding: gzip, chunked\r\n\r\n").framing, Framing::Chunked);
        assert_eq!(head("HTTP/1.1 200 OK\r\nContent-Length: 3\r\nTransfer-Encoding: chunked\r\n\r\n").framing, Framing::Chunked);
        let close = head("HTTP/1.1 200 OK\r\nConnection: close\r\n\r\n");
        assert_eq!((close.framing, close.keep_alive), (Framing::UntilClose, false));
        assert!(!head("HTTP/1.0 200 OK\r\nContent-Length: 0\r\n\r\n").keep_alive);
        assert!(head("HTTP/1.0 200 OK\r\nConnection: keep-alive\r\nContent-Length: 0\r\n\r\n").keep_alive);
        assert_eq!(head("HTTP/1.1 204 No Content\r\n\r\n").framing, Framing::Length(0));
        assert!(parse_head(b"HTTP/1.1 200 OK\r\nContent-Le").unwrap().is_none());
        assert_eq!(parse_head(b"HTTP/1.1 200 OK\r\nContent-Length: x\r\n\r\n").err(), Some(CallError::Other));
        assert_eq!(parse_head(b"HTTP/1.1 200 OK\r\nContent-Length: 1\r\nContent-Length: 2\r\n\r\n").err(), Some(CallError::Other));
        assert_eq!(parse_head(b"garbage\r\n\r\n").err(), Some(CallError::Other));
    }

    #[test]
    fn dechunks_step_by_step_and_waits_for_the_rest() {
        let wire = b"5\r\nhello\r\n1;ext=1\r\n!\r\n0\r\nTrailer: x\r\n\r\n";
        let mut body = Vec::new();
        let mut at = 0;
        let done = loop {
            match dechunk_step(&wire[at..], &mut body).unwrap() {
                Step::Consumed(n) => at += n,
                Step::Done(n) => break at + n,
                Step::NeedMore => panic!("whole message given"),
            }
        };
        assert_eq!((body.as_slice(), done), (&b"hello!"[..], wire.len()));
        for cut in 0..wire.len() {
            let mut partial = Vec::new();
            let mut at = 0;
            while let Ok(Step::Consumed(n)) = dechunk_step(&wire[at..cut], &mut partial) {
                at += n;
            }
            assert_eq!(dechunk_step(&wire[at..cut], &mut partial), Ok(Step::NeedMore), "cut at {cut}");
        }
        assert_eq!(dechunk_step(b"3\r\nabcXY", &mut Vec::new()), Err(CallError::Other));
    }
}
