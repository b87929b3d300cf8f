//! `pgnindex serve`: lichess's explorer API over a real server process,
//! its counts against `pgnindex explore`, its refusals, and berserk (the
//! Python client of lichess's API) as a real client.

use crate::common;

use std::io::{BufRead, BufReader, Read, Write};
use std::net::{SocketAddr, TcpStream};
use std::path::Path;
use std::process::{Child, Stdio};
use std::time::Duration;

use serde_json::Value;

use common::{arg, fixture, scratch};

/// A running `pgnindex serve`, stopped by SIGTERM when dropped.
struct Server {
    child: Child,
    addr: SocketAddr,
    stderr: std::sync::mpsc::Receiver<String>,
}

impl Server {
    fn start(db: &Path, extra: &[&str]) -> Server {
        Server::start_with_files(db, extra, None)
    }

    /// [`Server::start`] with the open-file limit lowered to `files`.
    fn start_with_files(db: &Path, extra: &[&str], files: Option<u64>) -> Server {
        let mut command = common::command();
        if let Some(files) = files {
            use std::os::unix::process::CommandExt;
            // SAFETY: setrlimit(2) only, between fork and exec.
            unsafe {
                command.pre_exec(move || {
                    let limit = libc::rlimit { rlim_cur: files, rlim_max: files };
                    if libc::setrlimit(libc::RLIMIT_NOFILE, &limit) == 0 {
                        Ok(())
                    } else {
                        Err(std::io::Error::last_os_error())
                    }
                })
            };
        }
        Server::spawn(command, db, extra)
    }

    /// [`Server::start`] from `command`.
    fn spawn(mut command: std::process::Command, db: &Path, extra: &[&str]) -> Server {
        command.args(["serve", "--db", arg(db)]);
        if !extra.contains(&"--bind") {
            command.args(["--bind", "127.0.0.1:0"]);
        }
        let mut child = command
            .args(extra)
            .stdout(Stdio::null())
            .stderr(Stdio::piped())
            .spawn()
            .expect("pgnindex serve starts");
        let (tx, rx) = std::sync::mpsc::channel();
        let stderr = child.stderr.take().unwrap();
        std::thread::spawn(move || {
            for line in BufReader::new(stderr).lines() {
                let Ok(line) = line else { break };
                if tx.send(line).is_err() {
                    break;
                }
            }
        });
        let line =
            rx.recv_timeout(Duration::from_secs(30)).expect("the server says where it listens");
        let addr = line
            .split("http://")
            .nth(1)
            .and_then(|rest| rest.split('/').next())
            .and_then(|a| a.parse().ok())
            .unwrap_or_else(|| panic!("no address in {line:?}"));
        Server { child, addr, stderr: rx }
    }

    /// A client of the server at `addr`, for another thread.
    fn probe(addr: SocketAddr) -> Probe {
        Probe { addr }
    }

    /// One request; the status, the headers (lower-case names) and the body.
    fn request(&self, method: &str, target: &str) -> (u16, Vec<(String, String)>, String) {
        Server::probe(self.addr).request(method, target)
    }

    fn get_json(&self, target: &str) -> Value {
        let (status, _, body) = self.request("GET", target);
        assert_eq!(status, 200, "{target}: {body}");
        serde_json::from_str(body.trim()).unwrap_or_else(|e| panic!("{target}: {e}: {body}"))
    }

    /// Stops the server as Ctrl-C would; its exit status and last line.
    fn stop(mut self) -> (std::process::ExitStatus, String) {
        // SAFETY: kill(2) on our own child's pid.
        unsafe { libc::kill(self.child.id() as i32, libc::SIGTERM) };
        let deadline = std::time::Instant::now() + Duration::from_secs(30);
        let status = loop {
            if let Some(status) = self.child.try_wait().unwrap() {
                break status;
            }
            assert!(std::time::Instant::now() < deadline, "the server did not stop within 30 s");
            std::thread::sleep(Duration::from_millis(20));
        };
        let rest: Vec<String> = self.stderr.try_iter().collect();
        (status, rest.join("\n"))
    }
}

/// A client of a running server.
struct Probe {
    addr: SocketAddr,
}

impl Probe {
    /// One request; the status, the headers (lower-case names) and the body.
    fn request(&self, method: &str, target: &str) -> (u16, Vec<(String, String)>, String) {
        let mut stream = TcpStream::connect(self.addr).unwrap();
        stream.set_read_timeout(Some(Duration::from_secs(60))).unwrap();
        write!(
            stream,
            "{method} {target} HTTP/1.1\r\nHost: {}\r\nAuthorization: Bearer lip_x\r\nConnection: close\r\n\r\n",
            self.addr
        )
        .unwrap();
        let mut raw = Vec::new();
        stream.read_to_end(&mut raw).unwrap();
        let text = String::from_utf8(raw).expect("UTF-8 answer");
        let (head, body) = text.split_once("\r\n\r\n").expect("a complete answer");
        let mut lines = head.lines();
        let status = lines.next().unwrap().split(' ').nth(1).unwrap().parse().unwrap();
        let headers = lines
            .filter_map(|l| l.split_once(':'))
            .map(|(k, v)| (k.trim().to_ascii_lowercase(), v.trim().to_string()))
            .collect();
        (status, headers, body.to_string())
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// A database of the lichess, chess.com and OTB fixtures (TWIC's games of
/// online events, and OTB games of masters).
fn database(dir: &common::Scratch) -> std::path::PathBuf {
    let db = dir.join("games.db");
    let games = common::games_dir();
    common::import(
        &db,
        &[
            arg(&games.join("lichess/chessjs-benchmark-lichess-2013.pgn")),
            arg(&games.join("lichess/lichess_DannyTheDonkey_2019-01-29.pgn")),
            arg(&games.join("chesscom/schmitz874-chesscom-live.pgn")),
            arg(&games.join("otb/twic-01-232games.pgn")),
            arg(&fixture("serve/carlsen-otb-150.pgn")),
        ],
    )
    .success();
    db
}

/// The rows of `explore --format json`.
fn explore_rows(db: &Path, args: &[&str]) -> Vec<Value> {
    let out = common::pgnindex()
        .args(["explore", "--db", arg(db), "--format", "json"])
        .args(args)
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    serde_json::from_slice(&out.stdout).unwrap()
}

/// `explore --format json` rows: uci → (white, draws, black).
fn explore_counts(db: &Path, args: &[&str]) -> Vec<(String, u64, u64, u64)> {
    explore_rows(db, args)
        .iter()
        .map(|r| {
            let n = |k: &str| r[k].as_u64().unwrap();
            (r["uci"].as_str().unwrap().to_string(), n("white_wins"), n("draws"), n("black_wins"))
        })
        .collect()
}

/// `explore --format json` rows: uci → average rating.
fn explore_averages(db: &Path, args: &[&str]) -> Vec<(String, Option<i64>)> {
    let mut averages: Vec<(String, Option<i64>)> = explore_rows(db, args)
        .iter()
        .map(|r| (r["uci"].as_str().unwrap().to_string(), r["avg_elo"].as_i64()))
        .collect();
    averages.sort();
    averages
}

/// The explorer's moves in the same form, castling back to the king's
/// two-square move as `explore` writes it.
fn api_counts(answer: &Value) -> Vec<(String, u64, u64, u64)> {
    answer["moves"]
        .as_array()
        .unwrap()
        .iter()
        .map(|m| {
            let uci = match m["uci"].as_str().unwrap() {
                "e1h1" if m["san"].as_str().unwrap().starts_with("O-O") => "e1g1",
                "e1a1" if m["san"].as_str().unwrap().starts_with("O-O") => "e1c1",
                "e8h8" if m["san"].as_str().unwrap().starts_with("O-O") => "e8g8",
                "e8a8" if m["san"].as_str().unwrap().starts_with("O-O") => "e8c8",
                other => other,
            };
            let n = |k: &str| m[k].as_u64().unwrap();
            (uci.to_string(), n("white"), n("draws"), n("black"))
        })
        .collect()
}

#[test]
fn explorer_counts_equal_explore() {
    let dir = scratch();
    let db = database(&dir);
    let server = Server::start(&db, &[]);
    let cases: [(&str, &[&str]); 9] = [
        ("/lichess?moves=100", &[]),
        // Past the tree's plies: every game's summary read.
        (
            "/lichess?play=e2e4,c7c5,g1f3,d7d6,d2d4,c5d4,f3d4&moves=100",
            &["--moves", "e2e4 c7c5 g1f3 d7d6 d2d4 c5d4 f3d4"],
        ),
        ("/lichess?play=e2e4,c7c5&moves=100", &["--moves", "e2e4 c7c5"]),
        (
            "/lichess?play=e2e4&speeds=bullet,blitz&moves=100",
            &["--moves", "e2e4", "--speed", "bullet,blitz"],
        ),
        (
            "/lichess?play=e2e4&ratings=1600,1800,2000&since=2017-12&until=2021-06&moves=100",
            &[
                "--moves",
                "e2e4",
                "--rating-group",
                "1600,1800,2000",
                "--since",
                "2017-12",
                "--until",
                "2021-06",
            ],
        ),
        (
            "/masters?play=d2d4,g8f6&since=1990&moves=100",
            &["--moves", "d2d4 g8f6", "--since", "1990", "--masters"],
        ),
        ("/masters?moves=100", &["--masters"]),
        (
            "/player?player=dannythedonkey&color=white&play=e2e4&moves=100",
            &["--moves", "e2e4", "--white", "dannythedonkey", "--exact-names"],
        ),
        (
            "/lichess?fen=rnbqkbnr/pppp1ppp/8/4p3/4P3/5N2/PPPP1PPP/RNBQKB1R_b_KQkq_-_1_2&moves=100",
            &["--fen", "rnbqkbnr/pppp1ppp/8/4p3/4P3/5N2/PPPP1PPP/RNBQKB1R b KQkq - 1 2"],
        ),
    ];
    for (target, args) in cases {
        let answer = server.get_json(target);
        let expected = explore_counts(&db, args);
        assert!(!expected.is_empty(), "{target}: the case tests nothing");
        let mut got = api_counts(&answer);
        let mut want = expected.clone();
        got.sort();
        want.sort();
        assert_eq!(got, want, "{target}");
        if !target.starts_with("/player") {
            let mut averages: Vec<(String, Option<i64>)> = api_counts(&answer)
                .into_iter()
                .zip(answer["moves"].as_array().unwrap())
                .map(|(row, m)| (row.0, m["averageRating"].as_i64()))
                .collect();
            averages.sort();
            // Lichess's schema requires the integer: 0 where none is rated.
            let want: Vec<(String, Option<i64>)> = explore_averages(&db, args)
                .into_iter()
                .map(|(uci, avg)| (uci, Some(avg.unwrap_or(0))))
                .collect();
            assert_eq!(averages, want, "{target}: average ratings");
        }
        let total = |i: usize| expected.iter().map(|r| [r.1, r.2, r.3][i]).sum::<u64>();
        assert_eq!(
            (answer["white"].as_u64(), answer["draws"].as_u64(), answer["black"].as_u64()),
            (Some(total(0)), Some(total(1)), Some(total(2))),
            "{target}"
        );
    }
    // `moves` limits the rows, most played first.
    let two = server.get_json("/lichess?moves=2");
    assert_eq!(two["moves"].as_array().unwrap().len(), 2);
    assert_eq!(two["moves"][0]["uci"], "e2e4");
}

#[test]
fn answers_have_lichess_s_fields() {
    let dir = scratch();
    let db = database(&dir);
    let server = Server::start(&db, &[]);
    let a = server.get_json("/lichess?play=e2e4,c7c5&history=true");
    assert_eq!(a["opening"]["eco"], "B20");
    assert_eq!(a["opening"]["name"], "Sicilian Defense");
    let m = &a["moves"][0];
    for field in ["uci", "san", "averageRating", "white", "draws", "black", "game", "opening"] {
        assert!(m.get(field).is_some(), "moves[0] has no {field}: {m}");
    }
    let top = a["topGames"].as_array().unwrap();
    let recent = a["recentGames"].as_array().unwrap();
    assert_eq!((top.len(), recent.len()), (4, 4), "lichess lists 8 games, up to 4 top ones");
    let g = &top[0];
    for field in ["uci", "id", "winner", "white", "black", "year", "month"] {
        assert!(g.get(field).is_some(), "topGames[0] has no {field}: {g}");
    }
    assert!(g["white"]["name"].is_string() && g["white"]["rating"].is_i64());
    // Top games come from the groups from 2000 up; no game is in both lists.
    let rating = |g: &Value, side: &str| g[side]["rating"].as_i64().unwrap();
    assert!(top.iter().all(|g| rating(g, "white") + rating(g, "black") >= 4000), "{top:?}");
    let id = |g: &Value| g["id"].as_str().unwrap().to_string();
    assert!(recent.iter().all(|r| top.iter().all(|t| id(t) != id(r))));
    // Without those groups, no top games, and 8 recent ones.
    let low = server.get_json("/lichess?play=e2e4&ratings=0,1000,1200,1400,1600,1800,2000,2200");
    assert_eq!(low["topGames"].as_array().unwrap().len(), 0);
    assert_eq!(low["recentGames"].as_array().unwrap().len(), 8);
    // Recent: the games stored last.
    let ids: Vec<u64> = recent.iter().map(|g| g["id"].as_str().unwrap().parse().unwrap()).collect();
    assert!(ids.windows(2).all(|w| w[0] > w[1]), "{ids:?}");
    let history = a["history"].as_array().unwrap();
    assert!(!history.is_empty());
    let months: Vec<&str> = history.iter().map(|h| h["month"].as_str().unwrap()).collect();
    assert!(months.windows(2).all(|w| w[0] < w[1]));
    // A move one game played names the game; it is listed by id.
    let single = a["moves"].as_array().unwrap().iter().find(|m| {
        m["white"].as_u64().unwrap() + m["draws"].as_u64().unwrap() + m["black"].as_u64().unwrap()
            == 1
    });
    if let Some(single) = single {
        assert!(single["game"]["id"].is_string(), "{single}");
    }
    // Castling is written king takes rook, as lichess does.
    let castles = server.get_json("/lichess?play=e2e4,e7e5,g1f3,b8c6,f1c4,g8f6&moves=50");
    let ucis: Vec<&str> =
        castles["moves"].as_array().unwrap().iter().map(|m| m["uci"].as_str().unwrap()).collect();
    assert!(ucis.contains(&"e1h1"), "{ucis:?}");
    // /masters: top games only, no speed or mode.
    let masters = server.get_json("/masters?play=d2d4");
    assert!(masters.get("recentGames").is_none());
    let g = &masters["topGames"][0];
    assert!(g.get("speed").is_none() && g.get("mode").is_none(), "{g}");
    // Added to lichess's fields: the result (a draw and an unfinished game
    // both have no winner), the event and the round where known.
    let listed = masters["topGames"].as_array().unwrap();
    assert!(listed.iter().all(|g| matches!(
        (g["winner"].as_str(), g["result"].as_str()),
        (Some("white"), Some("1-0")) | (Some("black"), Some("0-1")) | (None, Some("1/2-1/2" | "*"))
    )));
    assert!(listed.iter().any(|g| g["event"].is_string() && g["round"].is_string()), "{listed:?}");
    let (_, _, body) = server.request("GET", "/player?player=Carlsen,M&color=black");
    let carlsen: Value = serde_json::from_str(body.trim()).unwrap();
    let g = &carlsen["recentGames"][0];
    assert_eq!(
        (g["event"].as_str(), g["round"].as_str()),
        (Some("World Blitz 2019"), Some("21.1"))
    );
    // /player: ND-JSON, one line; recent games only.
    let (status, headers, body) =
        server.request("GET", "/player?player=DannyTheDonkey&color=black");
    assert_eq!(status, 200);
    assert!(
        headers.contains(&("content-type".into(), "application/x-ndjson".into())),
        "{headers:?}"
    );
    assert_eq!(body.lines().count(), 1);
    let p: Value = serde_json::from_str(body.trim()).unwrap();
    assert!(p.get("topGames").is_none() && p["recentGames"].as_array().unwrap().len() <= 8);
    // The old routes answer as the new ones.
    assert_eq!(server.get_json("/master?play=d2d4"), masters);
}

#[test]
fn top_games_are_the_same_with_the_speeds_held_in_memory_or_read_from_the_rows() {
    let dir = scratch();
    let db = database(&dir);
    // The same games where the summary index lacks the speed, as a
    // database of version 26 has it: the server reads each speed from its
    // game's row there.
    let older = dir.join("older.db");
    std::fs::copy(&db, &older).unwrap();
    let conn = rusqlite::Connection::open(&older).unwrap();
    conn.execute_batch(
        "DROP INDEX games_summary; \
         CREATE INDEX games_summary ON game_rows(id, result, white_elo, black_elo, date, year, \
         month, day, eco, event_id); PRAGMA user_version = 26;",
    )
    .unwrap();
    drop(conn);
    let (held, read) = (Server::start(&db, &[]), Server::start(&older, &[]));
    let mut speeds = std::collections::BTreeSet::new();
    // Lines where bullet games rank among OTB ones, and the usual ones.
    for line in
        ["", "&play=e2e4", "&play=e2e4,g8f6", "&play=d2d4,c7c5", "&play=b2b3", "&play=c2c4,e7e6"]
    {
        let target = format!("/lichess?topGames=15&recentGames=0{line}");
        let (a, b) = (held.get_json(&target), read.get_json(&target));
        assert_eq!(a["topGames"], b["topGames"], "{target}");
        for g in a["topGames"].as_array().unwrap() {
            speeds.insert(g.get("speed").map(Value::to_string));
        }
    }
    assert!(speeds.len() >= 2, "top games of one speed only: {speeds:?}");
    held.stop();
    read.stop();
}

#[test]
fn a_player_s_moves_have_the_opponents_average_and_the_performance() {
    let dir = scratch();
    let db = database(&dir);
    let server = Server::start(&db, &[]);
    let (_, _, body) = server.request("GET", "/player?player=dannythedonkey&color=black");
    let answer: Value = serde_json::from_str(body.trim()).unwrap();
    assert_eq!(answer["queuePosition"], 0);
    // The player is Black: White's ratings, by White's first move.
    let conn = common::open(&db);
    let mut want: Vec<(String, i64)> = conn
        .prepare(
            "SELECT substr(moves, 1, instr(moves || ' ', ' ') - 1) AS first, \
             CAST(round(avg(white_elo)) AS INTEGER) FROM games \
             WHERE lower(black) = 'dannythedonkey' AND white_elo IS NOT NULL GROUP BY first",
        )
        .unwrap()
        .query_map([], |r| Ok((r.get(0)?, r.get(1)?)))
        .unwrap()
        .map(Result::unwrap)
        .collect();
    want.sort();
    let moves = answer["moves"].as_array().unwrap();
    let mut got: Vec<(String, i64)> = moves
        .iter()
        .map(|m| {
            assert!(m.get("averageRating").is_none(), "{m}");
            (m["san"].as_str().unwrap().to_string(), m["averageOpponentRating"].as_i64().unwrap())
        })
        .collect();
    got.sort();
    assert!(got.len() > 3, "{got:?}");
    assert_eq!(got, want);
    // A performance is the opponents' average moved by the score: up for
    // a plus score of the player (Black), down for a minus one.
    for m in moves {
        let n = |k: &str| m[k].as_i64().unwrap();
        let (avg, perf) = (n("averageOpponentRating"), n("performance"));
        match n("black").cmp(&n("white")) {
            std::cmp::Ordering::Greater => assert!(perf > avg, "{m}"),
            std::cmp::Ordering::Less => assert!(perf < avg, "{m}"),
            std::cmp::Ordering::Equal => assert_eq!(perf, avg, "{m}"),
        }
        assert!((avg - 800..=avg + 800).contains(&perf), "{m}");
    }
}

#[test]
fn a_move_s_average_rating_is_that_of_the_players_who_made_it() {
    let dir = scratch();
    let db = dir.join("odd.db");
    let odd = dir.write("odd.pgn", ODD_GAMES);
    common::import(&db, &[arg(&odd)]).success();
    let server = Server::start(&db, &[]);
    let average = |target: &str, uci: &str| {
        let answer = server.get_json(target);
        let row = answer["moves"].as_array().unwrap().iter().find(|m| m["uci"] == uci).cloned();
        row.unwrap_or_else(|| panic!("{target}: no {uci}: {answer}"))["averageRating"].as_i64()
    };
    // 1. a3 by White rated 1500, 2250 and 2400 (and one unrated).
    assert_eq!(average("/lichess", "a2a3"), Some(2050));
    // 1... a6 by Black rated 2300 and 2500; 1... e5 by an unrated player.
    assert_eq!(average("/lichess?play=a2a3", "a7a6"), Some(2400));
    assert_eq!(average("/lichess?play=a2a3", "e7e5"), Some(0));
    // The same from the index (a filter) as from the tree.
    assert_eq!(average("/lichess?play=a2a3&since=1900-01", "a7a6"), Some(2400));
}

#[test]
fn history_runs_from_since_and_leaves_out_the_last_month_without_until() {
    let dir = scratch();
    let db = database(&dir);
    let server = Server::start(&db, &[]);
    let months = |target: &str| -> Vec<(String, u64)> {
        let answer = server.get_json(target);
        let history = answer["history"].as_array().unwrap_or_else(|| panic!("{target}: {answer}"));
        history
            .iter()
            .map(|m| {
                let n = |k: &str| m[k].as_u64().unwrap();
                (m["month"].as_str().unwrap().to_string(), n("white") + n("draws") + n("black"))
            })
            .collect()
    };
    let whole = months("/lichess?play=e2e4&history=true&until=3000-12");
    assert!(whole.len() > 2 && whole.last().unwrap().1 > 0, "{whole:?}");
    let open = months("/lichess?play=e2e4&history=true");
    assert_eq!(open[..], whole[..whole.len() - 1], "without until, the last month is left out");
    let since = months("/lichess?play=e2e4&history=true&since=1990-01&until=3000-12");
    assert_eq!(since[0], ("1990-01".to_string(), 0));
    assert_eq!(since[since.len() - whole.len()..], whole[..]);
    assert!(since[..since.len() - whole.len()].iter().all(|m| m.1 == 0));
    // lichess's older route: the same answer with the history.
    assert_eq!(months("/lichess/history?play=e2e4"), open);
    assert_eq!(
        server.get_json("/lichess/history?play=e2e4&history=false"),
        server.get_json("/lichess?play=e2e4&history=true")
    );
}

#[test]
fn masters_are_the_rated_otb_games_or_a_database_of_their_own() {
    let dir = scratch();
    let db = database(&dir);
    let odd = dir.write("odd.pgn", ODD_GAMES);
    common::import(&db, &[arg(&odd)]).success();
    let server = Server::start(&db, &[]);
    // 1. a3: the OTB game averaging 2275 is a masters game; the online one
    // averaging 2450 (lichess.org), the unrated and the one-rated are not.
    let a3 = server.get_json("/masters?play=a2a3");
    let total = |v: &Value| ["white", "draws", "black"].map(|k| v[k].as_u64().unwrap());
    assert_eq!(total(&a3), [0, 1, 0], "{a3}");
    assert_eq!(api_counts(&a3), explore_counts(&db, &["--moves", "a3", "--masters"]));
    let lichess_a3 = server.get_json("/lichess?play=a2a3");
    assert_eq!(total(&lichess_a3).iter().sum::<u64>(), 3, "and a *");
    // Counted apart, beyond lichess's fields: the unfinished game.
    assert_eq!(lichess_a3["unfinished"], 1);
    let a6 = lichess_a3["moves"].as_array().unwrap().iter().find(|m| m["uci"] == "a7a6").unwrap();
    assert_eq!((a6["draws"].as_u64(), a6["unfinished"].as_u64()), (Some(1), Some(1)));
    let masters = server.get_json("/masters?moves=100");
    let mut got = api_counts(&masters);
    let mut want = explore_counts(&db, &["--masters"]);
    got.sort();
    want.sort();
    assert_eq!(got, want);
    let all: u64 = total(&server.get_json("/lichess?moves=100")).iter().sum();
    assert!(total(&masters).iter().sum::<u64>() < all);
    drop(server);

    // A database of its own: every game of it, its ids, its PGN.
    let twic = dir.join("twic.db");
    common::import(&twic, &[arg(&common::games_dir().join("otb/twic-01-232games.pgn"))]).success();
    let server = Server::start(&db, &["--masters", arg(&twic)]);
    let masters = server.get_json("/masters?moves=100&topGames=15");
    let mut got = api_counts(&masters);
    let mut want = explore_counts(&twic, &[]);
    got.sort();
    want.sort();
    assert_eq!(got, want);
    assert_eq!(total(&masters).iter().sum::<u64>(), 232);
    let id = masters["topGames"][0]["id"].as_str().unwrap().to_string();
    let (status, _, pgn) = server.request("GET", &format!("/masters/pgn/{id}"));
    assert_eq!(status, 200);
    let show = common::pgnindex().args(["show", "--db", arg(&twic), &id]).output().unwrap();
    assert_eq!(pgn.trim(), String::from_utf8_lossy(&show.stdout).trim());
    // The other routes read --db.
    assert_eq!(total(&server.get_json("/lichess?play=a2a3")).iter().sum::<u64>(), 3);
}

#[test]
fn game_pgn_is_show_s() {
    let dir = scratch();
    let db = database(&dir);
    let server = Server::start(&db, &[]);
    let show = common::pgnindex().args(["show", "--db", arg(&db), "7"]).output().unwrap();
    assert!(show.status.success());
    for route in ["/masters/pgn/7", "/master/pgn/7"] {
        let (status, headers, body) = server.request("GET", route);
        assert_eq!(status, 200);
        assert!(headers.contains(&("content-type".into(), "application/x-chess-pgn".into())));
        assert_eq!(body.as_bytes(), show.stdout, "{route}");
    }
    let (status, _, body) = server.request("GET", "/masters/pgn/99999");
    assert_eq!((status, body.trim()), (404, "not found: no game 99999"));
}

#[test]
fn bad_requests_get_a_reason_and_the_server_stays_up() {
    let dir = scratch();
    let db = database(&dir);
    let server = Server::start(&db, &[]);
    let long_play = format!("/lichess?play={}", "g1f3,g8f6,f3g1,f6g8,".repeat(600));
    let cases: Vec<(&str, String, u16, &str)> = vec![
        ("GET", "/lichess?fen=rnbqkbnr/pppppppp/8/8".into(), 400, "bad request: fen "),
        ("GET", "/lichess?fen=8/8/8/8/8/8/8/8_w_-_-".into(), 400, "bad request: fen "),
        ("GET", "/lichess?fen=%FF%FE".into(), 400, "bad request: fen "),
        ("GET", "/lichess?play=e2e5".into(), 400, "bad request: play: move 1 \"e2e5\""),
        ("GET", "/lichess?play=e2e4,e7e5,e1g1".into(), 400, "bad request: play: move 3"),
        ("GET", "/lichess?moves=many".into(), 400, "bad request: moves: \"many\""),
        ("GET", "/lichess?topGames=-4".into(), 400, "bad request: topGames: \"-4\""),
        ("GET", "/lichess?moves=99999999999999999999999".into(), 400, "bad request: moves: "),
        ("GET", "/lichess?speeds=blitz,warp".into(), 400, "bad request: speeds: \"warp\""),
        ("GET", "/lichess?ratings=9%2C".into(), 200, ""),
        ("GET", "/lichess?since=2020-1x".into(), 400, "bad request: since: "),
        ("GET", "/lichess?variant=crazyhouse".into(), 400, "bad request: variant \"crazyhouse\""),
        (
            "GET",
            "/lichess?play=e2e4&play=d2d4".into(),
            400,
            "bad request: play is given more than once",
        ),
        ("GET", long_play, 400, "bad request: the query is "),
        ("GET", "/player?color=white".into(), 400, "bad request: player is required"),
        ("GET", "/player?player=x&color=green".into(), 400, "bad request: color: \"green\""),
        ("GET", "/../../etc/passwd".into(), 404, "not found: "),
        ("GET", "/%2e%2e/%2e%2e/etc/passwd".into(), 404, "not found: "),
        ("GET", "/masters/pgn/..%2F..%2Fetc%2Fpasswd".into(), 404, "not found: no game "),
        ("GET", "/masters/pgn/-1".into(), 404, "not found: no game "),
        ("POST", "/lichess".into(), 405, "bad request: POST is not allowed"),
        ("DELETE", "/masters/pgn/1".into(), 405, "bad request: DELETE is not allowed"),
        ("PUT", "/import/lichess".into(), 404, "not found: "),
    ];
    for (method, target, status, reason) in &cases {
        let (got, headers, body) = server.request(method, target);
        let shown: String = target.chars().take(80).collect();
        assert_eq!(got, *status, "{method} {shown}: {body}");
        assert!(body.starts_with(reason), "{method} {shown}: {body}");
        if *status >= 400 {
            assert_eq!(body.lines().count(), 1, "{method} {shown}: one line: {body}");
            assert!(
                headers.iter().any(|(k, v)| k == "content-type" && v.starts_with("text/plain")),
                "{headers:?}"
            );
        }
    }
    // A header of 1 MB is refused by the HTTP layer (an answer of 4xx or a
    // closed connection), not a crash.
    let mut stream = TcpStream::connect(server.addr).unwrap();
    stream.set_read_timeout(Some(Duration::from_secs(30))).unwrap();
    let huge = "x".repeat(1 << 20);
    let _ = write!(
        stream,
        "GET /lichess HTTP/1.1\r\nHost: a\r\nX-Big: {huge}\r\nConnection: close\r\n\r\n"
    );
    let mut answer = String::new();
    let _ = stream.read_to_string(&mut answer);
    assert!(answer.is_empty() || answer.starts_with("HTTP/1.1 4"), "{answer:.100}");
    // Still up, and it answers.
    assert!(server.get_json("/lichess?play=e2e4")["moves"][0]["uci"].is_string());
    let (status, tail) = server.stop();
    assert!(status.success(), "{status:?} {tail}");
    assert!(tail.contains("pgnindex: stopped"), "{tail}");
}

#[test]
fn cors_only_when_asked() {
    let dir = scratch();
    let db = database(&dir);
    let header = |server: &Server| {
        let (_, headers, _) = server.request("GET", "/lichess?moves=1");
        headers.into_iter().find(|(k, _)| k == "access-control-allow-origin").map(|(_, v)| v)
    };
    assert_eq!(header(&Server::start(&db, &[])), None);
    assert_eq!(header(&Server::start(&db, &["--cors"])).as_deref(), Some("*"));
}

#[test]
fn refuses_what_it_cannot_serve() {
    let dir = scratch();
    let missing = common::pgnindex()
        .args(["serve", "--db", arg(&dir.join("none.db")), "--bind", "127.0.0.1:0"])
        .output()
        .unwrap();
    assert_eq!(missing.status.code(), Some(2));
    let err = String::from_utf8_lossy(&missing.stderr);
    assert_eq!(err.lines().count(), 1, "{err}");
    assert!(err.starts_with("pgnindex: error: ") && err.contains("none.db"), "{err}");
    // Without a position index there is nothing to explore.
    let db = dir.join("headers.db");
    common::import(&db, &["--no-positions", arg(&fixture("pgn/games/otb/twic-01-232games.pgn"))])
        .success();
    let out = common::pgnindex()
        .args(["serve", "--db", arg(&db), "--bind", "127.0.0.1:0"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.starts_with("pgnindex: error: ") && err.contains("--no-positions"), "{err}");
    // A port in use.
    let db = database(&dir);
    let server = Server::start(&db, &[]);
    let out = common::pgnindex()
        .args(["serve", "--db", arg(&db), "--bind", &server.addr.to_string()])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains(&format!("cannot listen on {}", server.addr)), "{err}");
}

#[test]
fn an_import_beside_it_is_seen() {
    let dir = scratch();
    let db = dir.join("growing.db");
    let games = common::games_dir();
    common::import(&db, &[arg(&games.join("otb/twic-01-232games.pgn"))]).success();
    let server = Server::start(&db, &[]);
    let count =
        |a: &Value| ["white", "draws", "black"].iter().map(|k| a[k].as_u64().unwrap()).sum::<u64>();
    let before = count(&server.get_json("/lichess"));
    common::import(&db, &[arg(&games.join("lichess/chessjs-benchmark-lichess-2013.pgn"))])
        .success();
    let after = count(&server.get_json("/lichess"));
    assert!(after > before, "{before} → {after}");
    assert_eq!(after, explore_counts(&db, &[]).iter().map(|r| r.1 + r.2 + r.3).sum::<u64>());
}

#[test]
fn berserk_reads_the_same_counts() {
    let Some(python) = common::python_with("berserk") else { return };
    let dir = scratch();
    let db = database(&dir);
    // Masters from a database of their own.
    let masters = dir.join("masters.db");
    common::import(&masters, &[arg(&fixture("serve/carlsen-otb-150.pgn"))]).success();
    let server = Server::start(&db, &["--masters", arg(&masters)]);
    let script = common::repo("tests/serve_berserk.py");
    let out =
        python.command().arg(&script).arg(format!("http://{}", server.addr)).output().unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    // One JSON line per call: its name, then what berserk returned.
    let text = String::from_utf8(out.stdout).unwrap();
    let mut calls = 0;
    for line in text.lines() {
        let call: Value = serde_json::from_str(line).unwrap();
        let name = call["call"].as_str().unwrap();
        let answer = &call["answer"];
        let args: Vec<String> = call["explore"]
            .as_array()
            .unwrap()
            .iter()
            .map(|a| a.as_str().unwrap().to_string())
            .collect();
        let db = if name.contains("master") { &masters } else { &db };
        if name == "get_otb_master_game" {
            let show = common::pgnindex().args(["show", "--db", arg(db), "3"]).output().unwrap();
            assert_eq!(
                answer.as_str().unwrap().trim(),
                String::from_utf8_lossy(&show.stdout).trim()
            );
            calls += 1;
            continue;
        }
        let args: Vec<&str> = args.iter().map(String::as_str).collect();
        let mut got = api_counts(answer);
        let mut want = explore_counts(db, &args);
        got.sort();
        want.sort();
        assert!(!want.is_empty(), "{name}: tests nothing");
        assert_eq!(got, want, "{name} {args:?}");
        calls += 1;
    }
    assert_eq!(calls, 7, "{text}");
}

/// Games of every kind the explorer's answers must describe: unrated,
/// rated on one side only, undated, dated to the month or year only,
/// untimed, unfinished, OTB with names that are no lichess user name.
const ODD_GAMES: &str = r#"[Event "?"]
[Site "?"]
[Date "????.??.??"]
[Round "?"]
[White "Anon"]
[Black "Nobody"]
[Result "*"]

1. a3 a6 2. h3 h6 *

[Event "Rated Blitz game"]
[Site "https://lichess.org/abcdefgh"]
[Date "2024.05.??"]
[Round "-"]
[White "Anon"]
[Black "Someone"]
[Result "1-0"]
[WhiteElo "1500"]
[TimeControl "180+0"]

1. a3 e5 2. h3 d5 1-0

[Event "Club championship"]
[Site "Oslo NOR"]
[Date "1999.??.??"]
[Round "3"]
[White "Smith, John"]
[Black "Anon"]
[Result "1/2-1/2"]
[WhiteElo "2250"]
[BlackElo "2300"]

1. a3 a6 2. h4 1/2-1/2

[Event "Casual Correspondence game"]
[Site "https://lichess.org/bcdefghi"]
[Date "2023.01.02"]
[Round "-"]
[White "Smith, John"]
[Black "Anon"]
[Result "0-1"]
[WhiteElo "2400"]
[BlackElo "2500"]
[TimeControl "-"]

1. a3 a6 2. h4 h5 0-1
"#;

#[test]
fn every_answer_fits_lichess_s_published_schema() {
    let Some(python) = common::python_with("jsonschema") else { return };
    let dir = scratch();
    let db = database(&dir);
    let odd = dir.write("odd.pgn", ODD_GAMES);
    common::import(&db, &[arg(&odd)]).success();
    let server = Server::start(&db, &[]);
    let lines = [
        "",
        "play=e2e4",
        "play=e2e4,c7c5",
        "play=a2a3",
        "play=a2a3,a7a6",
        "play=a2a3,a7a6,h2h4",
        "play=d2d4,g8f6,c2c4",
    ];
    let filters = [
        "",
        "&history=true",
        "&ratings=0,1000",
        "&ratings=2000,2200,2500",
        "&speeds=blitz,correspondence",
        "&topGames=0&recentGames=8",
        "&topGames=4&recentGames=4&moves=100",
        "&since=2000-01&until=2030-12&history=true",
    ];
    let mut targets = Vec::new();
    for line in lines {
        for filter in filters {
            for route in ["/lichess", "/masters"] {
                targets.push(format!("{route}?{line}{filter}"));
            }
        }
        for (player, color) in [
            ("Anon", "white"),
            ("Anon", "black"),
            ("Smith,%20John", "white"),
            ("dannythedonkey", "black"),
            ("NoSuchPlayer", "white"),
        ] {
            for filter in ["", "&modes=rated", "&recentGames=1&moves=1"] {
                targets.push(format!("/player?player={player}&color={color}&{line}{filter}"));
            }
        }
    }
    let mut child = python
        .command()
        .arg(common::repo("tests/serve_schema.py"))
        .arg(format!("http://{}", server.addr))
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    child.stdin.take().unwrap().write_all(targets.join("\n").as_bytes()).unwrap();
    let out = child.wait_with_output().unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success(), "{stdout}{}", String::from_utf8_lossy(&out.stderr));
    assert_eq!(stdout.trim(), format!("ok {}", targets.len()));
}

#[test]
fn the_page_in_a_real_browser() {
    let Some(python) = common::python_with("selenium") else { return };
    if !Path::new("/usr/bin/chromedriver").exists() {
        let required =
            std::env::var_os(common::REQUIRE_REFERENCES).is_some_and(|v| !v.is_empty() && v != "0");
        assert!(
            !required,
            "chromium-driver is not installed, and {} is set",
            common::REQUIRE_REFERENCES
        );
        eprintln!("the_page_in_a_real_browser: skipped: chromium-driver is not installed (apt install chromium chromium-driver)");
        return;
    }
    let dir = scratch();
    let db = database(&dir);
    common::import(&db, &[arg(&fixture("plies/lichess.pgn"))]).success();
    // A game with clocks and evaluations, for the viewer's chart.
    let conn = common::open(&db);
    let game: i64 = conn
        .query_row(
            "SELECT game_id FROM plies WHERE eval IS NOT NULL AND clock IS NOT NULL \
             GROUP BY game_id HAVING count(*) > 10 ORDER BY game_id LIMIT 1",
            [],
            |r| r.get(0),
        )
        .unwrap();
    // A game without both ratings: a position only it reaches has no top games.
    let unrated: i64 = conn
        .query_row(
            "SELECT min(id) FROM games WHERE white_elo IS NULL OR black_elo IS NULL",
            [],
            |r| r.get(0),
        )
        .unwrap();
    let server = Server::start(&db, &[]);
    let shot = dir.join("page.png");
    let out = python
        .command()
        .arg(common::repo("tests/serve_browser.py"))
        .arg(format!("http://{}", server.addr))
        .arg(game.to_string())
        .arg(unrated.to_string())
        .arg(&shot)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}\n{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    assert_eq!(String::from_utf8_lossy(&out.stdout).trim(), "ok");
    let png = std::fs::read(&shot).unwrap();
    assert!(png.starts_with(b"\x89PNG") && png.len() > 10_000, "a screenshot of the page");
}

#[test]
fn players_are_found_by_a_part_of_the_name_in_any_case() {
    let dir = scratch();
    let db = database(&dir);
    let server = Server::start(&db, &[]);
    let conn = common::open(&db);
    let danny: u64 = conn
        .query_row(
            "SELECT count(*) FROM games WHERE white = 'DannyTheDonkey' OR black = 'DannyTheDonkey'",
            [],
            |r| r.get(0),
        )
        .unwrap();
    assert!(danny > 0);
    for part in ["dannythedon", "DANNY", "%20theDonkey%20"] {
        let names = server.get_json(&format!("/api/players?q={part}"));
        assert_eq!(
            names,
            serde_json::json!([{ "name": "DannyTheDonkey", "games": danny }]),
            "{part}"
        );
    }
    // At most 10, most games first; the counts are games with the name on
    // either side.
    let names = server.get_json("/api/players?q=a");
    let names = names.as_array().unwrap();
    assert_eq!(names.len(), 10);
    let games: Vec<u64> = names.iter().map(|n| n["games"].as_u64().unwrap()).collect();
    assert!(games.windows(2).all(|w| w[0] >= w[1]), "{games:?}");
    for n in names {
        let name = n["name"].as_str().unwrap();
        assert!(name.to_ascii_lowercase().contains('a'), "{name}");
        let count: u64 = conn
            .query_row(
                "SELECT count(*) FROM games WHERE lower(white) = lower(?1) OR lower(black) = lower(?1)",
                [name],
                |r| r.get(0),
            )
            .unwrap();
        assert_eq!(n["games"].as_u64(), Some(count), "{name}");
    }
    // `%` and `_` are text, not patterns.
    assert_eq!(server.get_json("/api/players?q=%25"), serde_json::json!([]));
    let underscored = server.get_json("/api/players?q=_");
    assert!(underscored
        .as_array()
        .unwrap()
        .iter()
        .all(|n| n["name"].as_str().unwrap().contains('_')));
    assert_eq!(server.get_json("/api/players?q=kasparov"), serde_json::json!([]));
    let long = "x".repeat(101);
    for (query, reason) in [
        ("", "bad request: q is required"),
        ("q=%20%20", "bad request: q is required"),
        ("q=a&q=b", "bad request: q is given more than once"),
        (&format!("q={long}"), "bad request: q: 101 characters, at most 100"),
    ] {
        let (status, _, body) = server.request("GET", &format!("/api/players?{query}"));
        assert_eq!((status, body.as_str()), (400, &*format!("{reason}\n")), "{query}");
    }
    assert_eq!(
        server.get_json(&format!("/api/players?q={}", "x".repeat(100))),
        serde_json::json!([])
    );
}

#[test]
fn the_page_and_its_routes() {
    let dir = scratch();
    let db = database(&dir);
    let server = Server::start(&db, &[]);
    for (path, kind) in [
        ("/", "text/html"),
        ("/assets/app.js", "text/javascript"),
        ("/assets/style.css", "text/css"),
    ] {
        let (status, headers, body) = server.request("GET", path);
        assert_eq!(status, 200, "{path}");
        assert!(
            headers.iter().any(|(k, v)| k == "content-type" && v.starts_with(kind)),
            "{path} {headers:?}"
        );
        assert!(!body.is_empty());
    }
    let (_, _, html) = server.request("GET", "/");
    assert!(!html.contains("http://") && !html.contains("https://"), "nothing from the network");
    for bad in
        ["/assets/../Cargo.toml", "/assets/%2e%2e%2fCargo.toml", "/assets/app.js/..", "/assets/"]
    {
        let (status, _, body) = server.request("GET", bad);
        assert_eq!(status, 404, "{bad}: {body}");
    }
    // The legal moves of a position, castling both ways.
    let p = server
        .get_json("/api/position?fen=r3k2r/pppppppp/8/8/8/8/PPPPPPPP/R3K2R_w_KQkq_-&play=a2a3");
    assert_eq!(p["turn"], "black");
    let moves = p["moves"].as_array().unwrap();
    let castle = moves.iter().find(|m| m["san"] == "O-O").unwrap();
    assert_eq!((castle["uci"].as_str(), castle["lichess"].as_str()), (Some("e8g8"), Some("e8h8")));
    assert_eq!((castle["from"].as_str(), castle["to"].as_str()), (Some("e8"), Some("g8")));
    // 16 pawn moves, 5 rook moves along the back rank, Kd8, Kf8, two castlings.
    assert_eq!(moves.len(), 16 + 5 + 2 + 2);
    let (status, _, body) = server.request("GET", "/api/position?play=e2e5");
    assert_eq!((status, body.starts_with("bad request: play: move 1")), (400, true));
    // A game for the viewer: every ply's position, as `show --fens` has them.
    let g = server.get_json("/api/game/7");
    let fens = common::pgnindex().args(["show", "--db", arg(&db), "7", "--fens"]).output().unwrap();
    let text = String::from_utf8(fens.stdout).unwrap();
    let expected: Vec<&str> = text.lines().filter_map(|l| l.split('\t').nth(2)).collect();
    let got: Vec<&str> = std::iter::once(g["startFen"].as_str().unwrap())
        .chain(g["plies"].as_array().unwrap().iter().map(|p| p["fen"].as_str().unwrap()))
        .collect();
    assert!(!expected.is_empty());
    assert_eq!(got, expected);
    let (status, _, _) = server.request("GET", "/api/game/424242");
    assert_eq!(status, 404);
}

/// Raises this process's open-file limit to at least `files` (within its
/// hard limit); `false` if it cannot.
fn allow_files(files: u64) -> bool {
    let mut limit = libc::rlimit { rlim_cur: 0, rlim_max: 0 };
    // SAFETY: getrlimit(2) and setrlimit(2) on this process's own limits.
    unsafe {
        if libc::getrlimit(libc::RLIMIT_NOFILE, &mut limit) != 0 {
            return false;
        }
        if limit.rlim_cur >= files {
            return true;
        }
        if limit.rlim_max < files {
            return false;
        }
        limit.rlim_cur = files;
        libc::setrlimit(libc::RLIMIT_NOFILE, &limit) == 0
    }
}

#[test]
fn idle_and_half_sent_connections_never_keep_a_request_waiting() {
    // More idle connections than the server has files: it closes the one
    // idle the longest for each new one, and answers at once.
    assert!(allow_files(1400), "this test needs 1,400 open files (ulimit -n)");
    let dir = scratch();
    let db = database(&dir);
    let server = Server::start_with_files(&db, &["--connections", "2"], Some(1024));
    let mut idle = Vec::new();
    for i in 0..1100 {
        let mut stream = TcpStream::connect(server.addr).unwrap();
        if i % 2 == 0 {
            // Half a request, never finished.
            stream.write_all(b"GET /lichess?play=e2e4 HTTP/1.1\r\nHost: x\r\n").unwrap();
        }
        idle.push(stream);
    }
    for _ in 0..5 {
        let started = std::time::Instant::now();
        let answer = server.get_json("/lichess?play=e2e4");
        assert!(answer["moves"].as_array().is_some_and(|m| !m.is_empty()), "{answer}");
        assert!(started.elapsed() < Duration::from_secs(5), "{:?}", started.elapsed());
    }
    // The first ones were closed to make room.
    let mut first = idle.swap_remove(0);
    first.set_read_timeout(Some(Duration::from_secs(10))).unwrap();
    let mut buf = [0u8; 16];
    assert!(matches!(first.read(&mut buf), Ok(0) | Err(_)), "the oldest idle connection is closed");
    drop(idle);
    let (status, _) = server.stop();
    assert!(status.success(), "{status:?}");
}

#[test]
fn a_client_that_stalls_is_closed_after_the_timeout() {
    let dir = scratch();
    let db = database(&dir);
    let server = Server::start(&db, &["--client-timeout", "1"]);
    let mut stream = TcpStream::connect(server.addr).unwrap();
    stream.write_all(b"GET /lichess HTTP/1.1\r\nHo").unwrap();
    stream.set_read_timeout(Some(Duration::from_secs(20))).unwrap();
    let started = std::time::Instant::now();
    let mut answer = Vec::new();
    let _ = stream.read_to_end(&mut answer);
    let waited = started.elapsed();
    assert!(waited < Duration::from_secs(10), "closed after {waited:?}");
    assert!(!String::from_utf8_lossy(&answer).contains("200 OK"), "{answer:?}");
    // An idle keep-alive connection too.
    let mut stream = TcpStream::connect(server.addr).unwrap();
    stream.set_read_timeout(Some(Duration::from_secs(20))).unwrap();
    stream.write_all(b"GET /lichess HTTP/1.1\r\nHost: x\r\n\r\n").unwrap();
    let mut answer = Vec::new();
    let _ = stream.read_to_end(&mut answer);
    assert!(String::from_utf8_lossy(&answer).starts_with("HTTP/1.1 200 OK"), "{answer:?}");
    assert!(started.elapsed() < Duration::from_secs(20));
}

#[test]
fn a_stop_ends_the_server_while_a_client_is_half_way_through_a_request() {
    let dir = scratch();
    let db = database(&dir);
    let server = Server::start(&db, &[]);
    let mut half = TcpStream::connect(server.addr).unwrap();
    half.write_all(b"GET /lichess?play=e2e4 HTTP/1.1\r\nHost: x\r\n").unwrap();
    let idle = TcpStream::connect(server.addr).unwrap();
    // Both are accepted before the signal.
    server.get_json("/lichess");
    let started = std::time::Instant::now();
    let (status, rest) = server.stop();
    assert!(status.success(), "{status:?}: {rest}");
    assert!(started.elapsed() < Duration::from_secs(8), "stopped after {:?}", started.elapsed());
    assert!(rest.contains("stopped"), "{rest}");
    drop((half, idle));
}

/// A game of knights going out and back `rounds` times (4 plies a round),
/// with a clock comment on each of White's first moves.
fn shuffle_game(rounds: usize) -> String {
    let mut text =
        String::from("[Event \"shuffle\"]\n[White \"a\"]\n[Black \"b\"]\n[Result \"*\"]\n\n");
    for i in 0..rounds {
        let n = 2 * i + 1;
        text.push_str(&format!("{n}. Nf3 {{[%clk 0:01:00]}} Nf6 {}. Ng1 Ng8 ", n + 1));
    }
    text.push_str("*\n");
    text
}

/// The peak resident memory of process `pid`, in bytes.
fn peak_memory(pid: u32) -> u64 {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).unwrap();
    let line = status.lines().find(|l| l.starts_with("VmHWM:")).unwrap();
    line.split_whitespace().nth(1).unwrap().parse::<u64>().unwrap() * 1024
}

#[test]
fn long_games_cost_a_bounded_memory_per_request() {
    let dir = scratch();
    let db = dir.join("long.db");
    let (long, page) = (dir.join("long.pgn"), dir.join("page.pgn"));
    std::fs::write(&long, shuffle_game(250_000)).unwrap();
    std::fs::write(&page, shuffle_game(16_000)).unwrap();
    let out = common::pgnindex().args(["import", "--db", arg(&db), arg(&long)]).output().unwrap();
    assert!(out.status.success());
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("the game has 1000000 plies: only its first 65536 positions"),
        "the import says the game is indexed in part: {err}"
    );
    common::import(&db, &[arg(&page)]).success();
    let commented = dir.join("commented.pgn");
    let comment = "x".repeat(20 << 20);
    std::fs::write(&commented, format!("[Result \"*\"]\n\n1. e4 {{{comment}}} e5 *\n")).unwrap();
    common::import(&db, &[arg(&commented)]).success();
    let server = Server::start(&db, &["--connections", "4"]);
    let clients: Vec<_> = (0..4)
        .map(|_| {
            let addr = server.addr;
            std::thread::spawn(move || {
                let probe = Server::probe(addr);
                for route in ["/api/game/1", "/masters/pgn/1"] {
                    let (status, _, body) = probe.request("GET", route);
                    assert_eq!(status, 400, "{body}");
                    assert!(
                        body.contains("1000000 plies") && body.contains("pgnindex show 1"),
                        "{body}"
                    );
                }
                for route in ["/api/game/3", "/masters/pgn/3"] {
                    let (status, _, body) = probe.request("GET", route);
                    assert_eq!(status, 400, "{body}");
                    assert!(body.contains("bytes of moves, tags and comments"), "{body}");
                }
                let (status, _, body) = probe.request("GET", "/api/game/2");
                assert_eq!(status, 200);
                let game: Value = serde_json::from_str(&body).unwrap();
                assert_eq!(game["plies"].as_array().map(Vec::len), Some(64_000));
                assert_eq!(game["plies"][0]["clock"], 60.0);
                let (status, _, body) = probe.request("GET", "/masters/pgn/2");
                assert_eq!(status, 200);
                assert_eq!(body.matches("Ng8").count(), 16_000, "the whole game");
            })
        })
        .collect();
    for client in clients {
        client.join().unwrap();
    }
    let peak = peak_memory(server.child.id());
    assert!(peak < 256 << 20, "peak memory {} MB", peak >> 20);
}

#[test]
fn delete_vacuum_and_an_exclusive_import_work_beside_a_server_in_wal_mode() {
    let dir = scratch();
    let db = database(&dir);
    // As an import beside a reading server leaves the file: in WAL mode,
    // which the server's connections then hold.
    let conn = rusqlite::Connection::open(&db).unwrap();
    conn.pragma_update(None, "journal_mode", "WAL").unwrap();
    drop(conn);
    let server = Server::start(&db, &["--connections", "2"]);
    let games =
        |a: &Value| ["white", "draws", "black"].iter().map(|k| a[k].as_u64().unwrap()).sum::<u64>();
    let before = games(&server.get_json("/lichess"));
    server.get_json("/lichess?play=e2e4");
    let run = |args: &[&str]| {
        let out = common::pgnindex().args(args).args(["--db", arg(&db)]).output().unwrap();
        let err = String::from_utf8_lossy(&out.stderr).to_string();
        assert!(out.status.success(), "{args:?}: {err}");
        err
    };
    run(&["delete", "--white", "Carlsen"]);
    let after_delete = games(&server.get_json("/lichess"));
    assert!(after_delete < before, "{before} → {after_delete}");
    run(&["vacuum"]);
    let games_dir = common::games_dir();
    let err = run(&[
        "import",
        "--exclusive",
        arg(&games_dir.join("lichess/lichess_DannyTheDonkey_2019-01-29.pgn")),
    ]);
    assert!(err.contains("open in WAL mode elsewhere"), "{err}");
    assert_eq!(games(&server.get_json("/lichess")), after_delete, "every game was there already");
    assert_eq!(
        games(&server.get_json("/lichess")),
        explore_counts(&db, &[]).iter().map(|r| r.1 + r.2 + r.3).sum::<u64>()
    );
}

/// [`common::command`] run as a user who cannot write the test's files:
/// `nobody` when the tests run as root (whom permissions do not stop).
fn as_another_user() -> std::process::Command {
    let mut command = common::command();
    // SAFETY: geteuid(2) has no preconditions.
    if unsafe { libc::geteuid() } == 0 {
        use std::os::unix::process::CommandExt;
        command.uid(65534).gid(65534);
    }
    command
}

#[test]
fn a_database_its_reader_cannot_write_beside_serves_in_either_mode() {
    use std::os::unix::fs::PermissionsExt;
    let dir = scratch();
    std::fs::set_permissions(dir.path(), std::fs::Permissions::from_mode(0o755)).unwrap();
    let games = common::games_dir();
    for mode in ["WAL", "DELETE"] {
        let shelf = dir.join(mode);
        std::fs::create_dir(&shelf).unwrap();
        let db = shelf.join("games.db");
        common::import(&db, &[arg(&games.join("otb/twic-01-232games.pgn"))]).success();
        let conn = rusqlite::Connection::open(&db).unwrap();
        conn.pragma_update(None, "journal_mode", mode).unwrap();
        drop(conn);
        let expected = explore_counts(&db, &[]);
        std::fs::set_permissions(&db, std::fs::Permissions::from_mode(0o444)).unwrap();
        std::fs::set_permissions(&shelf, std::fs::Permissions::from_mode(0o555)).unwrap();
        let out = as_another_user()
            .args(["explore", "--db", arg(&db), "--format", "json"])
            .output()
            .unwrap();
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(out.status.success(), "{mode}: {err}");
        let server = Server::spawn(as_another_user(), &db, &[]);
        assert_eq!(api_counts(&server.get_json("/lichess")), expected, "{mode}");
        drop(server);
        std::fs::set_permissions(&shelf, std::fs::Permissions::from_mode(0o755)).unwrap();
    }
}

#[test]
fn a_directory_is_not_a_database() {
    let dir = scratch();
    for args in [
        &["explore"][..],
        &["serve", "--bind", "127.0.0.1:0"],
        &["import", arg(&fixture("pgn/games/otb/twic-01-232games.pgn"))],
    ] {
        let out = common::pgnindex().args(args).args(["--db", arg(dir.path())]).output().unwrap();
        assert_eq!(out.status.code(), Some(2), "{args:?}");
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(
            err.trim_end(),
            format!(
                "pgnindex: error: {}: is a directory, not a database file",
                dir.path().display()
            ),
            "{args:?}"
        );
    }
}

#[test]
fn castling_rights_and_en_passant_squares_a_position_cannot_have_are_dropped_and_impossible_checks_refused(
) {
    let dir = scratch();
    let db = database(&dir);
    let server = Server::start(&db, &[]);
    let start = server.get_json("/lichess");
    let doubled = server
        .get_json("/lichess?fen=rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR_w_KQkqKQkq_-_0_1");
    assert_eq!(api_counts(&doubled), api_counts(&start), "read as the start position");
    // An en-passant square no pawn passed is dropped, as lichess repairs it.
    let passed =
        server.get_json("/lichess?fen=rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR_w_KQkq_e6_0_1");
    assert_eq!(api_counts(&passed), api_counts(&start), "read as the start position");
    let (status, _, body) =
        server.request("GET", "/lichess?fen=4k3/8/8/8/8/3n4/4rb2/4K3_w_-_-_0_1");
    assert_eq!(status, 400, "{body}");
    assert!(body.contains("checked by 3 pieces"), "{body}");
    // The command line refuses both.
    for fen in [
        "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkqKQkq - 0 1",
        "4k3/8/8/8/8/3n4/4rb2/4K3 w - - 0 1",
    ] {
        let out =
            common::pgnindex().args(["explore", "--db", arg(&db), "--fen", fen]).output().unwrap();
        assert_eq!(out.status.code(), Some(1), "{fen}");
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(err.starts_with("pgnindex: error: --fen: "), "{err}");
    }
}

#[test]
fn a_replaced_database_is_read_anew_and_a_corrupt_one_is_the_server_s_error() {
    let dir = scratch();
    let games = common::games_dir();
    let db = dir.join("games.db");
    common::import(&db, &[arg(&games.join("otb/twic-01-232games.pgn"))]).success();
    let server = Server::start(&db, &[]);
    assert_eq!(api_counts(&server.get_json("/lichess")), explore_counts(&db, &[]));
    // Another database renamed over the path, as a rebuild is deployed.
    let next = dir.join("next.db");
    common::import(&next, &[arg(&games.join("chesscom/schmitz874-chesscom-live.pgn"))]).success();
    let expected = explore_counts(&next, &[]);
    std::fs::rename(&next, &db).unwrap();
    assert_eq!(api_counts(&server.get_json("/lichess?moves=50")), expected, "the new file's games");
    // Its pages overwritten but the first (the schema): a `500` that says so.
    let mut bytes = std::fs::read(&db).unwrap();
    let page = usize::from(u16::from_be_bytes([bytes[16], bytes[17]]));
    for b in &mut bytes[page..] {
        *b = 0xa5;
    }
    // The change counter, so that readers drop what they hold of the file.
    bytes[24..28].copy_from_slice(&7u32.to_be_bytes());
    std::fs::write(&db, &bytes).unwrap();
    let (status, _, body) = server.request("GET", "/lichess?play=d2d4");
    assert_eq!(status, 500, "{body}");
    assert!(body.starts_with("error: ") && body.contains("games.db"), "{body}");
}

#[test]
fn bind_takes_a_host_name_and_port_and_a_port_in_use_is_one_line() {
    let dir = scratch();
    let db = database(&dir);
    // A port free a moment ago.
    let port = std::net::TcpListener::bind("127.0.0.1:0").unwrap().local_addr().unwrap().port();
    let named = format!("localhost:{port}");
    let server = Server::start(&db, &["--bind", &named]);
    assert!(server.addr.ip().is_loopback() && server.addr.port() == port, "{}", server.addr);
    server.get_json("/lichess");
    // Taken now: a second server says so once.
    let out = common::command()
        .args(["serve", "--db", arg(&db), "--bind", "localhost", "--port", &port.to_string()])
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{err}");
    assert_eq!(err.lines().count(), 1, "{err}");
    assert_eq!(err.matches("in use").count(), 1, "{err}");
    assert!(
        err.starts_with(&format!("pgnindex: error: cannot listen on 127.0.0.1:{port}: ")),
        "{err}"
    );
    server.stop();
    // A bare port.
    let server = Server::start(&db, &["--bind", "0"]);
    assert!(server.addr.ip().is_loopback());
    server.get_json("/lichess");
}
