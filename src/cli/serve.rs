//! `pgnindex serve`: the database as lichess's opening explorer API over
//! HTTP, until Ctrl-C or SIGTERM.

use std::net::SocketAddr;
use std::sync::atomic::Ordering;
use std::time::Duration;

use clap::Args;

use pgnindex::serve::listen::Limits;
use pgnindex::serve::{self, Config};

use super::exit::Exit;
use super::interrupt;
use super::query_args::DbArgs;

/// Arguments of `serve`.
#[derive(Debug, Args)]
#[command(after_help = "\
Examples:
  pgnindex serve --db games.db
  curl 'http://127.0.0.1:9002/lichess?play=e2e4,c7c5&speeds=blitz,rapid&ratings=2000,2200'
  curl 'http://127.0.0.1:9002/masters?fen=rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR_b_KQkq_-_0_1'
  curl 'http://127.0.0.1:9002/player?player=Carlsen,Magnus&color=white'
  curl 'http://127.0.0.1:9002/masters/pgn/42'

The routes and parameters are those of lichess's opening explorer
(explorer.lichess.ovh), so its clients work against this database: berserk's
Client(explorer_url=\"http://127.0.0.1:9002\"), for one. /lichess and /masters
answer from every game of the database, /player from one player's games
(names matched whole, case-insensitive). Game ids are the database's.

Read-only: an import running beside it is seen after each of its commits.
Ctrl-C or SIGTERM stops it (exit 0): requests in progress get 5 seconds to
finish, then every connection is closed.")]
pub struct ServeArgs {
    #[command(flatten)]
    db: DbArgs,
    /// The address and port to listen on. Anything but a loopback address
    /// makes the database readable from the network.
    #[arg(long, value_name = "ADDR:PORT", default_value = "127.0.0.1:9002")]
    bind: SocketAddr,
    /// Add `Access-Control-Allow-Origin: *`, for web pages served from
    /// elsewhere.
    #[arg(long)]
    cors: bool,
    /// Database reads at the same time, each on its own read-only
    /// connection (default: the number of cores, at least 2).
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u16).range(1..=256))]
    connections: Option<u16>,
    /// Client connections open at once; at the cap a new one closes the
    /// one idle the longest (default: what the open-file limit leaves,
    /// at most 4096).
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u32).range(1..=1_000_000))]
    max_clients: Option<u32>,
    /// Seconds a client has to send a request's head (from connecting or
    /// from its previous answer) and to read an answer; past them its
    /// connection is closed.
    #[arg(long, value_name = "SECONDS", default_value_t = 10,
          value_parser = clap::value_parser!(u16).range(1..))]
    client_timeout: u16,
}

/// Runs `serve`.
pub fn run(args: &ServeArgs) -> anyhow::Result<Exit> {
    let stop = interrupt::flag()?;
    let cores = std::thread::available_parallelism().map_or(2, usize::from);
    let connections = args.connections.map_or(cores.max(2), usize::from);
    let mut limits = Limits::for_reads(connections);
    if let Some(n) = args.max_clients {
        limits.max_connections = usize::try_from(n).unwrap_or(usize::MAX);
    }
    limits.header_timeout = Duration::from_secs(args.client_timeout.into());
    limits.write_timeout = limits.header_timeout;
    let config =
        Config { db: args.db.path(), bind: args.bind, cors: args.cors, connections, limits };
    let path = config.db.display().to_string();
    let stopping = {
        let stop = std::sync::Arc::clone(&stop);
        async move {
            while !stop.load(Ordering::Relaxed) {
                tokio::time::sleep(Duration::from_millis(100)).await;
            }
        }
    };
    serve::run(
        &config,
        |addr: SocketAddr| {
            if !addr.ip().is_loopback() {
                say!(
                    "pgnindex: note: listening on {addr}, not a loopback address: {path} is \
                     readable from the network"
                );
            }
            say!("pgnindex: serving {path} at http://{addr}/ (Ctrl-C stops)");
        },
        stopping,
    )?;
    say!("pgnindex: stopped");
    Ok(Exit::Success)
}
