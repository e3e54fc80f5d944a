//! `serve`: open the backing store (`--redis`), bind, announce readiness, serve until SIGTERM or
//! stdin closes.

use crate::contenders::{Contender, ServerOptions, Shutdown};
use crate::drive::call::BoxFut;
use crate::userschema::served::Served;
use std::io::{self, Read, Write};
use std::os::fd::AsRawFd;
use std::sync::Arc;
use std::time::Duration;
use tokio::net::TcpListener;
use tokio::sync::watch;

/// After the stop signal, servers get this long to finish open connections gracefully.
const GRACE: Duration = Duration::from_secs(1);

#[derive(Debug)]
pub enum ServeError {
    NoServer(String),
    Redis(String),
    Schema(String),
    Bind(String, io::Error),
    Serve(io::Error),
}

impl std::fmt::Display for ServeError {
    fn fmt(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
        match self {
            ServeError::NoServer(id) => write!(f, "contender {id} has no server in this worker"),
            ServeError::Redis(why) | ServeError::Schema(why) => f.write_str(why),
            ServeError::Bind(addr, e) => write!(f, "cannot bind {addr}: {e}"),
            ServeError::Serve(e) => write!(f, "server failed: {e}"),
        }
    }
}

/// Serves `contender` on host:port; `redis` is the predictions seed's Redis URL, checked first.
pub async fn serve(contender: &Contender, host: &str, port: u16, redis: Option<&str>, schema: Option<&str>) -> Result<(), ServeError> {
    let serve_fn = contender.server.ok_or_else(|| ServeError::NoServer(contender.id.into()))?;
    let mut options = server_options(redis).await?;
    options.user = user_method(schema)?;
    let listener = bind(host, port).await.map_err(|e| ServeError::Bind(format!("{host}:{port}"), e))?;
    let stop_signal = stop_requested().map_err(ServeError::Serve)?;
    let (stop_tx, stop_rx) = watch::channel(false);
    tokio::spawn(async move {
        stop_signal.await;
        let _ = stop_tx.send(true);
    });
    announce_ready(listener.local_addr().map_err(ServeError::Serve)?.port());
    let grace = {
        let rx = stop_rx.clone();
        async move {
            stopped(rx).await;
            tokio::time::sleep(GRACE).await
        }
    };
    tokio::select! {
        result = serve_fn(listener, options, Box::pin(stopped(stop_rx))) => result.map_err(ServeError::Serve),
        _ = grace => Ok(()),
    }
}

async fn server_options(redis: Option<&str>) -> Result<ServerOptions, ServeError> {
    let predictions = match redis {
        Some(url) => Some(crate::predictions::Store::open(url).await.map_err(ServeError::Redis)?),
        None => None,
    };
    Ok(ServerOptions { predictions, user: None })
}

/// The user's method of `--schema served.json`, its calibration logged on stderr as the Python
/// and Go servers log it.
fn user_method(schema: Option<&str>) -> Result<Option<Arc<Served>>, ServeError> {
    let Some(path) = schema else { return Ok(None) };
    let served = Served::load(path).map_err(ServeError::Schema)?;
    eprintln!("rpcarena: {}", served.calibration);
    Ok(Some(Arc::new(served)))
}

/// Binds with TCP_NODELAY on the listening socket (Linux copies it to every accepted socket, so
/// servers whose framework does not set it, warp, still answer without Nagle delays), and listens
/// with the system's longest accept queue (tokio's bind takes 1,024).
pub async fn bind(host: &str, port: u16) -> io::Result<TcpListener> {
    let addr = tokio::net::lookup_host((host, port))
        .await?
        .next()
        .ok_or_else(|| io::Error::new(io::ErrorKind::AddrNotAvailable, format!("{host} has no address")))?;
    let socket = if addr.is_ipv4() { tokio::net::TcpSocket::new_v4()? } else { tokio::net::TcpSocket::new_v6()? };
    socket.set_reuseaddr(true)?;
    socket.bind(addr)?;
    let listener = socket.listen(crate::limits::listen_backlog())?;
    let on: libc::c_int = 1;
    // SAFETY: setsockopt reads `on` for the given length on a socket we own.
    let rc = unsafe {
        let len = std::mem::size_of::<libc::c_int>() as libc::socklen_t;
        libc::setsockopt(listener.as_raw_fd(), libc::IPPROTO_TCP, libc::TCP_NODELAY, (&on as *const libc::c_int).cast(), len)
    };
    if rc != 0 {
        return Err(io::Error::last_os_error());
    }
    Ok(listener)
}

fn announce_ready(port: u16) {
    let line = serde_json::json!({"event": "ready", "port": port, "pid": std::process::id(), "contract": 1});
    let mut stdout = io::stdout().lock();
    let _ = writeln!(stdout, "{line}").and_then(|()| stdout.flush());
}

/// Resolves once the stop flag is set.
fn stopped(mut rx: watch::Receiver<bool>) -> Shutdown {
    Box::pin(async move {
        let _ = rx.wait_for(|stop| *stop).await;
    })
}

/// SIGTERM, SIGINT, or the end of stdin when stdin is a pipe or socket. A stdin of /dev/null, a
/// file or a terminal is not watched: a server started with `stdin=DEVNULL` must keep serving.
/// The handlers are installed before this returns, so a signal sent right after the ready line
/// is not lost.
fn stop_requested() -> io::Result<BoxFut<'static, ()>> {
    use tokio::signal::unix::{signal, SignalKind};
    let mut term = signal(SignalKind::terminate())?;
    let mut int = signal(SignalKind::interrupt())?;
    let eof = stdin_eof();
    Ok(Box::pin(async move {
        tokio::select! {
            _ = term.recv() => {}
            _ = int.recv() => {}
            _ = eof => {}
        }
    }))
}

/// Resolves at the end of stdin if stdin is a pipe or socket; never otherwise.
fn stdin_eof() -> BoxFut<'static, ()> {
    if !stdin_is_pipe() {
        return Box::pin(std::future::pending());
    }
    let (eof_tx, eof_rx) = tokio::sync::oneshot::channel::<()>();
    // A plain thread, so a blocked read never holds up runtime shutdown.
    std::thread::spawn(move || {
        let mut sink = [0u8; 256];
        let mut stdin = io::stdin();
        while matches!(stdin.read(&mut sink), Ok(n) if n > 0) {}
        let _ = eof_tx.send(());
    });
    Box::pin(async move { drop(eof_rx.await) })
}

fn stdin_is_pipe() -> bool {
    // SAFETY: fstat writes into the zeroed struct we own; fd 0 may be closed (then not a pipe).
    let mode = unsafe {
        let mut stat: libc::stat = std::mem::zeroed();
        match libc::fstat(0, &mut stat) {
            0 => stat.st_mode & libc::S_IFMT,
            _ => return false,
        }
    };
    mode == libc::S_IFIFO || mode == libc::S_IFSOCK
}

#[cfg(test)]
mod tests {
    #[tokio::test]
    async fn accepted_sockets_inherit_nodelay() {
        let listener = super::bind("127.0.0.1", 0).await.unwrap();
        let addr = listener.local_addr().unwrap();
        let _client = tokio::net::TcpStream::connect(addr).await.unwrap();
        let (accepted, _) = listener.accept().await.unwrap();
        assert!(accepted.nodelay().unwrap());
    }
}
