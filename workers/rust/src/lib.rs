//! The rpcarena Rust worker as a library: contenders, `serve` and `drive` (worker contract v1).

pub mod cli;
pub mod contenders;
pub mod drive;
pub mod limits;
pub mod logic;
pub mod methods;
pub mod predictions;
pub mod proto;
pub mod runtime;
pub mod serve;
pub mod userschema;
