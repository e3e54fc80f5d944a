//! The capnp-rust client: arena.Arena's bootstrap capability over one TCP connection per client,
//! or M connections that clients share, many calls in flight on each (a call has its question id).
//!
//! capnp-rpc's connections and clients are `Rc`s, and the drive loop's connections are `Send`:
//! each connector has a vat thread (a current-thread runtime with a LocalSet) that owns its
//! connections, and a call is handed to it and its reply handed back.

use super::arena_capnp::arena;
use super::convert::Capnp;
use super::vat::network;
use crate::drive::call::{connect_tcp, BoxFut, CallError, Conn, Connector, SharedConnector};
use crate::drive::payloads::Payloads;
use crate::drive::spec::{bad, Mode, Spec, SpecError};
use crate::methods::{self, op, Method};
use capnp_rpc::rpc_twoparty_capnp::Side;
use capnp_rpc::RpcSystem;
use std::sync::Arc;
use tokio::sync::{mpsc, oneshot};

pub(super) fn connector(spec: &Spec) -> Result<SharedConnector, SpecError> {
    if spec.user() {
        return Err(bad("capnp-rust does not call a user's schema: Cap'n Proto has no .proto"));
    }
    if spec.mode != Mode::Unary {
        return Err(bad("capnp-rust calls unary methods only: Cap'n Proto RPC has no bidirectional message stream"));
    }
    build(spec).unwrap_or_else(|| Err(bad(format!("unknown method {:?} for capnp-rust", spec.method))))
}

/// The connector of the unary method the spec names, each with its messages' Cap'n Proto structs.
macro_rules! dispatch {
    ($($name:ident $snake:ident $req:ty => $resp:ty = $logic:path;)*) => {
        fn build(spec: &Spec) -> Option<Result<SharedConnector, SpecError>> {
            match spec.method.as_str() {
                $(stringify!($name) => Some(build_for::<op::$name>(spec)),)*
                _ => None,
            }
        }
    };
}
crate::for_each_unary_method!(dispatch);

fn build_for<M: Method>(spec: &Spec) -> Result<SharedConnector, SpecError>
where
    M::Req: Capnp,
    M::Resp: Capnp,
{
    let ordinal = methods::UNARY.iter().position(|name| *name == M::NAME).expect("a unary method");
    let payloads = Arc::new(Payloads::<M>::from_spec(spec)?);
    let vat = Vat::start(payloads.clone(), ordinal as u16).map_err(|e| bad(format!("capnp vat thread: {e}")))?;
    Ok(Arc::new(CapnpConnector { target: spec.target.clone(), vat, payloads, shared: None }))
}

/// A call handed to the vat thread: which payload, and where its reply (or failure) goes.
struct Call<M: Method> {
    index: usize,
    reply: oneshot::Sender<Result<M::Resp, CallError>>,
}

/// A connection handed to the vat thread to open: its calls come on `calls`.
struct Open<M: Method> {
    target: String,
    calls: mpsc::UnboundedReceiver<Call<M>>,
    opened: oneshot::Sender<Result<(), CallError>>,
}

/// The vat thread of a connector: it ends when the connector (every sender) is gone.
struct Vat<M: Method> {
    opens: mpsc::UnboundedSender<Open<M>>,
}

impl<M: Method> Vat<M>
where
    M::Req: Capnp,
    M::Resp: Capnp,
{
    /// `method` is the rpc's ordinal in the schema's interface, its place in `methods::UNARY`.
    fn start(payloads: Arc<Payloads<M>>, method: u16) -> std::io::Result<Self> {
        let (opens, mut incoming) = mpsc::unbounded_channel::<Open<M>>();
        let runtime = tokio::runtime::Builder::new_current_thread().enable_all().build()?;
        std::thread::Builder::new().name("capnp-vat".into()).spawn(move || {
            tokio::task::LocalSet::new().block_on(&runtime, async move {
                while let Some(open) = incoming.recv().await {
                    tokio::task::spawn_local(connection(open, payloads.clone(), method));
                }
            })
        })?;
        Ok(Vat { opens })
    }

    /// A new connection on the vat; its calls go through the returned sender.
    async fn open(&self, target: &str) -> Result<mpsc::UnboundedSender<Call<M>>, CallError> {
        let (calls, receiver) = mpsc::unbounded_channel();
        let (opened, done) = oneshot::channel();
        let open = Open { target: target.to_string(), calls: receiver, opened };
        self.opens.send(open).map_err(|_| CallError::Connection)?;
        done.await.map_err(|_| CallError::Connection)??;
        Ok(calls)
    }
}

/// One connection on the vat thread: its RpcSystem, and each call it is handed made at once (many
/// in flight when clients share it). It ends when its callers are gone, disconnecting.
async fn connection<M: Method>(open: Open<M>, payloads: Arc<Payloads<M>>, method: u16)
where
    M::Req: Capnp,
    M::Resp: Capnp,
{
    let Open { target, mut calls, opened } = open;
    let stream = match connect_tcp(&target).await {
        Ok(stream) => stream,
        Err(e) => {
            let _ = opened.send(Err(e));
            return;
        }
    };
    let mut system = RpcSystem::new(network(stream, Side::Client), None);
    let arena: arena::Client = system.bootstrap(Side::Server);
    let disconnector = system.get_disconnector();
    tokio::task::spawn_local(system);
    let _ = opened.send(Ok(()));
    while let Some(call) = calls.recv().await {
        tokio::task::spawn_local(one_call(arena.clone(), payloads.clone(), method, call));
    }
    let _ = disconnector.await;
}

/// Writes payload `index` into a request, sends it, and reads the reply out of its message.
async fn one_call<M: Method>(arena: arena::Client, payloads: Arc<Payloads<M>>, method: u16, call: Call<M>)
where
    M::Req: Capnp,
    M::Resp: Capnp,
{
    let mut request = arena.client.new_call::<<M::Req as Capnp>::Owned, <M::Resp as Capnp>::Owned>(arena_id(), method, None);
    if payloads.requests[call.index].write(request.get()).is_err() {
        let _ = call.reply.send(Err(CallError::Other)); // not a message capnp can build: this client's fault
        return;
    }
    let reply = match request.send().promise.await {
        Ok(response) => response.get().and_then(M::Resp::read).map_err(|_| CallError::Other),
        Err(error) => Err(kind_of(&error)),
    };
    let _ = call.reply.send(reply);
}

/// The interface's id, as the generated `*_request` functions pass it to `new_call`.
fn arena_id() -> u64 {
    <arena::Client as capnp::traits::HasTypeId>::TYPE_ID
}

/// A Cap'n Proto exception's kind: a lost connection is `connection`; one the server raised is
/// `status_<kind>` (`status_failed` for a refused count).
fn kind_of(error: &capnp::Error) -> CallError {
    match error.kind {
        capnp::ErrorKind::Disconnected => CallError::Connection,
        capnp::ErrorKind::Overloaded => CallError::Status("overloaded".into()),
        capnp::ErrorKind::Unimplemented => CallError::Status("unimplemented".into()),
        _ => CallError::Status("failed".into()),
    }
}

struct CapnpConnector<M: Method> {
    target: String,
    vat: Vat<M>,
    payloads: Arc<Payloads<M>>,
    /// Shared connections: the one every `connect` adds a caller to.
    shared: Option<mpsc::UnboundedSender<Call<M>>>,
}

impl<M: Method> Connector for CapnpConnector<M>
where
    M::Req: Capnp,
    M::Resp: Capnp,
{
    fn connect(&self) -> BoxFut<'_, Result<Box<dyn Conn>, CallError>> {
        Box::pin(async move {
            let calls = match &self.shared {
                Some(calls) => calls.clone(),
                None => self.vat.open(&self.target).await?,
            };
            Ok(Box::new(CapnpConn { calls, payloads: self.payloads.clone(), reply: None }) as Box<dyn Conn>)
        })
    }

    fn payload_count(&self) -> usize {
        self.payloads.len()
    }

    fn connect_shared(&self) -> Option<BoxFut<'_, Result<SharedConnector, CallError>>> {
        Some(Box::pin(async move {
            let shared = Some(self.vat.open(&self.target).await?);
            let vat = Vat { opens: self.vat.opens.clone() };
            let connector = CapnpConnector { target: self.target.clone(), vat, payloads: self.payloads.clone(), shared };
            Ok(Arc::new(connector) as SharedConnector)
        }))
    }
}

struct CapnpConn<M: Method> {
    calls: mpsc::UnboundedSender<Call<M>>,
    payloads: Arc<Payloads<M>>,
    reply: Option<M::Resp>,
}

impl<M: Method> Conn for CapnpConn<M> {
    fn call(&mut self, index: usize) -> BoxFut<'_, Result<(), CallError>> {
        Box::pin(async move {
            self.reply = None;
            let (reply, answered) = oneshot::channel();
            self.calls.send(Call { index, reply }).map_err(|_| CallError::Connection)?;
            self.reply = Some(answered.await.map_err(|_| CallError::Connection)??);
            Ok(())
        })
    }

    fn reply_matches(&self, index: usize) -> bool {
        self.reply.as_ref().is_some_and(|reply| self.payloads.matches(index, reply))
    }
}
