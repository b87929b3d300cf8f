//! The README's "Ten-minute tour", run verbatim: the `sh` block under that
//! heading is read from README.md and each line runs with `sh -c` in a
//! throw-away directory (with `fixtures/` linked in), `pgnindex` on the
//! PATH. `export NAME=VALUE` lines set the environment of the lines after
//! them; `#` lines are comments. Every command must succeed and print
//! something.

use std::path::{Path, PathBuf};
use std::process::Command;

use crate::common;

/// The lines of the first `sh` block after the "## Ten-minute tour"
/// heading.
fn tour_lines(readme: &str) -> Vec<String> {
    let start = readme.find("\n## Ten-minute tour").expect("README has a Ten-minute tour section");
    let rest = &readme[start..];
    let block = rest.find("```sh\n").expect("the tour has a sh block") + "```sh\n".len();
    let end = rest[block..].find("```").expect("the sh block ends");
    rest[block..block + end]
        .lines()
        .map(str::trim)
        .filter(|l| !l.is_empty() && !l.starts_with('#'))
        .map(str::to_string)
        .collect()
}

fn binary_dir() -> PathBuf {
    let bin = common::bin();
    assert!(bin.exists(), "{} is not built", bin.display());
    bin.parent().unwrap().to_path_buf()
}

#[test]
fn readme_tour_runs() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let readme = std::fs::read_to_string(root.join("README.md")).unwrap();
    let lines = tour_lines(&readme);
    assert!(lines.len() >= 10, "the tour has {} commands", lines.len());
    for cmd in ["import", "info", "find", "explore", "show", "export", "sql"] {
        assert!(
            lines
                .iter()
                .any(|l| l.starts_with(&format!("pgnindex {cmd} "))
                    || *l == format!("pgnindex {cmd}")),
            "the tour never runs `pgnindex {cmd}`"
        );
    }
    let dir = tempfile::tempdir().unwrap();
    std::os::unix::fs::symlink(root.join("fixtures"), dir.path().join("fixtures")).unwrap();
    let path = format!("{}:{}", binary_dir().display(), std::env::var("PATH").unwrap_or_default());
    let mut env: Vec<(String, String)> = Vec::new();
    for line in &lines {
        if let Some(assignment) = line.strip_prefix("export ") {
            let (name, value) = assignment.split_once('=').expect("export NAME=VALUE");
            env.push((name.to_string(), value.to_string()));
            continue;
        }
        let out = Command::new("sh")
            .arg("-c")
            .arg(line)
            .current_dir(dir.path())
            .env("PATH", &path)
            .env_remove("PGNINDEX_DB")
            .env_remove("NO_COLOR")
            .envs(env.iter().map(|(k, v)| (k, v)))
            .output()
            .unwrap();
        let stdout = String::from_utf8_lossy(&out.stdout);
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert!(out.status.success(), "`{line}` failed ({}):\n{stderr}", out.status);
        assert!(!stdout.trim().is_empty() || !stderr.trim().is_empty(), "`{line}` printed nothing");
    }
    // What the tour says it did.
    assert!(dir.path().join("tour.db").exists());
    let najdorf = std::fs::read_to_string(dir.path().join("najdorf.pgn")).unwrap();
    assert_eq!(najdorf.matches("[Event ").count(), 4, "four B90-B99 games in the sample");
}

#[test]
fn tour_block_is_found() {
    let readme =
        "# x\n\n## Ten-minute tour\n\ntext\n\n```sh\na b\n# c\n\nexport X=1\n```\n\n```sh\nno\n```";
    assert_eq!(tour_lines(readme), ["a b", "export X=1"]);
}
