//! The rpcarena Rust worker as a library: contenders, `serve` and `drive` (worker contract v1).

pub mod logic;
pub mod methods;
pub mod proto;
