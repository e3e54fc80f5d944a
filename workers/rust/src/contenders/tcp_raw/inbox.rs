//! A connection's read side, shared by the echo server and the client: one buffer per connection
//! so that a read takes every byte available (a next frame's too) in one syscall.

use super::MAX_FRAME;
use std::io;
use tokio::io::{AsyncRead, AsyncReadExt};

/// The least room a read is given: a small frame and whatever follows it come in one read.
const FIRST_READ: usize = 4 << 10;
/// The most the buffer grows by ahead of the bytes that arrive, beyond what it already holds.
const CHUNK: usize = 64 << 10;

/// What has arrived and is not yet consumed.
pub(super) struct Inbox {
    buf: Vec<u8>,
    /// `buf[start..end]` is the frame last returned; the bytes after it belong to the next ones.
    start: usize,
    end: usize,
}

impl Inbox {
    pub(super) fn new() -> Self {
        Inbox { buf: Vec::new(), start: 0, end: 0 }
    }

    /// The frame last returned by [`Inbox::next_frame`], header included (empty after a failure).
    pub(super) fn frame(&self) -> &[u8] {
        &self.buf[self.start..self.end]
    }

    /// The next whole frame, header included, reading only while the buffer does not hold it; a
    /// read has room for `expect` bytes (the size of the reply awaited, when the caller knows it)
    /// so that one read normally takes it. `None` for a frame over [`MAX_FRAME`]; an end of stream
    /// before a whole frame is an `UnexpectedEof` error.
    pub(super) async fn next_frame<R: AsyncRead + Unpin>(&mut self, stream: &mut R, expect: usize) -> io::Result<Option<&[u8]>> {
        self.start = self.end;
        loop {
            let size = frame_size(&self.buf[self.start..]);
            if size > 4 + MAX_FRAME {
                return Ok(None);
            }
            if self.buf.len() - self.start >= size {
                self.end = self.start + size;
                return Ok(Some(&self.buf[self.start..self.end]));
            }
            self.fill(stream, size, expect).await?;
        }
    }

    /// One read onto the end of the buffer, after moving the bytes not yet consumed to its front.
    /// The room made is what the frame still lacks, capped at what the buffer holds (or a chunk),
    /// so an announced length costs nothing until its bytes come; never less than [`FIRST_READ`]
    /// or `expect`, which the caller vouches for.
    async fn fill<R: AsyncRead + Unpin>(&mut self, stream: &mut R, size: usize, expect: usize) -> io::Result<()> {
        self.buf.drain(..self.start);
        self.start = 0;
        self.end = 0;
        let missing = size - self.buf.len();
        self.buf.reserve(missing.min(self.buf.len().max(CHUNK)).max(FIRST_READ).max(expect));
        if stream.read_buf(&mut self.buf).await? == 0 {
            return Err(io::ErrorKind::UnexpectedEof.into());
        }
        Ok(())
    }
}

/// The size of the frame that `held` begins, header included: the header's claim, or 4 while the
/// header itself is incomplete.
fn frame_size(held: &[u8]) -> usize {
    match held.first_chunk::<4>() {
        Some(header) => 4 + u32::from_be_bytes(*header) as usize,
        None => 4,
    }
}

#[cfg(test)]
mod tests {
    use super::super::frame_of;
    use super::*;
    use std::collections::VecDeque;
    use std::pin::Pin;
    use std::task::{Context, Poll};
    use tokio::io::ReadBuf;

    /// A stream that hands out its bytes in the given pieces, one per read (a piece larger than
    /// the room the reader gives is split), then EOF; it counts the reads.
    struct Pieces {
        pieces: VecDeque<Vec<u8>>,
        reads: usize,
    }

    impl Pieces {
        fn new(pieces: &[&[u8]]) -> Self {
            Pieces { pieces: pieces.iter().map(|p| p.to_vec()).collect(), reads: 0 }
        }
    }

    impl AsyncRead for Pieces {
        fn poll_read(mut self: Pin<&mut Self>, _: &mut Context<'_>, buf: &mut ReadBuf<'_>) -> Poll<io::Result<()>> {
            self.reads += 1;
            if let Some(mut piece) = self.pieces.pop_front() {
                let n = piece.len().min(buf.remaining());
                buf.put_slice(&piece[..n]);
                if n < piece.len() {
                    self.pieces.push_front(piece.split_off(n));
                }
            }
            Poll::Ready(Ok(()))
        }
    }

    async fn next(inbox: &mut Inbox, stream: &mut Pieces) -> io::Result<Option<Vec<u8>>> {
        Ok(inbox.next_frame(stream, 0).await?.map(<[u8]>::to_vec))
    }

    #[tokio::test]
    async fn a_frame_split_across_reads_is_put_together() {
        let frame = frame_of(b"hello, world");
        let mut stream = Pieces::new(&[&frame[..2], &frame[2..5], &frame[5..]]);
        let mut inbox = Inbox::new();
        assert_eq!(next(&mut inbox, &mut stream).await.unwrap(), Some(frame.clone()));
        assert_eq!(inbox.frame(), frame);
        assert_eq!(stream.reads, 3);
    }

    /// Bytes past a frame are the next frame's: kept, not read again, nor lost.
    #[tokio::test]
    async fn pipelined_frames_come_from_one_read() {
        let (first, second, third) = (frame_of(b"one"), frame_of(b"two, longer"), frame_of(&[9u8; 300]));
        let together = [first.as_slice(), &second, &third[..7]].concat();
        let mut stream = Pieces::new(&[&together, &third[7..]]);
        let mut inbox = Inbox::new();
        assert_eq!(next(&mut inbox, &mut stream).await.unwrap(), Some(first));
        assert_eq!(next(&mut inbox, &mut stream).await.unwrap(), Some(second));
        assert_eq!(stream.reads, 1, "the second frame was already in the buffer");
        assert_eq!(next(&mut inbox, &mut stream).await.unwrap(), Some(third));
        assert_eq!(stream.reads, 2);
    }

    /// With room for the expected reply, one read takes a frame far larger than the first read's
    /// room; without it, the same frame takes several.
    #[tokio::test]
    async fn an_expected_reply_comes_in_one_read() {
        let frame = frame_of(&[5u8; 100 << 10]);
        for (expect, reads) in [(frame.len(), 1), (0, 3)] {
            let mut stream = Pieces::new(&[&frame]);
            let mut inbox = Inbox::new();
            assert_eq!(inbox.next_frame(&mut stream, expect).await.unwrap(), Some(frame.as_slice()));
            assert_eq!(stream.reads, reads, "expecting {expect} bytes");
        }
    }

    #[tokio::test]
    async fn a_frame_over_the_limit_is_refused() {
        let header = (MAX_FRAME as u32 + 1).to_be_bytes();
        let mut stream = Pieces::new(&[&header, &[0u8; 64]]);
        assert_eq!(next(&mut Inbox::new(), &mut stream).await.unwrap(), None);
        let at_limit = (MAX_FRAME as u32).to_be_bytes();
        let mut stream = Pieces::new(&[&at_limit, &[0u8; 64]]);
        assert!(next(&mut Inbox::new(), &mut stream).await.is_err(), "a frame at the limit is read, then ends early");
    }

    /// A header may claim 64 MiB: the buffer grows with the bytes that really come.
    #[tokio::test]
    async fn a_lying_header_does_not_allocate_its_claim() {
        let mut stream = Pieces::new(&[&(MAX_FRAME as u32).to_be_bytes(), &[7u8; 100]]);
        let mut inbox = Inbox::new();
        let result = next(&mut inbox, &mut stream).await;
        assert_eq!(result.map_err(|e| e.kind()), Err(io::ErrorKind::UnexpectedEof));
        assert_eq!(inbox.buf.len(), 104);
        assert!(inbox.buf.capacity() < 1 << 20, "{} bytes reserved for 104", inbox.buf.capacity());
        assert!(inbox.frame().is_empty());
    }

    /// An end of stream inside a header or a payload is an error, not a short frame.
    #[tokio::test]
    async fn an_end_inside_a_frame_is_an_error() {
        let frame = frame_of(b"abcdef");
        for cut in [2, 7] {
            let mut stream = Pieces::new(&[&frame, &frame[..cut]]);
            let mut inbox = Inbox::new();
            assert_eq!(next(&mut inbox, &mut stream).await.unwrap(), Some(frame.clone()));
            let result = next(&mut inbox, &mut stream).await;
            assert_eq!(result.map_err(|e| e.kind()), Err(io::ErrorKind::UnexpectedEof), "cut at {cut}");
        }
    }
}
