# proto/arena.proto's messages and its unary rpcs, in Cap'n Proto: what capnp-rust serves and
# calls (src/contenders/capnp_rpc). Each message is a struct of the same fields in the same order;
# each rpc a method whose params and results are that struct itself (`method @n Req -> Resp`).
# A proto3 field's default reads back the same from an unset struct field (0, false, "", empty).
#
# LargeData128..8192 (N distinct int32 fields f1..fN in arena.proto) are one struct here, a list of
# int32 whose i-th value is field f{i+1}: a Cap'n Proto user writes N values of one type as a list
# (read and written by index, in place), not as N named fields, and 16,256 named fields would make
# some 20 MB of generated Rust. A list shorter than N reads its missing fields as 0, and values past
# N are ignored, as protobuf reads a missing field and skips an unknown one.
# InvertStream has no method: Cap'n Proto RPC has no bidirectional message stream.
@0xa12904c4a1d2df9c;

struct Empty {}
struct BoolMsg { value @0 :Bool; }
struct Int32Msg { value @0 :Int32; }
struct Int64Msg { value @0 :Int64; }
struct StringMsg { value @0 :Text; }
struct Int32List { values @0 :List(Int32); }
struct DoubleList { values @0 :List(Float64); }
struct StringList { values @0 :List(Text); }

struct Person {
  name @0 :Text;
  age @1 :Int32;
  weight @2 :Float64;
}

struct Vector3 {
  x @0 :Float64;
  y @1 :Float64;
  z @2 :Float64;
}

struct VectorPair {
  a @0 :Vector3;  # unset reads as a message not sent, as proto3's optional message
  b @1 :Vector3;
}

struct DoubleMsg { value @0 :Float64; }
struct HelloRequest { name @0 :Text; }
struct HelloReply { message @0 :Text; }
struct Numbers { values @0 :List(Int32); }
struct AverageReply { value @0 :Float64; }

struct RandRequest {
  count @0 :Int32;
  seed @1 :UInt32;
}

struct Word { value @0 :Text; }

struct Item {
  id @0 :Int64;
  name @1 :Text;
  price @2 :Float64;
  active @3 :Bool;
}

struct ItemList { items @0 :List(Item); }

struct LargeData { fields @0 :List(Int32); }

interface Arena {
  void @0 Empty -> Empty;
  echoBool @1 BoolMsg -> BoolMsg;
  echoInt32 @2 Int32Msg -> Int32Msg;
  echoInt64 @3 Int64Msg -> Int64Msg;
  echoString @4 StringMsg -> StringMsg;
  echoInts @5 Int32List -> Int32List;
  echoFloats @6 DoubleList -> DoubleList;
  echoStrings @7 StringList -> StringList;
  echoPerson @8 Person -> Person;
  distance @9 VectorPair -> DoubleMsg;
  sayHello @10 HelloRequest -> HelloReply;
  average @11 Numbers -> AverageReply;
  getRandNums @12 RandRequest -> Numbers;
  invert @13 Word -> Word;
  echoItems @14 ItemList -> ItemList;
  echoLargeData128 @15 LargeData -> LargeData;
  echoLargeData256 @16 LargeData -> LargeData;
  echoLargeData512 @17 LargeData -> LargeData;
  echoLargeData1024 @18 LargeData -> LargeData;
  echoLargeData2048 @19 LargeData -> LargeData;
  echoLargeData4096 @20 LargeData -> LargeData;
  echoLargeData8192 @21 LargeData -> LargeData;
  checksumLargeData128 @22 LargeData -> Int32Msg;
  checksumLargeData8192 @23 LargeData -> Int32Msg;
}
