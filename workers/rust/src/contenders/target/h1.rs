//! The target's HTTP/1.1 calls over rust-h1's connection code: each request's bytes encoded
//! once, one write per call on one keep-alive connection per client, the reply framed by its
//! Content-Length, chunks or the connection's end (`Inbox`). A reply's body is checked only
//! when its bytes differ from the last body found right for that request, as rust-h1 does.

use super::check::{self, Check};
use crate::contenders::http_json::h1::Inbox;
use crate::drive::call::{connect_tcp, BoxFut, CallError, Conn, Connector, SharedConnector};
use crate::drive::spec::{bad, SpecError};
use hyper::Uri;
use serde_json::Value;
use std::sync::Arc;
use tokio::io::AsyncWriteExt;
use tokio::net::TcpStream;

struct Shared {
    /// Where every request goes: host and port.
    address: String,
    /// Request `i` as sent.
    wire: Vec<Vec<u8>>,
    checks: Vec<Vec<Check>>,
    /// The expected status; `None`: any 2xx.
    status: Option<u16>,
}

pub fn connector(requests: &[Value], checks: Vec<Vec<Check>>, status: Option<u16>) -> Result<SharedConnector, SpecError> {
    let mut address = None;
    let mut wire = Vec::with_capacity(requests.len());
    for (i, request) in requests.iter().enumerate() {
        let (host, bytes) = encode(request).map_err(|why| bad(format!("requests[{i}]: {why}")))?;
        match &address {
            Some(first) if *first != host => {
                return Err(bad(format!(
                    "requests[{i}] goes to {host}, not {first}: the Rust target driver calls one server; use --client go"
                )))
            }
            _ => address = Some(host),
        }
        wire.push(bytes);
    }
    let address = address.ok_or_else(|| bad("a target spec needs at least one request"))?;
    Ok(Arc::new(TargetConnector { shared: Arc::new(Shared { address, wire, checks, status }) }))
}

/// One rendered request (`{method, url, headers, body}`) as sent, and the `host:port` it goes to:
/// request line, Host, the headers in name order, Content-Length when there is a body, the body.
fn encode(request: &Value) -> Result<(String, Vec<u8>), String> {
    let want = || format!("want {{method, url, headers, body}}, got {request}");
    let method = request.get("method").and_then(Value::as_str).filter(|m| !m.is_empty()).ok_or_else(want)?;
    let url = request.get("url").and_then(Value::as_str).ok_or_else(want)?;
    let uri: Uri = url.parse().map_err(|e| format!("bad URL {url:?}: {e}"))?;
    if uri.scheme_str() != Some("http") {
        return Err(format!("{url:?}: the Rust target driver calls http:// URLs; use --client go for https"));
    }
    let authority = uri.authority().ok_or_else(|| format!("{url:?} names no host"))?;
    let address = format!("{}:{}", authority.host(), authority.port_u16().unwrap_or(80));
    let path = uri.path_and_query().map_or("/", |p| p.as_str());
    let path = if path.is_empty() { "/" } else { path };
    let body = match request.get("body") {
        None | Some(Value::Null) => None,
        Some(Value::String(body)) => Some(body.as_bytes()),
        Some(_) => return Err(want()),
    };
    let mut headers: Vec<(&str, &str)> = match request.get("headers") {
        None | Some(Value::Null) => Vec::new(),
        Some(Value::Object(map)) => {
            map.iter().map(|(k, v)| Ok((k.as_str(), v.as_str().ok_or_else(want)?))).collect::<Result<_, String>>()?
        }
        Some(_) => return Err(want()),
    };
    headers.sort_unstable();
    let host = headers.iter().find(|(k, _)| k.eq_ignore_ascii_case("host")).map_or(authority.as_str(), |(_, v)| v);
    let mut out = format!("{method} {path} HTTP/1.1\r\nHost: {host}\r\n");
    let framing = |k: &str| k.eq_ignore_ascii_case("host") || k.eq_ignore_ascii_case("content-length");
    for (k, v) in headers.iter().filter(|(k, _)| !framing(k)) {
        out.push_str(&format!("{k}: {v}\r\n"));
    }
    if let Some(body) = body {
        out.push_str(&format!("Content-Length: {}\r\n", body.len()));
    }
    out.push_str("\r\n");
    let mut out = out.into_bytes();
    out.extend_from_slice(body.unwrap_or_default());
    Ok((address, out))
}

struct TargetConnector {
    shared: Arc<Shared>,
}

impl Connector for TargetConnector {
    fn connect(&self) -> BoxFut<'_, Result<Box<dyn Conn>, CallError>> {
        Box::pin(async move {
            let stream = connect_tcp(&self.shared.address).await?;
            let verified = vec![Vec::new(); self.shared.wire.len()];
            let conn = TargetConn { stream: Some(stream), shared: self.shared.clone(), inbox: Inbox::new(), verified, failed: None };
            Ok(Box::new(conn) as Box<dyn Conn>)
        })
    }

    fn payload_count(&self) -> usize {
        self.shared.wire.len()
    }
}

struct TargetConn {
    /// `None` after the server ended the connection with a reply: reopened on the next call.
    stream: Option<TcpStream>,
    shared: Arc<Shared>,
    inbox: Inbox,
    /// Per request, the last reply body every check held for (empty: none yet).
    verified: Vec<Vec<u8>>,
    /// Why the last reply failed its checks (`None`: it passed).
    failed: Option<String>,
}

impl Conn for TargetConn {
    fn call(&mut self, index: usize) -> BoxFut<'_, Result<(), CallError>> {
        Box::pin(async move {
            self.failed = None;
            let stream = match &mut self.stream {
                Some(stream) => stream,
                None => self.stream.insert(connect_tcp(&self.shared.address).await?),
            };
            stream.write_all(&self.shared.wire[index]).await.map_err(|_| CallError::Connection)?;
            let reply = self.inbox.receive(stream).await?;
            if !reply.keep_alive {
                self.stream = None;
            }
            let wanted = match self.shared.status {
                Some(code) => reply.status == code,
                None => (200..300).contains(&reply.status),
            };
            if !wanted {
                return Err(CallError::Status(reply.status.to_string()));
            }
            self.failed = judge(&self.shared.checks[index], &mut self.verified[index], self.inbox.body(&reply.body));
            Ok(())
        })
    }

    fn reply_matches(&self, _index: usize) -> bool {
        self.failed.is_none()
    }

    fn explain(&self, _index: usize) -> Option<String> {
        self.failed.clone()
    }
}

/// Why `body` fails `checks` (`None`: every check holds), remembering a body found right.
fn judge(checks: &[Check], verified: &mut Vec<u8>, body: &[u8]) -> Option<String> {
    if checks.is_empty() || (!verified.is_empty() && verified.as_slice() == body) {
        return None;
    }
    let failed = match serde_json::from_slice::<Value>(body) {
        Ok(reply) => check::failed(&reply, checks),
        Err(e) => Some(format!("the body is not JSON: {e}")),
    };
    if failed.is_none() {
        verified.clear();
        verified.extend_from_slice(body);
    }
    failed
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn encodes_a_request_once_with_its_host_headers_and_length() {
        let post = json!({"method": "POST", "url": "http://127.0.0.1:8080/items?x=1",
                          "headers": {"X-B": "2", "Content-Type": "application/json"}, "body": "{}"});
        let (address, wire) = encode(&post).unwrap();
        assert_eq!(address, "127.0.0.1:8080");
        let text =
            "POST /items?x=1 HTTP/1.1\r\nHost: 127.0.0.1:8080\r\nContent-Type: application/json\r\nX-B: 2\r\nContent-Length: 2\r\n\r\n{}";
        assert_eq!(String::from_utf8(wire).unwrap(), text);
        let (address, wire) = encode(&json!({"method": "GET", "url": "http://localhost", "headers": {}, "body": null})).unwrap();
        assert_eq!((address.as_str(), wire.as_slice()), ("localhost:80", &b"GET / HTTP/1.1\r\nHost: localhost\r\n\r\n"[..]));
    }

    #[test]
    fn refuses_what_it_cannot_send() {
        let https = json!({"method": "GET", "url": "https://h/"});
        assert!(encode(&https).unwrap_err().contains("--client go"));
        assert!(encode(&json!({"url": "http://h/"})).unwrap_err().contains("want {method"));
        let two = [json!({"method": "GET", "url": "http://a:1/"}), json!({"method": "GET", "url": "http://b:1/"})];
        assert!(connector(&two, vec![vec![], vec![]], None).err().unwrap().0.contains("one server"));
    }

    #[test]
    fn a_body_found_right_is_not_decoded_again_and_a_wrong_one_says_why() {
        let checks = check::decode(&[json!([["id", 7]])]).unwrap().remove(0);
        let mut verified = Vec::new();
        assert_eq!(judge(&checks, &mut verified, br#"{"id": 7}"#), None);
        assert_eq!(verified, br#"{"id": 7}"#);
        assert_eq!(judge(&checks, &mut verified, br#"{"id": 8}"#).unwrap(), "id: got 8, want 7");
        assert!(judge(&checks, &mut verified, b"<html>").unwrap().starts_with("the body is not JSON"));
        assert_eq!(judge(&[], &mut Vec::new(), b"<html>"), None);
    }
}
