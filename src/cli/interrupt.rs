//! Ctrl-C (SIGINT) and SIGTERM for the commands that stop cleanly on them
//! (`import`, `export -o FILE`): the first signal sets a flag that the
//! command looks at between units of work; a second one ends the process
//! at once, as a kill does.

use std::sync::atomic::AtomicBool;
use std::sync::Arc;

use anyhow::Context;
use signal_hook::consts::{SIGINT, SIGTERM};

use super::exit::Exit;

/// A flag that the first SIGINT or SIGTERM from now on sets. A second
/// one exits at once with [`Exit::Interrupted`]: what the command wrote is
/// then left as after a kill, from which an import resumes and which an
/// export leaves under a temporary name.
///
/// # Errors
/// If a handler cannot be installed.
pub fn flag() -> anyhow::Result<Arc<AtomicBool>> {
    let flag = Arc::new(AtomicBool::new(false));
    for signal in [SIGINT, SIGTERM] {
        // Registered first, so that it acts from the second signal on:
        // the first finds the flag unset, then the next handler sets it.
        signal_hook::flag::register_conditional_shutdown(
            signal,
            Exit::Interrupted as i32,
            Arc::clone(&flag),
        )
        .context("installing the Ctrl-C handler")?;
        signal_hook::flag::register(signal, Arc::clone(&flag))
            .context("installing the Ctrl-C handler")?;
    }
    Ok(flag)
}

/// The error a command's output loop returns once the flag is set: it
/// unwinds the command to where [`Exit::Interrupted`] is reported.
#[derive(Debug, thiserror::Error)]
#[error("interrupted")]
pub struct Interrupted;
