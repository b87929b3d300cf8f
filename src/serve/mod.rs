//! `pgnindex serve`: a database as a lichess-compatible opening explorer
//! over HTTP, read-only.
//!
//! Routes (lichess's, with its old aliases): `GET /lichess`, `/masters`,
//! `/player` (ND-JSON: one line, the games are indexed already),
//! `/lichess/history` (`/lichess` with `history=true`),
//! `/masters/pgn/{id}` (`application/x-chess-pgn`), `/master`,
//! `/master/pgn/{id}`, `/personal`; and the page: `/`, its `/assets/…`,
//! and the three routes it uses ([`page`]). Queries are read by [`params`] and
//! answered by [`explorer`] over the query code the command line uses.
//!
//! The HTTP stack is axum on tokio; each SQLite read runs on tokio's
//! blocking threads, at most [`Config::connections`] at a time, each on
//! a read-only connection of the [`pool`]. A read transaction per request
//! sees every import commit made before it. Every refusal is a 4xx with a
//! plain-text `bad request: …` (or `not found: …`) line, as lichess's
//! explorer answers.

pub mod cache;
pub mod explorer;
pub mod listen;
pub mod lists;
pub mod page;
pub mod params;
pub mod pool;

use std::future::Future;
use std::net::SocketAddr;
use std::path::PathBuf;
use std::sync::{Arc, Mutex};

use axum::extract::{Path, RawQuery, State};
use axum::http::{header, HeaderValue, StatusCode};
use axum::response::{IntoResponse, Response};
use axum::routing::get;
use axum::Router;

use self::cache::Cache;
use self::params::{ExplorerQuery, ParamError, Route};
use self::pool::Pool;
use crate::db::GameId;
use crate::query::players::{self, NameCounts};
use crate::query::summaries::Summaries;
use crate::query::QueryError;

/// How to serve.
#[derive(Debug, Clone)]
pub struct Config {
    /// The database.
    pub db: PathBuf,
    /// The database `/masters` reads; `None`: the masters games of `db`.
    pub masters: Option<PathBuf>,
    /// The address to listen on.
    pub bind: SocketAddr,
    /// Add `Access-Control-Allow-Origin: *` to every answer.
    pub cors: bool,
    /// Database reads at the same time (each on its own connection).
    pub connections: usize,
    /// What clients are allowed.
    pub limits: listen::Limits,
}

/// Why the server could not start or stopped.
#[derive(Debug, thiserror::Error)]
pub enum ServeError {
    /// The database cannot be opened or answer explorer queries.
    #[error(transparent)]
    Database(#[from] pool::PoolError),
    /// The address cannot be listened on.
    #[error("cannot listen on {addr}: {error}")]
    Bind {
        /// The address.
        addr: SocketAddr,
        /// Why (part of the message, not a source: printed once).
        error: std::io::Error,
    },
    /// The runtime could not start or the server failed.
    #[error("server: {0}")]
    Io(#[from] std::io::Error),
}

/// Serves `config` until `stop` completes; `ready` is called with the
/// address listened on (the port chosen when the bind port is 0) before
/// the first request is answered.
///
/// # Errors
/// [`ServeError`] when the database cannot be opened, the address not
/// listened on, or the runtime not started.
pub fn run(
    config: &Config,
    ready: impl FnOnce(SocketAddr),
    stop: impl Future<Output = ()> + Send + 'static,
) -> Result<(), ServeError> {
    let masters = match &config.masters {
        Some(path) => Some(Arc::new(App::open(path, config.connections, None, true)?)),
        None => None,
    };
    let app = Arc::new(App::open(&config.db, config.connections, masters, false)?);
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .thread_name("pgnindex-http")
        .worker_threads(2)
        .max_blocking_threads(config.connections.max(1) + 2)
        .enable_io()
        .enable_time()
        .build()?;
    runtime.block_on(async {
        let listener = tokio::net::TcpListener::bind(config.bind)
            .await
            .map_err(|error| ServeError::Bind { addr: config.bind, error })?;
        let addr = listener.local_addr()?;
        ready(addr);
        listen::serve(listener, router(app, config.cors), config.limits, stop).await;
        Ok::<(), ServeError>(())
    })?;
    // A read still running past the grace is left to end with the process.
    runtime.shutdown_timeout(config.limits.shutdown_grace);
    Ok(())
}

/// The bytes of explorer answers kept ([`cache`]).
pub const CACHE_BYTES: usize = 64 << 20;

/// What the routes share: the connections, the recent answers and the
/// games' summaries held in memory.
#[derive(Debug)]
pub struct App {
    pool: Arc<Pool>,
    cache: Cache,
    /// The summaries, and the pool's generation they were read from.
    summaries: Mutex<(u64, Arc<Summaries>)>,
    /// The games of each player name, read at the first name search, and
    /// the pool's generation they were read from.
    names: Mutex<(u64, NameCounts)>,
    /// The masters database (`serve --masters`).
    masters: Option<Arc<App>>,
    /// This is the masters database: `/masters` reads all of its games.
    masters_only: bool,
}

impl App {
    /// Opens the database at `path` for `connections` reads at a time, its
    /// games' summaries read before the first request.
    fn open(
        path: &std::path::Path,
        connections: usize,
        masters: Option<Arc<App>>,
        masters_only: bool,
    ) -> Result<App, ServeError> {
        let pool = Arc::new(Pool::open(path, connections)?);
        let summaries = pool.blocking(|conn| {
            Arc::new(Summaries::default()).refreshed(conn).map_err(QueryError::sqlite(conn))
        })?;
        Ok(App {
            pool,
            cache: Cache::new(path, CACHE_BYTES),
            summaries: Mutex::new((0, summaries)),
            names: Mutex::new((0, NameCounts::default())),
            masters,
            masters_only,
        })
    }

    /// Where `/masters` reads: the masters database, else this one.
    fn masters(self: &Arc<App>) -> Arc<App> {
        Arc::clone(self.masters.as_ref().unwrap_or(self))
    }

    /// The summaries held, with the games `conn`'s snapshot has stored since
    /// they were read (one reader at a time adds them); read anew from the
    /// start for a database file replaced since.
    fn summaries(&self, conn: &rusqlite::Connection) -> Result<Arc<Summaries>, QueryError> {
        let mut held = self.summaries.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
        let generation = self.pool.generation();
        if held.0 != generation {
            *held = (generation, Arc::new(Summaries::default()));
        }
        let next = held.1.refreshed(conn).map_err(QueryError::sqlite(conn))?;
        held.1 = Arc::clone(&next);
        Ok(next)
    }

    /// The names holding `part`, most games first ([`page::MAX_PLAYERS`]),
    /// from the counts held, brought up to `conn`'s snapshot (one reader at
    /// a time); from the database when too many names to hold.
    fn players(
        &self,
        conn: &rusqlite::Connection,
        part: &str,
    ) -> Result<Vec<players::PlayerName>, QueryError> {
        let mut held = self.names.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
        let generation = self.pool.generation();
        if held.0 != generation {
            *held = (generation, NameCounts::default());
        }
        held.1.refresh(conn)?;
        match held.1.matching(part, page::MAX_PLAYERS) {
            Some(names) => Ok(names),
            None => players::matching(conn, part, page::MAX_PLAYERS),
        }
    }
}

/// The routes over `app`.
pub fn router(app: Arc<App>, cors: bool) -> Router {
    let app = Router::new()
        .route("/lichess", get(lichess))
        .route("/lichess/history", get(lichess_history))
        .route("/masters", get(masters))
        .route("/player", get(player))
        .route("/masters/pgn/{id}", get(game_pgn))
        .route("/master", get(masters))
        .route("/master/pgn/{id}", get(game_pgn))
        .route("/personal", get(player))
        .route("/api/position", get(position))
        .route("/api/game/{id}", get(game))
        .route("/api/pgn/{id}", get(pgn))
        .route("/api/players", get(players))
        .route("/", get(asset))
        .route("/assets/{name}", get(asset))
        .fallback(not_found)
        .method_not_allowed_fallback(method_not_allowed)
        .with_state(app);
    if cors {
        app.layer(axum::middleware::map_response(allow_any_origin))
    } else {
        app
    }
}

async fn allow_any_origin(mut response: Response) -> Response {
    response
        .headers_mut()
        .insert(header::ACCESS_CONTROL_ALLOW_ORIGIN, HeaderValue::from_static("*"));
    response
}

/// A refusal or a failure, answered as one plain-text line.
#[derive(Debug)]
pub struct ApiError {
    status: StatusCode,
    message: String,
}

impl ApiError {
    fn bad_request(error: impl std::fmt::Display) -> ApiError {
        ApiError { status: StatusCode::BAD_REQUEST, message: format!("bad request: {error}") }
    }

    fn not_found(what: impl std::fmt::Display) -> ApiError {
        ApiError { status: StatusCode::NOT_FOUND, message: format!("not found: {what}") }
    }
}

impl From<ParamError> for ApiError {
    fn from(error: ParamError) -> ApiError {
        ApiError::bad_request(error)
    }
}

impl From<pool::PoolError> for ApiError {
    fn from(error: pool::PoolError) -> ApiError {
        // Waiting for a writer's lock, or stopping: try again later. Anything
        // else (a corrupt page, a file that is no database) is the server's.
        let status = match &error {
            pool::PoolError::Busy => StatusCode::SERVICE_UNAVAILABLE,
            pool::PoolError::Query(QueryError::Sqlite { error: source, .. })
                if matches!(
                    source.sqlite_error_code(),
                    Some(rusqlite::ErrorCode::DatabaseBusy | rusqlite::ErrorCode::DatabaseLocked)
                ) =>
            {
                StatusCode::SERVICE_UNAVAILABLE
            }
            // A filter on a column this database predates: the request's.
            pool::PoolError::Query(QueryError::Predates { .. }) => StatusCode::BAD_REQUEST,
            _ => StatusCode::INTERNAL_SERVER_ERROR,
        };
        ApiError { status, message: format!("error: {error}") }
    }
}

impl IntoResponse for ApiError {
    fn into_response(self) -> Response {
        let mut body = self.message;
        body.push('\n');
        (self.status, [(header::CONTENT_TYPE, "text/plain; charset=utf-8")], body).into_response()
    }
}

/// An explorer answer as JSON text, from the cache when the database has
/// not changed since it was made.
async fn explore(app: Arc<App>, route: Route, query: Option<String>) -> Result<Arc<str>, ApiError> {
    explore_with_history(app, route, query, false).await
}

/// `/masters`: from the masters database, else from the main one's
/// masters games.
async fn explore_masters(app: Arc<App>, query: Option<String>) -> Result<Arc<str>, ApiError> {
    explore_with_history(app.masters(), Route::Masters, query, false).await
}

/// [`explore`], with the games by month whatever the query says when
/// `history` (lichess's `/lichess/history`).
async fn explore_with_history(
    app: Arc<App>,
    route: Route,
    query: Option<String>,
    history: bool,
) -> Result<Arc<str>, ApiError> {
    let text = query.unwrap_or_default();
    let key = format!("{route:?}{}?{text}", if history { "/history" } else { "" });
    let version = app.cache.version();
    if let Some(answer) = app.cache.get(&key, &version) {
        return Ok(answer);
    }
    let mut query: ExplorerQuery = params::parse(route, &text)?;
    query.history |= history;
    // `/masters` over the main database: its masters games.
    query.filters.masters = route == Route::Masters && !app.masters_only;
    let reader = Arc::clone(&app);
    let value = app
        .pool
        .read(move |conn| explorer::answer(conn, &query, Some(reader.summaries(conn)?)))
        .await?;
    let answer: Arc<str> = Arc::from(value.to_string());
    app.cache.put(key, version, Arc::clone(&answer));
    Ok(answer)
}

fn json_response(value: &serde_json::Value, content_type: &'static str, line: bool) -> Response {
    text_response(value.to_string(), content_type, line)
}

fn text_response(mut body: String, content_type: &'static str, line: bool) -> Response {
    if line {
        body.push('\n');
    }
    ([(header::CONTENT_TYPE, content_type)], body).into_response()
}

async fn lichess(State(app): State<Arc<App>>, RawQuery(query): RawQuery) -> Response {
    match explore(app, Route::Lichess, query).await {
        Ok(answer) => text_response(answer.to_string(), "application/json", false),
        Err(e) => e.into_response(),
    }
}

async fn lichess_history(State(app): State<Arc<App>>, RawQuery(query): RawQuery) -> Response {
    match explore_with_history(app, Route::Lichess, query, true).await {
        Ok(answer) => text_response(answer.to_string(), "application/json", false),
        Err(e) => e.into_response(),
    }
}

async fn masters(State(app): State<Arc<App>>, RawQuery(query): RawQuery) -> Response {
    match explore_masters(app, query).await {
        Ok(answer) => text_response(answer.to_string(), "application/json", false),
        Err(e) => e.into_response(),
    }
}

async fn player(State(app): State<Arc<App>>, RawQuery(query): RawQuery) -> Response {
    match explore(app, Route::Player, query).await {
        Ok(answer) => text_response(answer.to_string(), "application/x-ndjson", true),
        Err(e) => e.into_response(),
    }
}

async fn game_pgn(State(app): State<Arc<App>>, Path(id): Path<String>) -> Response {
    game_route(app.masters(), id, page::game_pgn, "application/x-chess-pgn").await
}

async fn position(RawQuery(query): RawQuery) -> Response {
    let query = match page::with_line(query.as_deref().unwrap_or("")) {
        Ok(query) => query,
        Err(e) => return ApiError::from(e).into_response(),
    };
    match params::parse(Route::Lichess, &query) {
        Ok(q) => json_response(&page::position(&q), "application/json", false),
        Err(e) => ApiError::from(e).into_response(),
    }
}

async fn players(State(app): State<Arc<App>>, RawQuery(query): RawQuery) -> Response {
    let part = match page::name_part(query.as_deref().unwrap_or("")) {
        Ok(part) => part,
        Err(e) => return ApiError::from(e).into_response(),
    };
    let reader = Arc::clone(&app);
    let names = app.pool.read(move |conn| reader.players(conn, &part).map(page::players_json));
    match names.await {
        Ok(names) => json_response(&names, "application/json", false),
        Err(e) => ApiError::from(e).into_response(),
    }
}

async fn game(
    State(app): State<Arc<App>>,
    Path(id): Path<String>,
    RawQuery(query): RawQuery,
) -> Response {
    game_route(from_db(app, query), id, page::game_json, "application/json").await
}

/// `/api/pgn/{id}`: a game of the database as PGN, for the page.
async fn pgn(
    State(app): State<Arc<App>>,
    Path(id): Path<String>,
    RawQuery(query): RawQuery,
) -> Response {
    game_route(from_db(app, query), id, page::game_pgn, "application/x-chess-pgn").await
}

/// The database a page's request names: `db=masters` is the one
/// `/masters` reads, anything else the main one.
fn from_db(app: Arc<App>, query: Option<String>) -> Arc<App> {
    match query.as_deref() {
        Some("db=masters") => app.masters(),
        _ => app,
    }
}

/// A route answering one game, whole or refused when too large.
async fn game_route(
    app: Arc<App>,
    id: String,
    answer: fn(&rusqlite::Connection, GameId) -> Result<page::GameAnswer, QueryError>,
    content_type: &'static str,
) -> Response {
    let Some(game_id) = id.parse::<u32>().ok().filter(|&n| n > 0).map(GameId::new) else {
        return ApiError::not_found(format_args!("no game {id:?} (ids are whole numbers)"))
            .into_response();
    };
    match app.pool.read(move |conn| answer(conn, game_id)).await {
        Ok(page::GameAnswer::Missing) => {
            ApiError::not_found(format_args!("no game {game_id}")).into_response()
        }
        Ok(page::GameAnswer::TooLarge(size)) => {
            ApiError::bad_request(page::GameAnswer::too_large(game_id, size)).into_response()
        }
        Ok(page::GameAnswer::Text(text)) => text_response(text, content_type, false),
        Err(e) => ApiError::from(e).into_response(),
    }
}

async fn asset(uri: axum::http::Uri) -> Response {
    match page::asset(uri.path()) {
        Some(a) => ([(header::CONTENT_TYPE, a.content_type)], a.body).into_response(),
        None => not_found(uri).await,
    }
}

async fn not_found(uri: axum::http::Uri) -> Response {
    ApiError::not_found(format_args!("no page {:?}", uri.path())).into_response()
}

async fn method_not_allowed(method: axum::http::Method) -> Response {
    let error = ApiError {
        status: StatusCode::METHOD_NOT_ALLOWED,
        message: format!("bad request: {method} is not allowed: the explorer is read-only (GET)"),
    };
    let mut response = error.into_response();
    response.headers_mut().insert(header::ALLOW, HeaderValue::from_static("GET, HEAD"));
    response
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::db::schema::Schema;

    #[test]
    fn a_filter_the_database_predates_is_the_request_s_fault() {
        let predates = QueryError::Predates {
            path: "x.db".into(),
            filter: "--speed",
            schema: Schema::new(6),
            part: Schema::SPEED,
            advice: "`pgnindex vacuum` brings it up to date",
        };
        let error = ApiError::from(pool::PoolError::Query(predates));
        assert_eq!(error.status, StatusCode::BAD_REQUEST);
        assert!(error.message.contains("schema version 6"), "{}", error.message);
        let busy = ApiError::from(pool::PoolError::Busy);
        assert_eq!(busy.status, StatusCode::SERVICE_UNAVAILABLE);
    }
}
