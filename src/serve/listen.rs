//! The server's connections: accepted, timed out, capped and closed by
//! this module rather than left to clients. A client that is slow or idle
//! costs a socket and nothing more:
//!
//! - a request's head must arrive within [`Limits::header_timeout`] of the
//!   connection opening or of the previous answer (keep-alive idle time
//!   counts); past it the connection is closed;
//! - an answer the client does not read for [`Limits::write_timeout`]
//!   closes the connection, freeing the answer;
//! - at most [`Limits::max_connections`] are open; at the cap, a new
//!   connection closes the one idle the longest (one with no request in
//!   progress), so that idle sockets never keep a client from an answer;
//! - the answers in flight share [`Limits::answer_bytes`]: an answer past
//!   what is left is refused with a `503` rather than held;
//! - on stop, idle connections close at once and requests in progress get
//!   [`Limits::shutdown_grace`] to finish; then every connection is dropped.

use std::collections::HashMap;
use std::convert::Infallible;
use std::future::Future;
use std::io;
use std::pin::Pin;
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::task::{Context, Poll};
use std::time::{Duration, Instant};

use axum::body::{Body, Bytes};
use axum::http::{header, HeaderValue, Request, Response, StatusCode};
use axum::Router;
use hyper::body::Incoming;
use hyper_util::rt::{TokioIo, TokioTimer};
use tokio::io::{AsyncRead, AsyncWrite, ReadBuf};
use tokio::net::{TcpListener, TcpStream};
use tokio::sync::{watch, Notify, OwnedSemaphorePermit, Semaphore};
use tokio::task::JoinSet;

/// What the server allows its clients.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Limits {
    /// Connections open at once.
    pub max_connections: usize,
    /// Time for a request's head, from the connection's opening or its
    /// previous answer.
    pub header_timeout: Duration,
    /// Time an answer may wait for the client to read it.
    pub write_timeout: Duration,
    /// Bytes of answers in flight at once.
    pub answer_bytes: usize,
    /// Time requests in progress get to finish once the server stops.
    pub shutdown_grace: Duration,
}

impl Limits {
    /// See [`Limits::header_timeout`].
    pub const HEADER_TIMEOUT: Duration = Duration::from_secs(10);
    /// See [`Limits::write_timeout`].
    pub const WRITE_TIMEOUT: Duration = Duration::from_secs(10);
    /// See [`Limits::answer_bytes`].
    pub const ANSWER_BYTES: usize = 512 << 20;
    /// See [`Limits::shutdown_grace`].
    pub const SHUTDOWN_GRACE: Duration = Duration::from_secs(5);
    /// The most connections the default allows, whatever the file limit.
    pub const MOST_CONNECTIONS: usize = 4096;

    /// The defaults, with the connection cap left by the process's
    /// open-file limit once `reads` database connections (each up to 3
    /// files: the database, its WAL and shared memory) and a margin for
    /// the rest of the process are set aside.
    pub fn for_reads(reads: usize) -> Limits {
        let files = open_file_limit().unwrap_or(1024);
        let reserved = 3 * reads + 64;
        Limits {
            max_connections: files.saturating_sub(reserved).clamp(8, Limits::MOST_CONNECTIONS),
            header_timeout: Limits::HEADER_TIMEOUT,
            write_timeout: Limits::WRITE_TIMEOUT,
            answer_bytes: Limits::ANSWER_BYTES,
            shutdown_grace: Limits::SHUTDOWN_GRACE,
        }
    }
}

/// The soft limit on open files, if the system has one.
fn open_file_limit() -> Option<usize> {
    #[cfg(target_os = "linux")]
    {
        let mut limit = libc::rlimit { rlim_cur: 0, rlim_max: 0 };
        // SAFETY: getrlimit(2) writes the struct it is given.
        if unsafe { libc::getrlimit(libc::RLIMIT_NOFILE, &mut limit) } == 0
            && limit.rlim_cur != libc::RLIM_INFINITY
        {
            return usize::try_from(limit.rlim_cur).ok();
        }
        None
    }
    #[cfg(not(target_os = "linux"))]
    {
        None
    }
}

/// Serves `router` on `listener` within `limits` until `stop` completes,
/// then closes every connection within the grace. A failed accept (out of
/// files, a connection reset before it was taken) is waited out, as the
/// next one may succeed.
pub async fn serve(
    listener: TcpListener,
    router: Router,
    limits: Limits,
    stop: impl Future<Output = ()> + Send,
) {
    let shared = Arc::new(Shared {
        limits,
        registry: Mutex::new(Registry::default()),
        budget: Arc::new(Semaphore::new(budget_units(limits.answer_bytes))),
        epoch: Instant::now(),
    });
    let (stopping_tx, stopping) = watch::channel(false);
    let mut tasks = JoinSet::new();
    let mut stop = std::pin::pin!(stop);
    loop {
        let accepted = tokio::select! {
            () = &mut stop => break,
            accepted = listener.accept() => accepted,
            // Finished connection tasks are reaped as they end.
            Some(_) = tasks.join_next(), if !tasks.is_empty() => continue,
        };
        let stream = match accepted {
            Ok((stream, _)) => stream,
            Err(e) => {
                // Out of files: an idle connection makes room; other
                // errors (a client that reset first) concern one client.
                if e.raw_os_error().is_some_and(|code| OUT_OF_FILES.contains(&code)) {
                    shared.evict_idle();
                }
                tokio::time::sleep(Duration::from_millis(10)).await;
                continue;
            }
        };
        let Some(conn) = shared.admit() else {
            // Every connection is in the middle of a request: this one
            // closes at once (the client sees a reset, not a hang).
            drop(stream);
            continue;
        };
        let _ = stream.set_nodelay(true);
        tasks.spawn(connection(
            Arc::clone(&shared),
            conn,
            stream,
            router.clone(),
            stopping.clone(),
        ));
    }
    drop(listener);
    let _ = stopping_tx.send(true);
    let deadline = tokio::time::sleep(limits.shutdown_grace);
    tokio::pin!(deadline);
    loop {
        tokio::select! {
            next = tasks.join_next() => if next.is_none() { break },
            () = &mut deadline => {
                tasks.abort_all();
                while tasks.join_next().await.is_some() {}
                break;
            }
        }
    }
}

/// `ENFILE` and `EMFILE`: the system's or the process's files are all
/// open (the same numbers on every Unix).
const OUT_OF_FILES: [i32; 2] = [23, 24];

/// The answer budget counts KiB: a semaphore holds at most `u32::MAX >> 3`
/// permits.
fn budget_units(bytes: usize) -> usize {
    (bytes / 1024).clamp(1, Semaphore::MAX_PERMITS)
}

/// What the connections share.
#[derive(Debug)]
struct Shared {
    limits: Limits,
    registry: Mutex<Registry>,
    budget: Arc<Semaphore>,
    /// The origin of [`Conn::idle_since`].
    epoch: Instant,
}

/// The open connections.
#[derive(Debug, Default)]
struct Registry {
    next: u64,
    open: HashMap<u64, Arc<Conn>>,
}

/// One open connection as the others see it.
#[derive(Debug)]
struct Conn {
    id: u64,
    /// Requests in progress (answers not yet written out).
    busy: AtomicUsize,
    /// When it last became idle, in milliseconds since [`Shared::epoch`].
    idle_since: AtomicU64,
    /// Told when the connection must close at once.
    close: Notify,
}

impl Shared {
    fn now_ms(&self) -> u64 {
        u64::try_from(self.epoch.elapsed().as_millis()).unwrap_or(u64::MAX)
    }

    fn registry(&self) -> std::sync::MutexGuard<'_, Registry> {
        self.registry.lock().unwrap_or_else(std::sync::PoisonError::into_inner)
    }

    /// A new connection's entry, room made by closing the connection idle
    /// the longest when at the cap; `None` when every open connection has
    /// a request in progress.
    fn admit(&self) -> Option<Arc<Conn>> {
        let mut registry = self.registry();
        if registry.open.len() >= self.limits.max_connections && !evict_from(&mut registry) {
            return None;
        }
        registry.next += 1;
        let conn = Arc::new(Conn {
            id: registry.next,
            busy: AtomicUsize::new(0),
            idle_since: AtomicU64::new(self.now_ms()),
            close: Notify::new(),
        });
        registry.open.insert(conn.id, Arc::clone(&conn));
        Some(conn)
    }

    fn evict_idle(&self) {
        evict_from(&mut self.registry());
    }

    fn leave(&self, conn: &Conn) {
        self.registry().open.remove(&conn.id);
    }
}

/// Closes the connection idle the longest; `false` if none is idle.
fn evict_from(registry: &mut Registry) -> bool {
    let oldest = registry
        .open
        .values()
        .filter(|c| c.busy.load(Ordering::Acquire) == 0)
        .min_by_key(|c| c.idle_since.load(Ordering::Relaxed))
        .map(|c| c.id);
    match oldest.and_then(|id| registry.open.remove(&id)) {
        Some(conn) => {
            conn.close.notify_one();
            true
        }
        None => false,
    }
}

/// Serves one connection until it ends, is evicted, or the server stops.
async fn connection(
    shared: Arc<Shared>,
    conn: Arc<Conn>,
    stream: TcpStream,
    router: Router,
    mut stopping: watch::Receiver<bool>,
) {
    let service = Tracked { router, conn: Arc::clone(&conn), shared: Arc::clone(&shared) };
    let io = TokioIo::new(WriteDeadline::new(stream, shared.limits.write_timeout));
    let mut builder = hyper::server::conn::http1::Builder::new();
    builder.timer(TokioTimer::new()).header_read_timeout(shared.limits.header_timeout);
    let http = builder.serve_connection(io, service);
    tokio::pin!(http);
    let mut draining = false;
    loop {
        tokio::select! {
            _ = http.as_mut() => break,
            () = conn.close.notified() => break,
            changed = stopping.changed(), if !draining => {
                draining = true;
                if changed.is_err() || conn.busy.load(Ordering::Acquire) == 0 {
                    break;
                }
                // The answer in progress is the last on this connection.
                http.as_mut().graceful_shutdown();
            }
        }
    }
    shared.leave(&conn);
}

/// The router, with the connection's requests counted and the answers
/// held against the budget.
#[derive(Clone)]
struct Tracked {
    router: Router,
    conn: Arc<Conn>,
    shared: Arc<Shared>,
}

impl hyper::service::Service<Request<Incoming>> for Tracked {
    type Response = Response<Body>;
    type Error = Infallible;
    type Future = Pin<Box<dyn Future<Output = Result<Response<Body>, Infallible>> + Send>>;

    fn call(&self, request: Request<Incoming>) -> Self::Future {
        let busy = Busy::new(Arc::clone(&self.conn), Arc::clone(&self.shared));
        let mut router = self.router.clone();
        let budget = Arc::clone(&self.shared.budget);
        Box::pin(async move {
            let response = tower_service::Service::call(&mut router, request.map(Body::new))
                .await
                .unwrap_or_else(|never| match never {});
            let size = http_body::Body::size_hint(response.body()).upper().unwrap_or(0);
            let units = u32::try_from(size.div_ceil(1024)).unwrap_or(u32::MAX);
            let Ok(permit) = budget.try_acquire_many_owned(units) else {
                return Ok(too_busy(busy));
            };
            Ok(response.map(|body| Body::new(Held { body, _permit: Some(permit), _busy: busy })))
        })
    }
}

/// The `503` for an answer the budget has no room for.
fn too_busy(busy: Busy) -> Response<Body> {
    let text = "error: the server is busy: its answers in flight fill its memory budget; \
                try again\n";
    let mut response =
        Response::new(Body::new(Held { body: Body::from(text), _permit: None, _busy: busy }));
    *response.status_mut() = StatusCode::SERVICE_UNAVAILABLE;
    let headers = response.headers_mut();
    headers.insert(header::CONTENT_TYPE, HeaderValue::from_static("text/plain; charset=utf-8"));
    headers.insert(header::RETRY_AFTER, HeaderValue::from_static("1"));
    response
}

/// A request in progress on a connection, from its head to the end of its
/// answer.
struct Busy {
    conn: Arc<Conn>,
    shared: Arc<Shared>,
}

impl Busy {
    fn new(conn: Arc<Conn>, shared: Arc<Shared>) -> Busy {
        conn.busy.fetch_add(1, Ordering::AcqRel);
        Busy { conn, shared }
    }
}

impl Drop for Busy {
    fn drop(&mut self) {
        self.conn.idle_since.store(self.shared.now_ms(), Ordering::Relaxed);
        self.conn.busy.fetch_sub(1, Ordering::AcqRel);
    }
}

/// An answer's body, holding its share of the budget and its request's
/// [`Busy`] until it is written out or dropped.
struct Held {
    body: Body,
    _permit: Option<OwnedSemaphorePermit>,
    _busy: Busy,
}

impl http_body::Body for Held {
    type Data = Bytes;
    type Error = axum::Error;

    fn poll_frame(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
    ) -> Poll<Option<Result<http_body::Frame<Bytes>, axum::Error>>> {
        Pin::new(&mut self.body).poll_frame(cx)
    }

    fn is_end_stream(&self) -> bool {
        self.body.is_end_stream()
    }

    fn size_hint(&self) -> http_body::SizeHint {
        self.body.size_hint()
    }
}

/// A stream whose writes fail once one has waited `limit` for the client
/// to read.
struct WriteDeadline {
    stream: TcpStream,
    limit: Duration,
    waiting: Option<Pin<Box<tokio::time::Sleep>>>,
}

impl WriteDeadline {
    fn new(stream: TcpStream, limit: Duration) -> WriteDeadline {
        WriteDeadline { stream, limit, waiting: None }
    }

    /// A write's outcome: done (the deadline dropped), or waiting for the
    /// client, within the deadline.
    fn settle(
        &mut self,
        cx: &mut Context<'_>,
        polled: Poll<io::Result<usize>>,
    ) -> Poll<io::Result<usize>> {
        if polled.is_pending() {
            return self.wait(cx);
        }
        self.waiting = None;
        polled
    }

    /// `Pending` while the deadline is ahead, an error past it.
    fn wait(&mut self, cx: &mut Context<'_>) -> Poll<io::Result<usize>> {
        let limit = self.limit;
        let sleep = self.waiting.get_or_insert_with(|| Box::pin(tokio::time::sleep(limit)));
        match sleep.as_mut().poll(cx) {
            Poll::Ready(()) => Poll::Ready(Err(io::Error::new(
                io::ErrorKind::TimedOut,
                "the client did not read its answer",
            ))),
            Poll::Pending => Poll::Pending,
        }
    }
}

impl AsyncRead for WriteDeadline {
    fn poll_read(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &mut ReadBuf<'_>,
    ) -> Poll<io::Result<()>> {
        Pin::new(&mut self.stream).poll_read(cx, buf)
    }
}

impl AsyncWrite for WriteDeadline {
    fn poll_write(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &[u8],
    ) -> Poll<io::Result<usize>> {
        let polled = Pin::new(&mut self.stream).poll_write(cx, buf);
        self.settle(cx, polled)
    }

    fn poll_write_vectored(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        bufs: &[io::IoSlice<'_>],
    ) -> Poll<io::Result<usize>> {
        let polled = Pin::new(&mut self.stream).poll_write_vectored(cx, bufs);
        self.settle(cx, polled)
    }

    fn is_write_vectored(&self) -> bool {
        self.stream.is_write_vectored()
    }

    fn poll_flush(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        Pin::new(&mut self.stream).poll_flush(cx)
    }

    fn poll_shutdown(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        Pin::new(&mut self.stream).poll_shutdown(cx)
    }
}
