//! `pgnindex delete`: the games `find` would list, deleted.

use clap::Args;

use pgnindex::query::search::{Page, Search};
use pgnindex::store::delete::Deleter;

use super::exit::Exit;
use super::query_args::{self, DbArgs, FilterArgs, PositionArgs};

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
}

/// Runs `delete`: one line on stderr with the number of games deleted.
pub fn run(args: &DeleteArgs) -> anyhow::Result<Exit> {
    let search = Search { target: args.position.target()?, filters: args.filters.filters()? };
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
    let mut ids = Vec::new();
    let stats = search.find(deleter.connection(), Page::default(), false, |found| {
        ids.push(found.game.id);
        Ok(())
    })?;
    let deleted = deleter.delete(&ids)?;
    say!("pgnindex: {}: {deleted} games deleted", path.display());
    if stats.rejected > 0 {
        say!(
            "pgnindex: {} games kept: their key matches but they do not reach the position",
            stats.rejected
        );
    }
    Ok(Exit::Success)
}
