//! The reply modes of served.json, answered as src/rpcarena/userschema/replies.py answers them:
//! echo (the request's encoding read as the reply type: fields the reply lacks are dropped; a
//! method of one type answers the request itself), file (the reply paired with that request,
//! looked up by its encoding: prost's with maps as BTreeMaps is deterministic; a
//! google.protobuf.Struct's fields are a HashMap, whose order is not, so a request missed by its
//! bytes is then looked for by equality) and size (the one reply, whatever the request).

use super::UserRpc;
use prost::Message;
use serde::de::DeserializeOwned;
use serde_json::Value;
use std::any::Any;
use std::collections::HashMap;

pub enum Responder<M: UserRpc> {
    Echo,
    File(HashMap<Vec<u8>, M::Resp>, Vec<(M::Req, M::Resp)>),
    Size(M::Resp),
}

impl<M: UserRpc> Responder<M> {
    /// The answers of `mode` from `pairs` ([request, reply] in proto JSON).
    pub fn new(mode: &str, pairs: &[(Value, Value)]) -> Result<Self, String> {
        match mode {
            "echo" => Ok(Responder::Echo),
            "size" => {
                let (_, reply) = pairs.first().ok_or_else(|| format!("reply {mode:?} needs a [request, reply] pair"))?;
                Ok(Responder::Size(parse(reply, "the sized reply")?))
            }
            "file" => {
                let parsed = pairs.iter().enumerate().map(|(i, (request, reply))| {
                    Ok((parse(request, &format!("pair {} request", i + 1))?, parse(reply, &format!("pair {} reply", i + 1))?))
                });
                let parsed: Vec<(M::Req, M::Resp)> = parsed.collect::<Result<_, String>>()?;
                let table = parsed.iter().map(|(request, reply)| (request.encode_to_vec(), reply.clone())).collect();
                Ok(Responder::File(table, parsed))
            }
            _ => Err(format!("reply {mode:?}: use echo, file or size")),
        }
    }

    pub fn answer(&self, request: M::Req) -> Result<M::Resp, String> {
        match self {
            Responder::Echo => echoed::<M>(request),
            Responder::Size(reply) => Ok(reply.clone()),
            Responder::File(table, pairs) => table
                .get(&request.encode_to_vec())
                .or_else(|| pairs.iter().find(|(sample, _)| *sample == request).map(|(_, reply)| reply))
                .cloned()
                .ok_or_else(|| "a request that is none of the run's samples".into()),
        }
    }
}

fn echoed<M: UserRpc>(request: M::Req) -> Result<M::Resp, String> {
    match (Box::new(request) as Box<dyn Any>).downcast::<M::Resp>() {
        Ok(same) => Ok(*same),
        Err(other) => {
            let request = other.downcast::<M::Req>().expect("the request's own type");
            M::Resp::decode(request.encode_to_vec().as_slice()).map_err(|e| format!("the request does not read as the reply: {e}"))
        }
    }
}

fn parse<T: DeserializeOwned>(value: &Value, what: &str) -> Result<T, String> {
    T::deserialize(value).map_err(|e| format!("{what}: {e}"))
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;
    use crate::proto::{HelloReply, HelloRequest, Word};
    use serde_json::json;

    /// A user's method `$name` over types of every build (arena.proto's), as a variant's
    /// generated table has them over its own.
    macro_rules! user_method {
        ($name:ident: $req:ty => $resp:ty, $streams:ident) => {
            pub struct $name;
            impl crate::methods::Rpc for $name {
                const NAME: &'static str = stringify!($name);
                type Req = $req;
                type Resp = $resp;
            }
            impl crate::userschema::UserRpc for $name {
                const STREAMS: crate::userschema::Streams = crate::userschema::Streams::$streams;
            }
        };
    }
    pub(crate) use user_method;

    user_method!(SayHello: HelloRequest => HelloReply, Neither);
    user_method!(Invert: Word => Word, Neither);

    fn hello(name: &str) -> HelloRequest {
        HelloRequest { name: name.into() }
    }

    fn pairs(items: &[(&str, &str)]) -> Vec<(Value, Value)> {
        items.iter().map(|(q, r)| (json!({"name": q}), json!({"message": r}))).collect()
    }

    #[test]
    fn echo_reads_the_request_as_the_reply_by_field_number() {
        let echo = Responder::<SayHello>::new("echo", &[]).unwrap();
        assert_eq!(echo.answer(hello("ada")).unwrap(), HelloReply { message: "ada".into() });
        let same = Responder::<Invert>::new("echo", &[]).unwrap();
        assert_eq!(same.answer(Word { value: "abc".into() }).unwrap(), Word { value: "abc".into() });
    }

    #[test]
    fn file_answers_each_request_with_its_pair_and_refuses_a_stranger() {
        let file = Responder::<SayHello>::new("file", &pairs(&[("ada", "one"), ("grace", "two")])).unwrap();
        assert_eq!(file.answer(hello("ada")).unwrap().message, "one");
        assert_eq!(file.answer(hello("grace")).unwrap().message, "two");
        assert_eq!(file.answer(hello("edsger")).unwrap_err(), "a request that is none of the run's samples");
    }

    #[test]
    fn size_answers_the_one_reply_whatever_the_request() {
        let size = Responder::<SayHello>::new("size", &pairs(&[("ada", "rrrr"), ("grace", "rrrr")])).unwrap();
        for name in ["ada", "someone else"] {
            assert_eq!(size.answer(hello(name)).unwrap().message, "rrrr");
        }
    }

    #[test]
    fn bad_modes_and_pairs_say_what_is_wrong() {
        let error = |mode: &str, pairs: &[(Value, Value)]| Responder::<SayHello>::new(mode, pairs).err().unwrap();
        assert_eq!(error("loud", &[]), "reply \"loud\": use echo, file or size");
        assert_eq!(error("size", &[]), "reply \"size\" needs a [request, reply] pair");
        assert!(error("file", &[(json!({"name": 7}), json!({}))]).starts_with("pair 1 request: "));
    }
}
