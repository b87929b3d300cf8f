//! `pgnindex delete`: the games `find` would list, deleted.

use clap::Args;

use pgnindex::query::search::{Page, Search};
use pgnindex::store::delete::Deleter;

use super::exit::Exit;
use super::progress;
use super::query_args::{self, DbArgs, FilterArgs, PositionArgs};
use super::words::counted;

/// Arguments of `delete`.
#[derive(Debug, Args)]
#[command(after_help = "\
Examples:
  pgnindex delete --player cheater123
  pgnindex delete --event \"Casual\" --until 2019
  pgnindex delete --moves \"1. e4 e5 2. Ke2\"

Deletes exactly the games `pgnindex find` lists with the same flags (run
it first to see them); at least one position or filter is required. The
games leave every answer at once; `pgnindex vacuum` gives their space back.")]
pub struct DeleteArgs {
    #[command(flatten)]
    db: DbArgs,
    #[command(flatten)]
    position: PositionArgs,
    #[command(flatten)]
    filters: FilterArgs,
    /// No progress on the terminal: the summary line alone.
    #[arg(long)]
    quiet: bool,
}

/// Runs `delete`: one line on stderr with the number of games deleted.
pub fn run(args: &DeleteArgs) -> anyhow::Result<Exit> {
    let search = Search {
        target: args.position.target()?,
        filters: args.filters.filters()?,
        ..Search::default()
    };
    if search.target.is_none() && search.filters.is_empty() {
        say!(
            "pgnindex: error: delete needs a position or a filter (to delete every game, \
             remove the database file)"
        );
        return Ok(Exit::Failure);
    }
    let path = args.db.path();
    let deleter = Deleter::open(&path)?;
    query_args::check_index(deleter.connection(), &search)?;
    let bar = progress::spinner("deleting", args.quiet);
    bar.set_message("finding the games");
    let mut ids = Vec::new();
    let stats = search.find(deleter.connection(), Page::default(), false, |found| {
        ids.push(found.game.id);
        if ids.len().is_multiple_of(1024) {
            bar.set_message(format!("finding the games: {}", counted(ids.len() as u64, "game")));
        }
        Ok(())
    });
    let deleted = stats.map_err(anyhow::Error::from).and_then(|stats| {
        bar.set_message(format!("deleting {}", counted(ids.len() as u64, "game")));
        Ok((stats, deleter.delete(&ids)?))
    });
    bar.finish_and_clear();
    let (stats, deleted) = deleted?;
    say!("pgnindex: {}: {} deleted", path.display(), counted(deleted, "game"));
    if stats.rejected > 0 {
        say!(
            "pgnindex: {} kept: their key matches but they do not reach the position",
            counted(stats.rejected, "game")
        );
    }
    Ok(Exit::Success)
}
