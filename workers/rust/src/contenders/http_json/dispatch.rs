//! Server side of the HTTP/JSON mapping, independent of the web framework: decode the request
//! with serde into the operation's type, compute, encode the response.

use crate::methods::{self, Method, MethodVisitor};

/// What the framework sends back.
#[derive(Debug, PartialEq)]
pub enum Reply {
    /// 200 with this canonical-JSON body.
    Ok(Vec<u8>),
    /// 400: the request does not decode as the operation's request, or the operation refuses it.
    BadRequest(String),
    /// 404: no such operation (or route).
    NotFound,
    /// 500: the server's backing store failed.
    Failed(String),
}

impl Reply {
    pub fn status(&self) -> u16 {
        match self {
            Reply::Ok(_) => 200,
            Reply::BadRequest(_) => 400,
            Reply::NotFound => 404,
            Reply::Failed(_) => 500,
        }
    }

    pub fn into_body(self) -> Vec<u8> {
        match self {
            Reply::Ok(body) => body,
            Reply::BadRequest(why) | Reply::Failed(why) => why.into_bytes(),
            Reply::NotFound => b"not found".to_vec(),
        }
    }
}

pub fn respond(method: &str, body: &[u8]) -> Reply {
    methods::visit(method, Decode { body }).unwrap_or(Reply::NotFound)
}

struct Decode<'a> {
    body: &'a [u8],
}

impl MethodVisitor for Decode<'_> {
    type Out = Reply;
    fn visit<M: Method>(self) -> Reply {
        match serde_json::from_slice::<M::Req>(self.body) {
            Ok(request) => match M::respond(request) {
                Ok(reply) => Reply::Ok(serde_json::to_vec(&reply).unwrap_or_default()),
                Err(refused) => Reply::BadRequest(refused.0),
            },
            Err(e) => Reply::BadRequest(format!("request does not decode as {}: {e}", M::NAME)),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn statuses_for_good_bad_and_unknown() {
        assert_eq!(respond("Invert", br#"{"value": "ab"}"#), Reply::Ok(br#"{"value":"ba"}"#.to_vec()));
        assert_eq!(respond("Invert", b"{").status(), 400);
        assert_eq!(respond("Nope", b"{}").status(), 404);
        assert_eq!(respond("InvertStream", b"{}").status(), 404);
    }

    #[test]
    fn a_count_over_the_cap_is_a_bad_request_naming_the_cap() {
        match respond("GetRandNums", br#"{"count": 1000001, "seed": 1}"#) {
            Reply::BadRequest(why) => assert!(why.contains("over the cap of 1000000"), "{why}"),
            other => panic!("1,000,001 values answered {}", other.status()),
        }
    }
}
