//! What the query commands print at their edges: an empty database, SQL
//! that fails midway, tables wider than the terminal, the explorer's
//! columns and percentages, depths `perft` cannot finish, and the example
//! commands of the documentation and of `--help`.

use std::path::Path;

use crate::common;

use common::{arg, import, run, scratch};

/// `pgnindex info --db DB`'s stdout, the run checked for success.
fn info_text(db: &Path) -> String {
    run(["info", "--db", arg(db)]).success().stdout
}

#[test]
fn info_on_a_database_without_games_says_so_on_every_line() {
    let dir = scratch();
    let db = dir.join("empty.db");
    // A first import that stores nothing leaves no database: one game,
    // deleted.
    let one = dir.write("one.pgn", "[White \"a\"]\n\n1. e4 *\n");
    import(&db, &["--quiet", arg(&one)]).success();
    run(["delete", "--db", arg(&db), "--white", "a"]).success();
    run(["vacuum", "--db", arg(&db)]).success();
    let text = info_text(&db);
    let lines: Vec<&str> = text.lines().collect();
    assert!(lines.iter().all(|l| !l.trim().is_empty()), "a blank line:\n{text}");
    for line in &lines {
        let (_, value) = line.split_once("  ").unwrap_or(("", line));
        assert!(!value.trim().is_empty(), "a line with a name and no value: {line:?}\n{text}");
    }
    assert!(lines.contains(&"games      0"), "{text}");
    assert!(lines.contains(&"events     none known"), "{text}");
    assert!(lines.contains(&"ECO        none known"), "{text}");

    // With no source at all either: the database as the first import
    // creates it, before any input is recorded.
    run(["sql", "--write", "--db", arg(&db), "DELETE FROM sources"]).success();
    let text = info_text(&db);
    assert!(text.contains("\ngames      0 (nothing imported yet)\n"), "{text}");
    assert!(text.contains("\nsources    0\n"), "{text}");
    assert!(text.lines().all(|l| !l.trim().is_empty() && !l.ends_with(' ')), "{text}");
}

/// A database with no games, imported from an empty file in `dir`.
fn empty_db(dir: &common::Scratch) -> std::path::PathBuf {
    let db = dir.join("empty.db");
    import(&db, &["--quiet", arg(&dir.write("empty.pgn", ""))]).success();
    db
}

#[test]
fn sql_that_fails_midway_prints_no_partial_table() {
    let dir = scratch();
    let db = empty_db(&dir);
    // The second row overflows: SQLite has stepped the first one already.
    let overflow = "SELECT 1 AS a UNION ALL SELECT abs(-9223372036854775808)";
    for format in ["table", "csv", "json"] {
        for sql in [overflow, "SELECT 1/0 AS a, abs(-9223372036854775808) AS b"] {
            let out = run(["sql", "--db", arg(&db), "--format", format, sql]);
            assert_eq!(out.code, 1, "{format} {sql}: {}", out.stderr);
            assert_eq!(out.stdout, "", "{format} {sql}");
            assert_eq!(out.stderr, "pgnindex: error: integer overflow\n", "{format} {sql}");
        }
    }
    // The statements before the one that fails have run, and their rows
    // are printed; nothing of the failing one is, not even the blank line
    // between tables.
    let out = run(["sql", "--db", arg(&db), &format!("SELECT 7 AS seven; {overflow}")]);
    assert_eq!(out.code, 1, "{}", out.stderr);
    assert_eq!(out.stdout, "seven\n-----\n    7\n");
    let out = run(["sql", "--db", arg(&db), "--format", "json", "SELECT json('[') AS j"]);
    assert_eq!((out.code, out.stdout.as_str()), (1, ""), "{}", out.stderr);
    assert_eq!(out.stderr.lines().count(), 1, "{}", out.stderr);
}

#[test]
fn perft_refuses_a_depth_it_could_never_finish() {
    let started = std::time::Instant::now();
    let out = common::command()
        .args(["perft", "startpos", "99"])
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .and_then(|child| wait_at_most(child, std::time::Duration::from_secs(20)))
        .unwrap();
    assert_eq!(out.code, 2, "{}", out.stderr);
    assert_eq!(out.stdout, "");
    assert_eq!(
        out.stderr,
        "pgnindex: error: depth 99: perft counts at most 15 plies (at ten moves a ply, \
         15 plies are already 10^15 leaves, weeks of counting)\n"
    );
    assert!(started.elapsed().as_secs() < 20);
    let out = run(["perft", "startpos", "16", "--divide"]);
    assert_eq!((out.code, out.stdout.as_str()), (2, ""), "{}", out.stderr);
    // The bound itself is accepted: a stalemate counts no leaf at once.
    let out = run(["perft", "7k/5Q2/6K1/8/8/8/8/8 b - - 0 1", "15"]).success();
    assert_eq!(out.stdout, "0\n");
}

/// Waits for `child` (stdout and stderr piped) up to `limit`, then kills it.
fn wait_at_most(
    mut child: std::process::Child,
    limit: std::time::Duration,
) -> std::io::Result<common::Run> {
    let end = std::time::Instant::now() + limit;
    while child.try_wait()?.is_none() && std::time::Instant::now() < end {
        std::thread::sleep(std::time::Duration::from_millis(50));
    }
    if child.try_wait()?.is_none() {
        child.kill()?;
    }
    Ok(child.wait_with_output()?.into())
}

/// A database of the bundled sample, imported into `dir`.
fn sample_db(dir: &common::Scratch) -> std::path::PathBuf {
    let db = dir.join("sample.db");
    import(&db, &["--quiet", arg(&common::games_dir())]).success();
    db
}

#[test]
fn explore_shows_the_same_figures_with_one_decimal_in_every_format() {
    let dir = scratch();
    let db = sample_db(&dir);
    let explore = |format: &str| {
        run(["explore", "--db", arg(&db), "--moves", "1. e4", "--format", format]).success().stdout
    };
    let (table, csv) = (explore("table"), explore("csv"));
    // The table starts with the name of the position (tests/it/openings.rs).
    let table = table.split_once('\n').filter(|t| t.0.starts_with("Opening: ")).unwrap().1;
    let json: serde_json::Value = serde_json::from_str(&explore("json")).unwrap();

    let csv_columns = "move,uci,games,white_wins,draws,black_wins,white_pct,draw_pct,black_pct,\
                       avg_elo,last_date";
    assert_eq!(csv.lines().next().unwrap(), csv_columns);
    // The table: the same columns in the same order, `uci` left out, under
    // the short names the guide lists.
    let header: Vec<&str> = table.lines().next().unwrap().split_whitespace().collect();
    assert_eq!(
        header,
        [
            "move",
            "games",
            "white",
            "draws",
            "black",
            "white%",
            "draw%",
            "black%",
            "avg_elo",
            "last_date"
        ]
    );
    let guide = std::fs::read_to_string(common::repo("docs/guide.md")).unwrap();
    let guide = guide.split_whitespace().collect::<Vec<_>>().join(" ");
    assert!(
        guide.contains(&format!("`{}`", header.join(" "))),
        "the guide lists the table's columns"
    );
    assert!(guide.contains(&format!("`{}`", csv_columns.replace(',', "`, `"))), "and CSV's");

    let csv_rows: Vec<Vec<&str>> = csv.lines().skip(1).map(|l| l.split(',').collect()).collect();
    let table_rows: Vec<Vec<&str>> =
        table.lines().skip(2).map(|l| l.split_whitespace().collect()).collect();
    assert!(csv_rows.len() >= 10, "{csv}");
    for (i, row) in csv_rows.iter().enumerate() {
        let mut without_uci = row.clone();
        without_uci.remove(1);
        if without_uci.iter().all(|f| !f.is_empty()) {
            assert_eq!(table_rows[i], without_uci, "row {i}");
        }
        for pct in &row[6..9] {
            let (whole, decimals) = pct.split_once('.').unwrap_or((pct, ""));
            assert!(whole.parse::<u32>().is_ok() && decimals.len() == 1, "{pct} in {row:?}");
        }
        for (k, key) in ["white_pct", "draw_pct", "black_pct"].iter().enumerate() {
            let number = &json[i][key];
            assert_eq!(number.to_string(), row[6 + k], "{key} of row {i}: JSON and CSV agree");
        }
    }
}

/// The example commands of a `--help` text: each line under `Example:` or
/// `Examples:` that starts `pgnindex `, with the more indented lines that
/// continue it.
fn help_examples(help: &str) -> Vec<String> {
    let mut examples: Vec<String> = Vec::new();
    let mut within = false;
    for line in help.lines() {
        if matches!(line.trim_end(), "Example:" | "Examples:") {
            within = true;
        } else if within && line.starts_with("  pgnindex ") {
            examples.push(line.trim().to_string());
        } else if within && line.starts_with("    ") && !examples.is_empty() {
            let last = examples.last_mut().unwrap();
            last.push('\n');
            last.push_str(line);
        } else {
            within = false;
        }
    }
    examples
}

/// The lines of the ```sh blocks of a Markdown text that run `pgnindex`.
fn markdown_commands(markdown: &str) -> Vec<String> {
    let mut commands = Vec::new();
    let mut in_sh = false;
    for line in markdown.lines() {
        match line.trim_end() {
            "```sh" => in_sh = true,
            "```" => in_sh = false,
            l if in_sh && l.starts_with("pgnindex ") => commands.push(l.to_string()),
            _ => {}
        }
    }
    commands
}

/// `true` for an example with a placeholder: a word outside quotes written
/// in capitals (`GAMES.pgn`, `INPUT...`, `[--db PATH]`), which names no
/// real file and is not meant to run.
fn has_placeholder(command: &str) -> bool {
    let mut outside = String::new();
    let mut quote = None;
    for c in command.chars() {
        match quote {
            Some(q) if c == q => quote = None,
            Some(_) => {}
            None if c == '"' || c == '\'' => quote = Some(c),
            None => outside.push(c),
        }
    }
    let outside = outside.split(" #").next().unwrap_or_default().to_string();
    let capitals = |w: &str| w.as_bytes().windows(2).any(|p| p.iter().all(u8::is_ascii_uppercase));
    outside.contains('[') || outside.split_whitespace().any(capitals)
}

#[test]
fn the_example_commands_of_help_and_guide_run_on_the_bundled_files() {
    let dir = scratch();
    std::os::unix::fs::symlink(common::repo("fixtures"), dir.join("fixtures")).unwrap();
    let mut examples: Vec<(String, String)> = Vec::new();
    for cmd in [
        "import", "find", "explore", "book", "novelty", "show", "export", "info", "sql", "check",
        "fens", "perft",
    ] {
        let help = run([cmd, "--help"]).success().stdout;
        let found = help_examples(&help);
        assert!(!found.is_empty(), "`pgnindex {cmd} --help` has no example");
        assert!(
            found.iter().any(|e| !has_placeholder(e)),
            "`pgnindex {cmd} --help` has no example to run as it stands: {found:?}"
        );
        examples.extend(found.into_iter().map(|e| (format!("{cmd} --help"), e)));
    }
    for doc in ["docs/guide.md", "README.md"] {
        let text = std::fs::read_to_string(common::repo(doc)).unwrap();
        examples.extend(markdown_commands(&text).into_iter().map(|e| (doc.to_string(), e)));
    }
    // The examples' database: the bundled sample, as the import examples
    // make it.
    let db = dir.join("sample.db");
    import(&db, &["--quiet", "fixtures/pgn/games"]);
    let bin_dir = common::bin().parent().unwrap().to_path_buf();
    let path = format!("{}:{}", bin_dir.display(), std::env::var("PATH").unwrap_or_default());
    let mut ran = 0;
    for (origin, example) in &examples {
        if has_placeholder(example) {
            continue;
        }
        // What the output is piped to (`| jq`, `| gzip`) is not pgnindex.
        let command = example.split(" | ").next().unwrap();
        let out: common::Run = std::process::Command::new("sh")
            .arg("-c")
            .arg(command)
            .current_dir(dir.path())
            .env("PATH", &path)
            .env("PGNINDEX_DB", "sample.db")
            .env_remove("NO_COLOR")
            .output()
            .unwrap()
            .into();
        assert_eq!(out.code, 0, "{origin}: `{example}` failed:\n{}", out.stderr);
        ran += 1;
    }
    assert!(ran >= 20, "{ran} examples ran");
}

/// Runs `pgnindex ARGS` with its stdout on a new pseudo-terminal of `cols`
/// columns, `COLUMNS` set to `columns` or removed; what it printed there.
fn run_on_terminal(args: &[&str], cols: u16, columns: Option<&str>) -> String {
    let mut command = common::command();
    command.args(args);
    match columns {
        Some(c) => command.env("COLUMNS", c),
        None => command.env_remove("COLUMNS"),
    };
    common::on_terminal(command, cols)
}

/// The printed width of each line of a table (escape sequences left out).
fn widths(table: &str) -> Vec<usize> {
    table.lines().map(|l| l.replace("\x1b[1m", "").replace("\x1b[0m", "").chars().count()).collect()
}

#[test]
fn a_table_wider_than_the_terminal_is_fitted_to_it_by_cutting_text() {
    let dir = scratch();
    let db = sample_db(&dir);
    let sql = "SELECT id, white || ' - ' || black AS game, event || ', ' || site AS place, \
               date FROM games WHERE id <= 5";
    let args = ["sql", "--db", arg(&db), sql];
    let piped = run(args).success().stdout;
    assert!(widths(&piped).iter().any(|&w| w > 60), "{piped}");

    // The terminal's own width, from the terminal.
    let table = run_on_terminal(&args, 60, None);
    assert!(widths(&table).iter().all(|&w| w <= 60), "{table}");
    assert!(table.contains('…'), "{table}");
    assert_eq!(table.lines().count(), piped.lines().count());
    let header: Vec<&str> = piped.lines().next().unwrap().split_whitespace().collect();
    let fitted = table.lines().next().unwrap().replace("\x1b[1m", "").replace("\x1b[0m", "");
    assert_eq!(fitted.split_whitespace().collect::<Vec<_>>(), header, "headers are never cut");
    let ids = |t: &str| -> Vec<String> {
        t.lines().skip(2).map(|l| l.split_whitespace().next().unwrap().to_string()).collect()
    };
    assert_eq!(ids(&table), ids(&piped), "numbers are never cut");

    // COLUMNS says otherwise: it wins, as for ls.
    let table = run_on_terminal(&args, 60, Some("45"));
    assert!(widths(&table).iter().all(|&w| w <= 45), "{table}");
    // A terminal wide enough: nothing cut.
    let table = run_on_terminal(&args, 200, None);
    assert!(!table.contains('…'), "{table}");
}

#[test]
fn output_that_is_not_a_terminal_is_never_fitted() {
    let dir = scratch();
    let db = empty_db(&dir);
    let long = "x".repeat(90);
    for format in ["table", "csv", "json"] {
        let out = common::command()
            .args(["sql", "--db", arg(&db), "--format", format])
            .arg(format!("SELECT '{long}' AS a, '{long}' AS b"))
            .env("COLUMNS", "20")
            .output()
            .unwrap();
        let stdout = String::from_utf8(out.stdout).unwrap();
        assert_eq!(stdout.matches(&long).count(), 2, "{format}: {stdout}");
    }
}

#[test]
fn info_never_sends_the_control_characters_of_stored_text_to_the_terminal() {
    let dir = scratch();
    let db = dir.join("evil.db");
    let pgn = dir.write(
        "evil.pgn",
        "[Event \"Evil\x1b[31mRed\"]\n[Date \"2020.01.01\x1b[2J\"]\n[ECO \"B\x1b]0;x\x07\"]\n\n1. e4 e5 *\n",
    );
    import(&db, &["--quiet", arg(&pgn)]).success();
    let text = info_text(&db);
    assert!(!text.chars().any(|c| c.is_control() && c != '\n'), "{text:?}");
    assert!(text.contains("events     Evil\u{FFFD}[31mRed (1)"), "{text}");
    assert!(text.contains("dates      2020.01.01\u{FFFD}[2J to 2020.01.01\u{FFFD}[2J"), "{text}");
}

/// What `args` writes to stdout when it is a terminal.
fn on_a_terminal(args: &[&str]) -> String {
    let mut command = common::command();
    command.args(args);
    common::on_terminal(command, 200)
}

#[test]
fn escape_bytes_of_a_hostile_pgn_never_reach_a_terminal() {
    let dir = scratch();
    let db = dir.join("hostile.db");
    let pgn = dir.write(
        "hostile.pgn",
        "[Event \"x\x1b]0;owned\x07\"]\n[White \"a\x1b[2J\"]\n[Black \"b\"]\n[Result \"*\"]\n\n1. e4 {\x1b[31mred\u{9b}1m} e5 *\n",
    );
    import(&db, &["--quiet", arg(&pgn)]).success();
    for args in [
        &["show", "--db", arg(&db), "1"][..],
        &["find", "--db", arg(&db)],
        &["info", "--db", arg(&db)],
        &["explore", "--db", arg(&db)],
    ] {
        let text = on_a_terminal(args);
        assert!(!text.contains('\x07'), "{args:?}: {text}");
        assert!(!text.contains('\u{9b}'), "{args:?}: {text}");
        // Only this program's own colour sequences start with ESC.
        for (i, _) in text.match_indices('\x1b') {
            let rest = &text[i..];
            assert!(
                ["\x1b[1m", "\x1b[0m", "\x1b[30;43m"].iter().any(|s| rest.starts_with(s)),
                "{args:?}: {text:?}"
            );
        }
    }
    let shown = on_a_terminal(&["show", "--db", arg(&db), "1"]);
    assert!(shown.contains("[Event \"x^[]0;owned^G\"]"), "{shown}");
    // Into a pipe, the text is exact.
    let piped = run(["show", "--db", arg(&db), "1"]).success().stdout;
    assert!(piped.contains("[Event \"x\x1b]0;owned\x07\"]"), "{piped:?}");
}
