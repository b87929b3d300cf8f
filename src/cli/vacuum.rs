//! `pgnindex vacuum`: the space of deleted games given back.

use clap::Args;

use pgnindex::store::vacuum::vacuum;

use super::exit::Exit;
use super::query_args::DbArgs;

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
}

/// Runs `vacuum`: one summary line on stderr.
pub fn run(args: &VacuumArgs) -> anyhow::Result<Exit> {
    let path = args.db.path();
    let done = vacuum(&path)?;
    say!(
        "pgnindex: {}: {} deleted games dropped from the index ({} position rows); {} bytes before, {} after",
        path.display(),
        done.games,
        done.positions,
        done.size_before,
        done.size_after
    );
    Ok(Exit::Success)
}
