//! `drive`'s conversation on stdin/stdout besides the result: the spec is the first JSON value on
//! stdin, and with `"sync": true` the worker says `{"event": "warm"}` after the warm-up and waits
//! for one more non-blank line (or the end of stdin) before the measured phase starts.

use super::call::BoxFut;
use super::spec::{bad, SpecError};
use serde::Deserialize;
use serde_json::Value;
use std::io::{self, BufRead, Read, Write};

pub const WARM: &str = r#"{"event": "warm"}"#;

/// The first JSON value on `input`, read no further: the orchestrator may keep stdin open after it.
/// (serde_json's stream iterator would peek one byte past the value, blocking on an open stdin.)
pub fn read_spec(input: impl Read) -> Result<Value, SpecError> {
    let mut reader = serde_json::Deserializer::from_reader(input);
    match Value::deserialize(&mut reader) {
        Ok(value) => Ok(value),
        Err(e) if e.is_eof() => Err(bad("no spec on stdin")),
        Err(e) => Err(bad(format!("bad spec JSON: {e}"))),
    }
}

/// Says warm on `out`, then waits for a non-blank line on `input`; its end releases too.
pub fn warm_then_wait(mut out: impl Write, mut input: impl BufRead) -> io::Result<()> {
    writeln!(out, "{WARM}")?;
    out.flush()?;
    let mut line = String::new();
    loop {
        line.clear();
        if input.read_line(&mut line)? == 0 || !line.trim().is_empty() {
            return Ok(());
        }
    }
}

/// The handshake on the process's stdout and stdin, run when the engine's clients are warm. A
/// blocking thread reads stdin: the runtime may have a single thread, busy with nothing else.
pub fn stdio_gate() -> BoxFut<'static, ()> {
    Box::pin(async {
        let wait = tokio::task::spawn_blocking(|| warm_then_wait(io::stdout().lock(), io::stdin().lock()));
        if let Ok(Err(e)) = wait.await {
            eprintln!("rpcarena-worker: sync handshake: {e}");
        }
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_spec_is_the_first_value_and_the_rest_stays_unread() {
        let mut input = io::Cursor::new(b"{\"calls\": 3}\n\ngo\n".to_vec());
        assert_eq!(read_spec(&mut input).unwrap()["calls"], 3);
        let mut rest = String::new();
        input.read_to_string(&mut rest).unwrap();
        assert_eq!(rest, "\n\ngo\n");
        assert!(read_spec(io::Cursor::new(b"not json")).unwrap_err().0.starts_with("bad spec JSON"));
        assert_eq!(read_spec(io::Cursor::new(b"  ")).unwrap_err().0, "no spec on stdin");
    }

    #[test]
    fn warm_waits_past_blank_lines_for_one_line() {
        let mut out = Vec::new();
        let mut input = io::Cursor::new(b"\n  \ngo\nafter\n".to_vec());
        warm_then_wait(&mut out, &mut input).unwrap();
        assert_eq!(String::from_utf8(out).unwrap(), "{\"event\": \"warm\"}\n");
        let mut rest = String::new();
        input.read_to_string(&mut rest).unwrap();
        assert_eq!(rest, "after\n");
        warm_then_wait(io::sink(), io::Cursor::new(b"")).unwrap();
    }
}
