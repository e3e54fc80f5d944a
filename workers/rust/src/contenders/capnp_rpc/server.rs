//! The capnp-rust server: arena.Arena's unary rpcs as one capability, bootstrapped on every
//! connection, on a thread of its own (capnp-rpc is single-threaded: a LocalSet, as its examples).

use super::arena_capnp::arena;
use super::convert::Capnp;
use super::throttle::{Owed, Throttled};
use super::vat::network;
use crate::contenders::{ServerOptions, Shutdown};
use crate::drive::call::BoxFut;
use crate::limits::{idle_timeout, Idle};
use crate::methods::{op, Method};
use capnp::capability::{Params, Rc, Results};
use capnp::dynamic_value;
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
    loop {
        let (stream, _) = listener.accept().await?;
        stream.set_nodelay(true)?;
        // One Arena a connection: its calls answer within what that connection owes (`throttle`).
        let owed = std::rc::Rc::new(Owed::default());
        let arena: arena::Client = capnp_rpc::new_client(Arena { owed: owed.clone() });
        let stream = Idle::new(Throttled::new(stream, owed), idle);
        let system = RpcSystem::new(network(stream, Side::Server), Some(arena.client));
        tokio::task::spawn_local(system); // ends with its connection: closed, idle, or an oversized message
    }
}

/// arena.Arena: each method reads its request out of the message, answers it with `logic` (as
/// every contender does), and writes the reply into the results, owed to its connection until written.
struct Arena {
    owed: std::rc::Rc<Owed>,
}

/// One call: a refusal (a count over the cap) is the caller's `failed` exception, naming the cap.
fn answer<M: Method>(
    owed: &Owed,
    params: Params<<M::Req as Capnp>::Owned>,
    mut results: Results<<M::Resp as Capnp>::Owned>,
) -> Result<(), capnp::Error>
where
    M::Req: Capnp,
    M::Resp: Capnp,
    for<'a> <<M::Resp as Capnp>::Owned as capnp::traits::Owned>::Builder<'a>: Into<dynamic_value::Builder<'a>>,
{
    let request = M::Req::read(params.get()?)?;
    let reply = M::respond(request).map_err(|refused| capnp::Error::failed(refused.0))?;
    reply.write(results.get())?;
    owed.owe(bytes_of(results.get().into())?);
    Ok(())
}

/// A reply's bytes in its message: its struct and all it points to (a list of a million int32 is
/// one step, not a million).
fn bytes_of(reply: dynamic_value::Builder<'_>) -> capnp::Result<usize> {
    match reply {
        dynamic_value::Builder::Struct(reply) => Ok(reply.into_reader().total_size()?.word_count as usize * 8),
        _ => Ok(0),
    }
}

macro_rules! server_methods {
    ($($name:ident $snake:ident $req:ty => $resp:ty = $logic:path;)*) => {
        impl arena::Server for Arena {$(
            fn $snake(
                self: Rc<Self>,
                params: Params<<$req as Capnp>::Owned>,
                results: Results<<$resp as Capnp>::Owned>,
            ) -> impl Future<Output = Result<(), capnp::Error>> + 'static {
                let owed = self.owed.clone();
                async move {
                    owed.room().await;
                    answer::<op::$name>(&owed, params, results)
                }
            }
        )*}
    };
}

use crate::proto::large_data::*;
use crate::proto::*;
crate::for_each_unary_method!(server_methods);

#[cfg(test)]
mod tests {
    use super::*;
    use capnp_rpc::rpc_capnp::message;
    use tokio::io::AsyncWriteExt;

    const GET_RAND_NUMS: u16 = 12; // its ordinal in arena.capnp

    /// A bootstrap, then `calls` GetRandNums calls of 100 numbers on it, each a ~100-byte message
    /// asking for a 400-byte reply, as a peer pipelines them.
    fn pipelined(calls: u32) -> Vec<u8> {
        let mut out = Vec::new();
        let mut bootstrap = capnp::message::Builder::new_default();
        bootstrap.init_root::<message::Builder>().init_bootstrap().set_question_id(0);
        capnp::serialize::write_message(&mut out, &bootstrap).unwrap();
        for id in 1..=calls {
            let mut msg = capnp::message::Builder::new_default();
            let mut call = msg.init_root::<message::Builder>().init_call();
            call.set_question_id(id);
            call.set_interface_id(<arena::Client as capnp::traits::HasTypeId>::TYPE_ID);
            call.set_method_id(GET_RAND_NUMS);
            call.reborrow().init_target().init_promised_answer().set_question_id(0);
            let mut request = call.init_params().init_content().init_as::<super::super::arena_capnp::rand_request::Builder>();
            request.set_count(100);
            request.set_seed(id);
            capnp::serialize::write_message(&mut out, &msg).unwrap();
        }
        out
    }

    /// The server owes at most 4 MiB of replies (and what the sockets hold) to a peer that reads
    /// none: it reads no more of its calls, so 30 MB of them (120 MB of replies) cannot be sent.
    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn a_peer_that_reads_no_reply_has_no_more_calls_read() {
        let listener = crate::serve::bind("127.0.0.1", 0).await.unwrap();
        let addr = listener.local_addr().unwrap();
        let (_stop, stopped) = oneshot::channel::<()>();
        tokio::spawn(serve(listener, ServerOptions::default(), Box::pin(async move { drop(stopped.await) })));
        let calls = pipelined(300_000);
        let mut peer = tokio::net::TcpStream::connect(addr).await.unwrap();
        let sent = tokio::time::timeout(Duration::from_secs(5), peer.write_all(&calls)).await;
        assert!(sent.is_err(), "the server read all {} bytes of calls whose replies it could not write", calls.len());
    }
}
