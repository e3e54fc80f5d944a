//! What each operation computes: the reference semantics of `src/rpcarena/protocol/semantics.py`.

use crate::proto::{AverageReply, DoubleMsg, Empty, HelloReply, HelloRequest, Numbers, RandRequest, VectorPair, Word};

const LCG_MULTIPLIER: u32 = 1664525;
const LCG_INCREMENT: u32 = 1013904223;

/// Every `Echo*` operation returns its argument unchanged.
pub fn echo<T>(message: T) -> T {
    message
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

/// Numerical Recipes' LCG over u32, each state read as an i32.
pub fn rand_nums(request: RandRequest) -> Numbers {
    let mut state = request.seed;
    let count = usize::try_from(request.count).unwrap_or(0);
    let values = (0..count)
        .map(|_| {
            state = state.wrapping_mul(LCG_MULTIPLIER).wrapping_add(LCG_INCREMENT);
            state as i32
        })
        .collect();
    Numbers { values }
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
