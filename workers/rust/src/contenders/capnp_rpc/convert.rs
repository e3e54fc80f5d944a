//! Each arena message written into its Cap'n Proto struct and read back out of it, field by field
//! through the generated accessors, as a Cap'n Proto user moves the data of their own types in and
//! out of a message. The prost types are the application's values here (what every other
//! contender's handler and client hold), so one `logic` answers every mechanism.

use super::arena_capnp as schema;
use crate::proto::large_data::LargeData;
use crate::proto::*;
use capnp::capability::FromTypelessPipeline;
use capnp::traits::{Owned, Pipelined};

/// An arena message and its Cap'n Proto struct (`Owned`), which a call's params and results are.
pub trait Capnp: Sized {
    type Owned: Owned + Pipelined<Pipeline: FromTypelessPipeline> + Unpin + 'static;
    /// Sets every field of `builder` (a fresh struct: unset fields read as their defaults).
    fn write(&self, builder: <Self::Owned as Owned>::Builder<'_>) -> capnp::Result<()>;
    /// Reads every field; a text that is not UTF-8, or a pointer out of the message, is an error.
    fn read(reader: <Self::Owned as Owned>::Reader<'_>) -> capnp::Result<Self>;
}

/// Messages of one scalar field `value`.
macro_rules! scalar {
    ($($message:ident $module:ident;)*) => {$(
        impl Capnp for $message {
            type Owned = schema::$module::Owned;
            fn write(&self, mut b: schema::$module::Builder<'_>) -> capnp::Result<()> {
                b.set_value(self.value);
                Ok(())
            }
            fn read(r: schema::$module::Reader<'_>) -> capnp::Result<Self> {
                Ok($message { value: r.get_value() })
            }
        }
    )*};
}

scalar! {
    BoolMsg bool_msg;
    Int32Msg int32_msg;
    Int64Msg int64_msg;
    DoubleMsg double_msg;
    AverageReply average_reply;
}

/// Messages of one text field.
macro_rules! text {
    ($($message:ident $module:ident $field:ident $set:ident $get:ident;)*) => {$(
        impl Capnp for $message {
            type Owned = schema::$module::Owned;
            fn write(&self, mut b: schema::$module::Builder<'_>) -> capnp::Result<()> {
                b.$set(self.$field.as_str());
                Ok(())
            }
            fn read(r: schema::$module::Reader<'_>) -> capnp::Result<Self> {
                Ok($message { $field: r.$get()?.to_str()?.to_owned() })
            }
        }
    )*};
}

text! {
    StringMsg string_msg value set_value get_value;
    HelloRequest hello_request name set_name get_name;
    HelloReply hello_reply message set_message get_message;
    Word word value set_value get_value;
}

/// Messages of one list of numbers `values`.
macro_rules! numbers {
    ($($message:ident $module:ident;)*) => {$(
        impl Capnp for $message {
            type Owned = schema::$module::Owned;
            fn write(&self, mut b: schema::$module::Builder<'_>) -> capnp::Result<()> {
                // A list of primitives is set from a slice in one copy.
                b.set_values(&self.values[..])
            }
            fn read(r: schema::$module::Reader<'_>) -> capnp::Result<Self> {
                Ok($message { values: r.get_values()?.iter().collect() })
            }
        }
    )*};
}

numbers! {
    Int32List int32_list;
    DoubleList double_list;
    Numbers numbers;
}

impl Capnp for Empty {
    type Owned = schema::empty::Owned;
    fn write(&self, _: schema::empty::Builder<'_>) -> capnp::Result<()> {
        Ok(())
    }
    fn read(_: schema::empty::Reader<'_>) -> capnp::Result<Self> {
        Ok(Empty {})
    }
}

impl Capnp for StringList {
    type Owned = schema::string_list::Owned;
    fn write(&self, b: schema::string_list::Builder<'_>) -> capnp::Result<()> {
        let mut list = b.init_values(self.values.len() as u32);
        for (i, value) in self.values.iter().enumerate() {
            list.set(i as u32, value.as_str());
        }
        Ok(())
    }
    fn read(r: schema::string_list::Reader<'_>) -> capnp::Result<Self> {
        let values = r.get_values()?.iter().map(|t| Ok(t?.to_str()?.to_owned())).collect::<capnp::Result<_>>()?;
        Ok(StringList { values })
    }
}

impl Capnp for Person {
    type Owned = schema::person::Owned;
    fn write(&self, mut b: schema::person::Builder<'_>) -> capnp::Result<()> {
        b.set_name(self.name.as_str());
        b.set_age(self.age);
        b.set_weight(self.weight);
        Ok(())
    }
    fn read(r: schema::person::Reader<'_>) -> capnp::Result<Self> {
        Ok(Person { name: r.get_name()?.to_str()?.to_owned(), age: r.get_age(), weight: r.get_weight() })
    }
}

impl Capnp for Vector3 {
    type Owned = schema::vector3::Owned;
    fn write(&self, mut b: schema::vector3::Builder<'_>) -> capnp::Result<()> {
        b.set_x(self.x);
        b.set_y(self.y);
        b.set_z(self.z);
        Ok(())
    }
    fn read(r: schema::vector3::Reader<'_>) -> capnp::Result<Self> {
        Ok(Vector3 { x: r.get_x(), y: r.get_y(), z: r.get_z() })
    }
}

impl Capnp for VectorPair {
    type Owned = schema::vector_pair::Owned;
    /// A point not sent stays an unset pointer, as proto3 leaves an optional message out.
    fn write(&self, mut b: schema::vector_pair::Builder<'_>) -> capnp::Result<()> {
        if let Some(a) = &self.a {
            a.write(b.reborrow().init_a())?;
        }
        if let Some(point) = &self.b {
            point.write(b.init_b())?;
        }
        Ok(())
    }
    fn read(r: schema::vector_pair::Reader<'_>) -> capnp::Result<Self> {
        let a = if r.has_a() { Some(Vector3::read(r.get_a()?)?) } else { None };
        let b = if r.has_b() { Some(Vector3::read(r.get_b()?)?) } else { None };
        Ok(VectorPair { a, b })
    }
}

impl Capnp for RandRequest {
    type Owned = schema::rand_request::Owned;
    fn write(&self, mut b: schema::rand_request::Builder<'_>) -> capnp::Result<()> {
        b.set_count(self.count);
        b.set_seed(self.seed);
        Ok(())
    }
    fn read(r: schema::rand_request::Reader<'_>) -> capnp::Result<Self> {
        Ok(RandRequest { count: r.get_count(), seed: r.get_seed() })
    }
}

impl Capnp for Item {
    type Owned = schema::item::Owned;
    fn write(&self, mut b: schema::item::Builder<'_>) -> capnp::Result<()> {
        b.set_id(self.id);
        b.set_name(self.name.as_str());
        b.set_price(self.price);
        b.set_active(self.active);
        Ok(())
    }
    fn read(r: schema::item::Reader<'_>) -> capnp::Result<Self> {
        Ok(Item { id: r.get_id(), name: r.get_name()?.to_str()?.to_owned(), price: r.get_price(), active: r.get_active() })
    }
}

impl Capnp for ItemList {
    type Owned = schema::item_list::Owned;
    fn write(&self, b: schema::item_list::Builder<'_>) -> capnp::Result<()> {
        let mut list = b.init_items(self.items.len() as u32);
        for (i, item) in self.items.iter().enumerate() {
            item.write(list.reborrow().get(i as u32))?;
        }
        Ok(())
    }
    fn read(r: schema::item_list::Reader<'_>) -> capnp::Result<Self> {
        Ok(ItemList { items: r.get_items()?.iter().map(Item::read).collect::<capnp::Result<_>>()? })
    }
}

/// LargeData128..8192: the N fields as one list of int32, written from the slice in one copy and read
/// by index; a shorter list's missing fields read as 0 and values past N are ignored, as protobuf
/// reads a missing field and skips an unknown one (capnp/arena.capnp says why a list).
impl<const N: usize> Capnp for LargeData<N> {
    type Owned = schema::large_data::Owned;
    fn write(&self, mut b: schema::large_data::Builder<'_>) -> capnp::Result<()> {
        b.set_fields(&self.fields[..])
    }
    fn read(r: schema::large_data::Reader<'_>) -> capnp::Result<Self> {
        let mut data = LargeData::<N>::default();
        for (field, value) in data.fields.iter_mut().zip(r.get_fields()?.iter()) {
            *field = value;
        }
        Ok(data)
    }
}
