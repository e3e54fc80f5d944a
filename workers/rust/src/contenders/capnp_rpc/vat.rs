//! A two-party vat network over one TCP connection, and what its reader accepts.

use capnp_rpc::rpc_twoparty_capnp::Side;
use capnp_rpc::twoparty::VatNetwork;
use tokio::io::{AsyncRead, AsyncWrite, ReadHalf};
use tokio_util::compat::{Compat, TokioAsyncReadCompatExt, TokioAsyncWriteCompatExt};

/// What the server reads: at most one request's bound of words. capnp-futures checks a message's
/// segment table against it (and refuses more than 512 segments) before it allocates the segments,
/// then allocates the announced size whole. The client reads replies under capnp's default limit
/// (64 MiB): the contract bounds requests, and replies may be longer.
pub(super) fn reader_options(side: Side) -> capnp::message::ReaderOptions {
    let mut options = capnp::message::ReaderOptions::new();
    if side == Side::Server {
        options.traversal_limit_in_words(Some(crate::limits::MAX_REQUEST_BYTES / 8));
    }
    options
}

/// The read side of a vat's connection.
type Reader<S> = futures::io::BufReader<Compat<ReadHalf<S>>>;

/// A vat network over `stream` (TCP_NODELAY set by the caller), this end being `side`: reads and
/// writes buffered, each message written whole before its flush, so a call is one write.
pub(super) fn network<S>(stream: S, side: Side) -> Box<VatNetwork<Reader<S>>>
where
    S: AsyncRead + AsyncWrite + Unpin + 'static,
{
    let (reader, writer) = tokio::io::split(stream);
    let (reader, writer) = (futures::io::BufReader::new(reader.compat()), futures::io::BufWriter::new(writer.compat_write()));
    Box::new(VatNetwork::new(reader, writer, side, reader_options(side)))
}
