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

http://127.0.0.1:9002/ is a web page with a board: play moves, see the
explorer's table and open the games, with their clocks and evaluations.

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
    /// The address to listen on: `HOST:PORT` (an IP address or a host
    /// name: `127.0.0.1:9002`, `localhost:8080`, `[::1]:9002`), a host
    /// alone (port 9002) or a port alone (on 127.0.0.1). Anything but a
    /// loopback address makes the database readable from the network.
    #[arg(long, value_name = "ADDR", default_value = "127.0.0.1:9002", value_parser = parse_bind)]
    bind: SocketAddr,
    /// The port to listen on, in place of `--bind`'s (0: any free port).
    #[arg(long, value_name = "PORT")]
    port: Option<u16>,
    /// Add `Access-Control-Allow-Origin: *`, for web pages served from
    /// elsewhere.
    #[arg(long)]
    cors: bool,
    /// A database of masters games that `/masters` and `/masters/pgn/ID`
    /// answer from (for example one imported from TWIC). Without it they
    /// answer from the games of `--db` that lichess's masters collection
    /// would hold: both players rated, averaging 2200 or more, not played
    /// online.
    #[arg(long, value_name = "PATH")]
    masters: Option<std::path::PathBuf>,
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
    let stop = interrupt::flag("pgnindex: interrupted again: stopped at once")?;
    let cores = std::thread::available_parallelism().map_or(2, usize::from);
    let connections = args.connections.map_or(cores.max(2), usize::from);
    let mut limits = Limits::for_reads(connections);
    if let Some(n) = args.max_clients {
        limits.max_connections = usize::try_from(n).unwrap_or(usize::MAX);
    }
    limits.header_timeout = Duration::from_secs(args.client_timeout.into());
    limits.write_timeout = limits.header_timeout;
    let mut bind = args.bind;
    if let Some(port) = args.port {
        bind.set_port(port);
    }
    let config = Config {
        db: args.db.path(),
        masters: args.masters.clone(),
        bind,
        cors: args.cors,
        connections,
        limits,
    };
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

/// The port of a `--bind` that names none.
const DEFAULT_PORT: u16 = 9002;

/// Reads `--bind`: `HOST:PORT`, `HOST` or `PORT`, a host being an IP
/// address (IPv6 in brackets with a port) or a name, resolved now; a name
/// with several addresses takes the first, IPv4 before IPv6.
fn parse_bind(text: &str) -> Result<SocketAddr, String> {
    let text = text.trim();
    if let Ok(port) = text.parse::<u16>() {
        return Ok(SocketAddr::from(([127, 0, 0, 1], port)));
    }
    if let Ok(addr) = text.parse::<SocketAddr>() {
        return Ok(addr);
    }
    let bare = text.strip_prefix('[').and_then(|t| t.strip_suffix(']')).unwrap_or(text);
    if let Ok(ip) = bare.parse::<std::net::IpAddr>() {
        return Ok(SocketAddr::new(ip, DEFAULT_PORT));
    }
    let (host, port) = match text.rsplit_once(':') {
        Some((host, port)) => {
            let port = port.parse::<u16>().map_err(|_| {
                format!("'{port}' is not a port (0 to 65535); examples: localhost:9002, 9002")
            })?;
            (host, port)
        }
        None => (text, DEFAULT_PORT),
    };
    if host.is_empty() || host.contains(|c: char| c.is_whitespace() || c == '/' || c == ':') {
        return Err(format!(
            "'{text}' is not an address; examples: 127.0.0.1:9002, localhost:9002, 9002, 0.0.0.0"
        ));
    }
    let mut found: Vec<SocketAddr> = std::net::ToSocketAddrs::to_socket_addrs(&(host, port))
        .map_err(|e| format!("cannot resolve host '{host}': {e}"))?
        .collect();
    found.sort_by_key(SocketAddr::is_ipv6);
    found.first().copied().ok_or_else(|| format!("host '{host}' has no address"))
}

#[cfg(test)]
mod tests {
    use super::parse_bind;

    #[test]
    fn bind_takes_addresses_host_names_and_bare_ports() {
        let ok = |text: &str| parse_bind(text).map(|a| a.to_string());
        assert_eq!(ok("127.0.0.1:9002").as_deref(), Ok("127.0.0.1:9002"));
        assert_eq!(ok("9123").as_deref(), Ok("127.0.0.1:9123"));
        assert_eq!(ok("0.0.0.0").as_deref(), Ok("0.0.0.0:9002"));
        assert_eq!(ok("[::1]:80").as_deref(), Ok("[::1]:80"));
        assert_eq!(ok("::1").as_deref(), Ok("[::1]:9002"));
        let local = parse_bind("localhost:42053").unwrap();
        assert!(local.ip().is_loopback() && local.port() == 42053, "{local}");
        assert!(parse_bind("localhost").unwrap().ip().is_loopback());
        assert!(parse_bind("localhost:99999").unwrap_err().contains("'99999' is not a port"));
        assert!(parse_bind("a b:80").unwrap_err().contains("is not an address"));
        assert!(parse_bind("").unwrap_err().contains("is not an address"));
    }
}
