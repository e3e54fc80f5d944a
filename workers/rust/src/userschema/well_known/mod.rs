//! The well-known types (google/protobuf/*.proto) a user's schema uses, as its generated code
//! names them (`extern_path` in build/user_schema.rs): pbjson-types' messages, whose serde impls
//! follow the proto3 JSON mapping (Duration as "1.5s", Struct as an object, wrappers as their plain
//! value), except three written here as the mapping says: `Timestamp` ("Z", not "+00:00"),
//! `FieldMask` (one string of lowerCamelCase paths, "a.fooBar,c") and `Any` (its message's JSON
//! with "@type"), which pbjson leaves to its generic code.

pub use pbjson_types::*;

mod any;
mod field_mask;
mod timestamp;

pub use any::{well_known_type, Any, AnyType};
pub use field_mask::FieldMask;
pub use timestamp::Timestamp;
