//! `tcp-raw-rust`: the floor. Length-prefixed frames (4-byte big-endian length) echoed unchanged
//! over one persistent TCP connection per client (TCP_NODELAY), with tokio. It must be the least
//! work a call can cost, so each side reads through one buffer per connection ([`inbox::Inbox`]):
//! one read normally takes a whole frame, header and payload, and bytes past it (a pipelined next
//! frame) wait in the buffer. The buffer grows only with the bytes that arrive (a length is a
//! claim, not memory); a frame over [`MAX_FRAME`] closes the connection.
//!
//! The server closes a connection when the idle timeout ([`crate::limits::idle_timeout`]) passes without a whole frame arriving and
//! its echo being taken: one deadline per frame, moved on after each echo (not a timer per read or
//! write), so a peer that trickles a frame a byte at a time is closed too.

mod client;
mod inbox;
mod server;

use super::Contender;

pub const CONTENDER: Contender = Contender {
    id: "tcp-raw-rust",
    protocol: "tcp-raw",
    version: concat!("tokio ", env!("RPCARENA_VERSION_TOKIO")),
    server: Some(server::serve),
    client: Some(client::connector),
};

/// Frames over this close the connection (an echo: a reply is as long as its request).
pub const MAX_FRAME: usize = crate::limits::MAX_REQUEST_BYTES;

/// `payload` with its 4-byte big-endian length in front.
fn frame_of(payload: &[u8]) -> Vec<u8> {
    let mut frame = (payload.len() as u32).to_be_bytes().to_vec();
    frame.extend_from_slice(payload);
    frame
}
