//! The reply modes of served.json, answered as src/rpcarena/userschema/replies.py answers them:
//! echo (the request's encoding read as the reply type: fields the reply lacks are dropped; a
//! method of one type answers the request itself), file (the reply paired with that request,
//! looked up by its encoding: prost's with maps as BTreeMaps is deterministic) and size (the one
//! reply, whatever the request).

use super::UserRpc;
use prost::Message;
use serde::de::DeserializeOwned;
use serde_json::Value;
use std::any::Any;
use std::collections::HashMap;

pub enum Responder<M: UserRpc> {
    Echo,
    File(HashMap<Vec<u8>, M::Resp>),
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
                let table = pairs.iter().enumerate().map(|(i, (request, reply))| {
                    let request: M::Req = parse(request, &format!("pair {} request", i + 1))?;
                    Ok((request.encode_to_vec(), parse(reply, &format!("pair {} reply", i + 1))?))
                });
                Ok(Responder::File(table.collect::<Result<_, String>>()?))
            }
            _ => Err(format!("reply {mode:?}: use echo, file or size")),
        }
    }

    pub fn answer(&self, request: M::Req) -> Result<M::Resp, String> {
        match self {
            Responder::Echo => echoed::<M>(request),
            Responder::Size(reply) => Ok(reply.clone()),
            Responder::File(table) => {
                table.get(&request.encode_to_vec()).cloned().ok_or_else(|| "a request that is none of the run's samples".into())
            }
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
