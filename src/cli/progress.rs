//! Progress on a terminal for the commands that run long: a spinner with
//! what is being done and how far, drawn on stderr when it is a terminal
//! and `--quiet` is not given, nothing otherwise (a pipe or a file gets the
//! summary line alone). `import` draws its own bar, by bytes read.

use std::io::IsTerminal;
use std::time::Duration;

use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};

/// A spinner saying `what` (`exporting`, `vacuuming`), drawn at once and
/// then five times a second; hidden on a pipe or when `quiet`.
pub fn spinner(what: &str, quiet: bool) -> ProgressBar {
    if quiet || !std::io::stderr().is_terminal() {
        return ProgressBar::hidden();
    }
    let bar = ProgressBar::with_draw_target(None, ProgressDrawTarget::stderr());
    bar.set_style(
        ProgressStyle::with_template("{spinner} {prefix:.bold} {msg} ({elapsed})")
            .expect("a valid template"),
    );
    bar.set_prefix(what.to_string());
    // Drawn before the first step, which may take seconds.
    bar.tick();
    bar.enable_steady_tick(Duration::from_millis(200));
    bar
}

/// `n` things done in `bar`'s time so far, as a rate: `1,234 games/s`.
pub fn rate(bar: &ProgressBar, n: u64, noun: &str) -> String {
    let secs = bar.elapsed().as_secs_f64().max(1e-3);
    format!("{:.0} {noun}/s", n as f64 / secs)
}
