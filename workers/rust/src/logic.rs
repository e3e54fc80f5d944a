//! What each operation computes: the reference semantics of `src/rpcarena/protocol/semantics.py`.

use crate::proto::large_data::LargeData;
use crate::proto::{AverageReply, DoubleMsg, Empty, HelloReply, HelloRequest, Int32Msg, Numbers, RandRequest, VectorPair, Word};

const LCG_MULTIPLIER: u32 = 1664525;
const LCG_INCREMENT: u32 = 1013904223;

/// The cap on `GetRandNums`' count and on any count a peer announces, the same in every language
/// (`MAX_COUNT` in `src/rpcarena/protocol/semantics.py`): at 2^31 values one call would cost 8 GiB.
pub const MAX_COUNT: i64 = 1_000_000;

/// A request an operation will not run: the caller's error, answered as gRPC INVALID_ARGUMENT or
/// HTTP 400, with this message.
#[derive(Debug, Clone, PartialEq)]
pub struct Refused(pub String);

/// Refuses a count over [`MAX_COUNT`], before anything is allocated for it.
pub fn check_count(what: &str, count: i64) -> Result<(), Refused> {
    if count > MAX_COUNT {
        return Err(Refused(format!("{what} {count} is over the cap of {MAX_COUNT}: ask for fewer")));
    }
    Ok(())
}

/// Every `Echo*` operation returns its argument unchanged.
pub fn echo<T>(message: T) -> T {
    message
}

/// The int32 sum of every field, wrapping (two's complement): a reply computed from every value,
/// so a codec that decodes lazily does the work an eager one does (hprpc2016's LargeData).
pub fn checksum<const N: usize>(data: LargeData<N>) -> Int32Msg {
    Int32Msg { value: data.fields.iter().fold(0i32, |sum, &v| sum.wrapping_add(v)) }
}

pub fn void(_: Empty) -> Empty {
    Empty {}
}

pub fn say_hello(request: HelloRequest) -> HelloReply {
    HelloReply { message: format!("Hello {}", request.name) }
}

/// `double(sum as int64) / count`, and 0.0 for no values.
pub fn average(numbers: Numbers) -> AverageReply {
    let values = &numbers.values;
    let sum: i64 = values.iter().map(|&v| i64::from(v)).sum();
    let value = if values.is_empty() { 0.0 } else { sum as f64 / values.len() as f64 };
    AverageReply { value }
}

/// Numerical Recipes' LCG over u32, each state read as an i32; a count over [`MAX_COUNT`] is refused.
pub fn rand_nums(request: RandRequest) -> Result<Numbers, Refused> {
    check_count("GetRandNums count", i64::from(request.count))?;
    let mut state = request.seed;
    let count = usize::try_from(request.count).unwrap_or(0);
    let values = (0..count)
        .map(|_| {
            state = state.wrapping_mul(LCG_MULTIPLIER).wrapping_add(LCG_INCREMENT);
            state as i32
        })
        .collect();
    Ok(Numbers { values })
}

/// Reverses by Unicode code points.
pub fn invert(word: Word) -> Word {
    Word { value: word.value.chars().rev().collect() }
}

/// Euclidean distance summed left to right as dx*dx + dy*dy + dz*dz (no fused multiply-add).
pub fn distance(pair: VectorPair) -> DoubleMsg {
    let (a, b) = (pair.a.unwrap_or_default(), pair.b.unwrap_or_default());
    let (dx, dy, dz) = (a.x - b.x, a.y - b.y, a.z - b.z);
    DoubleMsg { value: (dx * dx + dy * dy + dz * dz).sqrt() }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rand_nums_is_capped_at_one_million_values() {
        assert_eq!(MAX_COUNT, 1_000_000);
        let at_cap = rand_nums(RandRequest { count: 1_000_000, seed: 7 }).expect("the cap itself is served");
        assert_eq!(at_cap.values.len(), 1_000_000);
        let over = rand_nums(RandRequest { count: 1_000_001, seed: 7 }).expect_err("over the cap");
        assert!(over.0.contains("over the cap of 1000000"), "{}", over.0);
        assert_eq!(rand_nums(RandRequest { count: -1, seed: 7 }), Ok(Numbers { values: vec![] }));
    }
}
