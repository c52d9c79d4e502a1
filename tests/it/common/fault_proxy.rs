//! A TCP proxy that loses answers: it passes every byte from its clients to its backend, and
//! passes the backend's answers back, except that with a set probability it closes both
//! connections at the first bytes of an answer instead of passing them on. The request was
//! read by the backend and carried out; only its answer is lost, which is what a client sees
//! when a network drops an answer or a process dies after doing the work.
//!
//! It runs on a thread of its own with its own runtime, so a test's runtime does not slow it.

use std::{
    net::SocketAddr,
    sync::{
        atomic::{AtomicU64, AtomicUsize, Ordering},
        Arc,
    },
};

use tokio::{
    io::{AsyncReadExt, AsyncWriteExt},
    net::{TcpListener, TcpStream},
};

/// A running proxy.
pub(crate) struct FaultProxy {
    /// The address clients connect to.
    pub addr: SocketAddr,
    shared: Arc<Shared>,
}

struct Shared {
    backend: SocketAddr,
    /// The chance of losing an answer, in millionths.
    drop_ppm: AtomicU64,
    /// Answers lost so far.
    dropped: AtomicUsize,
    seed: AtomicU64,
}

impl FaultProxy {
    /// A proxy on a free loopback port in front of `backend`, losing each answer with
    /// probability `drop` (0 to 1).
    pub(crate) fn start(backend: SocketAddr, drop: f64) -> FaultProxy {
        let std_listener =
            std::net::TcpListener::bind("127.0.0.1:0").expect("a free port for the proxy");
        std_listener.set_nonblocking(true).expect("nonblocking");
        let addr = std_listener.local_addr().expect("the proxy's address");
        let shared = Arc::new(Shared {
            backend,
            drop_ppm: AtomicU64::new((drop * 1e6) as u64),
            dropped: AtomicUsize::new(0),
            seed: AtomicU64::new(0x9e37_79b9_7f4a_7c15 ^ u64::from(addr.port())),
        });
        let serving = Arc::clone(&shared);
        std::thread::spawn(move || {
            let runtime = tokio::runtime::Builder::new_current_thread()
                .enable_all()
                .build()
                .expect("the proxy's runtime");
            runtime.block_on(async move {
                let listener = TcpListener::from_std(std_listener).expect("the proxy listens");
                while let Ok((client, _)) = listener.accept().await {
                    tokio::spawn(serve(client, Arc::clone(&serving)));
                }
            });
        });
        FaultProxy { addr, shared }
    }

    /// The proxy's URL (`http://127.0.0.1:PORT`).
    pub(crate) fn url(&self) -> String {
        format!("http://{}", self.addr)
    }

    /// Changes the chance of losing an answer.
    pub(crate) fn set_drop(&self, drop: f64) {
        self.shared
            .drop_ppm
            .store((drop * 1e6) as u64, Ordering::Relaxed);
    }

    /// Answers lost so far.
    pub(crate) fn dropped(&self) -> usize {
        self.shared.dropped.load(Ordering::Relaxed)
    }
}

impl Shared {
    /// Whether to lose the answer now (xorshift over a shared seed).
    fn roll(&self) -> bool {
        let mut x = self
            .seed
            .fetch_add(0x9e37_79b9_7f4a_7c15, Ordering::Relaxed);
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        x % 1_000_000 < self.drop_ppm.load(Ordering::Relaxed)
    }
}

/// Passes one client connection through, losing answers as the proxy says.
async fn serve(mut client: TcpStream, shared: Arc<Shared>) {
    let Ok(mut backend) = TcpStream::connect(shared.backend).await else {
        // The backend is down: the client sees its connection closed.
        return;
    };
    let _ = client.set_nodelay(true);
    let _ = backend.set_nodelay(true);
    let (mut client_in, mut client_out) = client.split();
    let (mut backend_in, mut backend_out) = backend.split();
    let mut up = [0u8; 16 * 1024];
    let mut down = [0u8; 16 * 1024];
    // A request went up since the last answer began: the next bytes down start an answer.
    let mut asked = false;
    loop {
        tokio::select! {
            read = client_in.read(&mut up) => match read {
                Ok(0) | Err(_) => return,
                Ok(n) => {
                    asked = true;
                    if backend_out.write_all(&up[..n]).await.is_err() {
                        return;
                    }
                }
            },
            read = backend_in.read(&mut down) => match read {
                Ok(0) | Err(_) => return,
                Ok(n) => {
                    if asked && shared.roll() {
                        shared.dropped.fetch_add(1, Ordering::Relaxed);
                        return;
                    }
                    asked = false;
                    if client_out.write_all(&down[..n]).await.is_err() {
                        return;
                    }
                }
            },
        }
    }
}
