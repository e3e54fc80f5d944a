//! The capnp-rust server: arena.Arena's unary rpcs as one capability, bootstrapped on every
//! connection, on a thread of its own (capnp-rpc is single-threaded: a LocalSet, as its examples).

use super::arena_capnp::arena;
use super::convert::Capnp;
use super::vat::network;
use crate::contenders::{ServerOptions, Shutdown};
use crate::drive::call::BoxFut;
use crate::limits::{idle_timeout, Idle};
use crate::methods::{op, Method};
use capnp::capability::{Params, Rc, Results};
use capnp_rpc::rpc_twoparty_capnp::Side;
use capnp_rpc::RpcSystem;
use std::future::Future;
use std::io;
use std::time::Duration;
use tokio::net::TcpListener;
use tokio::sync::oneshot;

pub(super) fn serve(listener: TcpListener, _: ServerOptions, shutdown: Shutdown) -> BoxFut<'static, io::Result<()>> {
    Box::pin(async move {
        let listener = listener.into_std()?;
        let (stop, stopped) = oneshot::channel::<()>();
        let (done, finished) = oneshot::channel();
        std::thread::Builder::new().name("capnp-vat".into()).spawn(move || {
            let _ = done.send(run(listener, stopped));
        })?;
        tokio::select! {
            result = finished => result.unwrap_or_else(|_| Err(io::Error::other("the capnp server's thread died"))),
            _ = shutdown => {
                let _ = stop.send(());
                Ok(())
            }
        }
    })
}

/// The server's thread: a current-thread runtime, a LocalSet, one RpcSystem per connection.
fn run(listener: std::net::TcpListener, stopped: oneshot::Receiver<()>) -> io::Result<()> {
    let runtime = tokio::runtime::Builder::new_current_thread().enable_all().build()?;
    tokio::task::LocalSet::new().block_on(&runtime, async move {
        let listener = TcpListener::from_std(listener)?;
        tokio::select! {
            result = accept_loop(listener, idle_timeout()) => result,
            _ = stopped => Ok(()),
        }
    })
}

async fn accept_loop(listener: TcpListener, idle: Duration) -> io::Result<()> {
    let arena: arena::Client = capnp_rpc::new_client(Arena);
    loop {
        let (stream, _) = listener.accept().await?;
        stream.set_nodelay(true)?;
        let system = RpcSystem::new(network(Idle::new(stream, idle), Side::Server), Some(arena.clone().client));
        tokio::task::spawn_local(system); // ends with its connection: closed, idle, or an oversized message
    }
}

/// arena.Arena: each method reads its request out of the message, answers it with `logic` (as
/// every contender does), and writes the reply into the results.
struct Arena;

/// One call: a refusal (a count over the cap) is the caller's `failed` exception, naming the cap.
fn answer<M: Method>(params: Params<<M::Req as Capnp>::Owned>, mut results: Results<<M::Resp as Capnp>::Owned>) -> Result<(), capnp::Error>
where
    M::Req: Capnp,
    M::Resp: Capnp,
{
    let request = M::Req::read(params.get()?)?;
    let reply = M::respond(request).map_err(|refused| capnp::Error::failed(refused.0))?;
    reply.write(results.get())
}

macro_rules! server_methods {
    ($($name:ident $snake:ident $req:ty => $resp:ty = $logic:path;)*) => {
        impl arena::Server for Arena {$(
            fn $snake(
                self: Rc<Self>,
                params: Params<<$req as Capnp>::Owned>,
                results: Results<<$resp as Capnp>::Owned>,
            ) -> impl Future<Output = Result<(), capnp::Error>> + 'static {
                std::future::ready(answer::<op::$name>(params, results))
            }
        )*}
    };
}

use crate::proto::large_data::*;
use crate::proto::*;
crate::for_each_unary_method!(server_methods);
