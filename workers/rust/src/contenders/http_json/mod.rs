//! The HTTP/JSON mapping shared by the REST contenders: `POST /arena/{Method}` with the request
//! in canonical JSON. `dispatch` is the framework-independent server core (serde types); `client`
//! is the hyper client every http-json contender uses for `drive`, over a `route` per operation;
//! `h1` is rpcarena's own lean HTTP/1.1 client (`rust-h1`), a load generator on the same routes.
//! `predictions` is the predictions seed's REST twin, `GET /predictions/{id_client}`; `user` a
//! user's method (`rpcarena run --proto`), `POST /package.Service/Method` in proto JSON.

pub mod client;
pub mod dispatch;
pub mod h1;
pub mod predictions;
pub mod route;
pub mod user;

/// The path prefix of every operation.
pub const PREFIX: &str = "/arena/";
pub const JSON: &str = "application/json";
