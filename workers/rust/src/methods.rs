//! The operations of `arena.Arena` as types, so transports can be written once, generically.
//!
//! `for_each_unary_method!` is the single table of unary operations; every place that needs the
//! whole list (the tonic service, runtime dispatch by name) expands it. `InvertStream` is the one
//! streaming operation and is handled by the gRPC contender alone.

pub use crate::logic::Refused;
use crate::proto::*;
use serde::{de::DeserializeOwned, Serialize};

/// A message type usable by every transport: protobuf, canonical JSON, comparison.
pub trait Msg: prost::Message + Default + Clone + PartialEq + Serialize + DeserializeOwned + Send + Sync + 'static {}
impl<T> Msg for T where T: prost::Message + Default + Clone + PartialEq + Serialize + DeserializeOwned + Send + Sync + 'static {}

/// One operation as a client sees it: its service and name on the wire, its message types, and
/// how closely a reply's floating-point fields must match.
pub trait Rpc: Send + Sync + 'static {
    const SERVICE: &'static str = "arena.Arena";
    const NAME: &'static str;
    /// Relative tolerance of float fields: 1e-9 for doubles (the contract), 1e-6 for floats.
    const TOLERANCE: f64 = crate::drive::verify::DOUBLE_TOLERANCE;
    type Req: Msg;
    type Resp: Msg;
}

/// An operation of `arena.Arena`: an [`Rpc`] with pure semantics any server can compute, or a
/// refusal (a count over the cap) each transport answers as its own client error.
pub trait Method: Rpc {
    fn respond(request: Self::Req) -> Result<Self::Resp, Refused>;
}

/// What a function of `logic` returns: its reply, or a `Result` when the operation can refuse.
pub trait Answer<R> {
    fn answer(self) -> Result<R, Refused>;
}

impl<R: Msg> Answer<R> for R {
    fn answer(self) -> Result<R, Refused> {
        Ok(self)
    }
}

impl<R: Msg> Answer<R> for Result<R, Refused> {
    fn answer(self) -> Result<R, Refused> {
        self
    }
}

/// Calls `$callback!` with one line per unary operation: `Name snake_name Req => Resp = logic;`.
#[macro_export]
macro_rules! for_each_unary_method {
    ($callback:ident) => {
        $callback! {
            Void void Empty => Empty = $crate::logic::void;
            EchoBool echo_bool BoolMsg => BoolMsg = $crate::logic::echo;
            EchoInt32 echo_int32 Int32Msg => Int32Msg = $crate::logic::echo;
            EchoInt64 echo_int64 Int64Msg => Int64Msg = $crate::logic::echo;
            EchoString echo_string StringMsg => StringMsg = $crate::logic::echo;
            EchoInts echo_ints Int32List => Int32List = $crate::logic::echo;
            EchoFloats echo_floats DoubleList => DoubleList = $crate::logic::echo;
            EchoStrings echo_strings StringList => StringList = $crate::logic::echo;
            EchoPerson echo_person Person => Person = $crate::logic::echo;
            Distance distance VectorPair => DoubleMsg = $crate::logic::distance;
            SayHello say_hello HelloRequest => HelloReply = $crate::logic::say_hello;
            Average average Numbers => AverageReply = $crate::logic::average;
            GetRandNums get_rand_nums RandRequest => Numbers = $crate::logic::rand_nums;
            Invert invert Word => Word = $crate::logic::invert;
            EchoItems echo_items ItemList => ItemList = $crate::logic::echo;
            EchoLargeData128 echo_large_data128 LargeData128 => LargeData128 = $crate::logic::echo;
            EchoLargeData256 echo_large_data256 LargeData256 => LargeData256 = $crate::logic::echo;
            EchoLargeData512 echo_large_data512 LargeData512 => LargeData512 = $crate::logic::echo;
            EchoLargeData1024 echo_large_data1024 LargeData1024 => LargeData1024 = $crate::logic::echo;
            EchoLargeData2048 echo_large_data2048 LargeData2048 => LargeData2048 = $crate::logic::echo;
            EchoLargeData4096 echo_large_data4096 LargeData4096 => LargeData4096 = $crate::logic::echo;
            EchoLargeData8192 echo_large_data8192 LargeData8192 => LargeData8192 = $crate::logic::echo;
            ChecksumLargeData128 checksum_large_data128 LargeData128 => Int32Msg = $crate::logic::checksum;
            ChecksumLargeData8192 checksum_large_data8192 LargeData8192 => Int32Msg = $crate::logic::checksum;
        }
    };
}

/// Marker types, one per unary operation (`op::Invert`, ...).
pub mod op {
    use super::*;
    use crate::proto::large_data::*;

    macro_rules! markers {
        ($($name:ident $snake:ident $req:ty => $resp:ty = $logic:path;)*) => {$(
            pub struct $name;
            impl Rpc for $name {
                const NAME: &'static str = stringify!($name);
                type Req = $req;
                type Resp = $resp;
            }
            impl Method for $name {
                fn respond(request: $req) -> Result<$resp, Refused> {
                    Answer::<$resp>::answer($logic(request))
                }
            }
        )*};
    }
    crate::for_each_unary_method!(markers);

    /// The streaming twin of `Invert`: one Word per Word.
    pub struct InvertStream;
    impl Rpc for InvertStream {
        const NAME: &'static str = "InvertStream";
        type Req = Word;
        type Resp = Word;
    }
    impl Method for InvertStream {
        fn respond(request: Word) -> Result<Word, Refused> {
            Ok(crate::logic::invert(request))
        }
    }
}

/// Generic code to run for the operation named at run time (see [`visit`]).
pub trait MethodVisitor {
    type Out;
    fn visit<M: Method>(self) -> Self::Out;
}

macro_rules! dispatch {
    ($($name:ident $snake:ident $req:ty => $resp:ty = $logic:path;)*) => {
        /// Runs `visitor` with the unary operation called `name`; `None` for an unknown name.
        pub fn visit<V: MethodVisitor>(name: &str, visitor: V) -> Option<V::Out> {
            match name {
                $(stringify!($name) => Some(visitor.visit::<op::$name>()),)*
                _ => None,
            }
        }

        /// Names of all unary operations, in schema order.
        pub const UNARY: &[&str] = &[$(stringify!($name)),*];
    };
}
for_each_unary_method!(dispatch);

#[cfg(test)]
mod tests {
    use super::*;

    struct Name;
    impl MethodVisitor for Name {
        type Out = &'static str;
        fn visit<M: Method>(self) -> &'static str {
            M::NAME
        }
    }

    #[test]
    fn every_unary_name_dispatches_to_itself() {
        for name in UNARY {
            assert_eq!(visit(name, Name), Some(*name));
        }
        assert_eq!(visit("InvertStream", Name), None);
        assert_eq!(UNARY.len(), 24);
    }
}
