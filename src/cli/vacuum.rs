//! `pgnindex vacuum`: the space of deleted games given back.

use clap::Args;

use pgnindex::store::vacuum::{vacuum, Step};

use super::exit::Exit;
use super::progress;
use super::query_args::DbArgs;
use super::words::counted;

/// Arguments of `vacuum`.
#[derive(Debug, Args)]
#[command(after_help = "\
Example:
  pgnindex sql --write \"DELETE FROM games WHERE ply_count < 10\"
  pgnindex vacuum

Deleted games are left out of every answer at once; their rows in the
position index stay in the file until `vacuum` (or the merges of later
imports) drops them. Queries wait while it runs.")]
pub struct VacuumArgs {
    #[command(flatten)]
    db: DbArgs,
    /// No progress on the terminal: the summary line alone.
    #[arg(long)]
    quiet: bool,
}

/// Runs `vacuum`: one summary line on stderr.
pub fn run(args: &VacuumArgs) -> anyhow::Result<Exit> {
    let path = args.db.path();
    let bar = progress::spinner("vacuuming", args.quiet);
    let done = vacuum(&path, &mut |step| match step {
        Step::Purging { done, of } => bar
            .set_message(format!("dropping deleted games' index rows: table {} of {of}", done + 1)),
        Step::Compacting => bar.set_message("compacting the file (SQLite's VACUUM)"),
    });
    bar.finish_and_clear();
    let done = done?;
    say!(
        "pgnindex: {}: {} dropped from the index ({}); {} bytes before, {} after",
        path.display(),
        counted(done.games, "deleted game"),
        counted(done.positions, "position row"),
        done.size_before,
        done.size_after
    );
    Ok(Exit::Success)
}
