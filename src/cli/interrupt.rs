//! Ctrl-C (SIGINT) and SIGTERM for the commands that stop cleanly on them
//! (`import`, `export -o FILE`, `serve`): the first signal sets a flag that
//! the command looks at between units of work; a second one, later than
//! signals sent together, ends the process at once, as a kill does, with a
//! line saying so.

use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::Arc;
use std::time::Duration;

use anyhow::Context;
use signal_hook::consts::{SIGINT, SIGTERM};

use super::exit::Exit;

/// Signals this close to the first are the same interruption: a shell's
/// Ctrl-C, or coreutils' `timeout`, reaches the process both directly and
/// through its process group, so two arrive within microseconds.
const TOGETHER: Duration = Duration::from_millis(200);

/// A flag that the first SIGINT or SIGTERM from now on sets. A signal
/// that comes later than [`TOGETHER`] after it writes `hard` on stderr and
/// exits at once with [`Exit::Interrupted`]: what the command wrote is then
/// left as after a kill, from which an import resumes and which an export
/// leaves under a temporary name.
///
/// # Errors
/// If a handler cannot be installed.
pub fn flag(hard: &'static str) -> anyhow::Result<Arc<AtomicBool>> {
    let flag = Arc::new(AtomicBool::new(false));
    // Nanoseconds on the monotonic clock at the first signal, 0 before.
    let first = Arc::new(AtomicU64::new(0));
    let line: &'static [u8] = Box::leak(format!("{hard}\n").into_bytes().into_boxed_slice());
    for signal in [SIGINT, SIGTERM] {
        let (flag, first) = (Arc::clone(&flag), Arc::clone(&first));
        let action = move || {
            let now = monotonic_nanos().max(1);
            match first.compare_exchange(0, now, Ordering::SeqCst, Ordering::SeqCst) {
                Ok(_) => flag.store(true, Ordering::SeqCst),
                Err(at) if now.saturating_sub(at) < TOGETHER.as_nanos() as u64 => {}
                Err(_) => {
                    // SAFETY: write(2) and _exit(2) are async-signal-safe;
                    // `line` is a leaked, never freed buffer.
                    unsafe {
                        libc::write(2, line.as_ptr().cast(), line.len());
                        libc::_exit(Exit::Interrupted as i32);
                    }
                }
            }
        };
        // SAFETY: the action only reads a clock, touches atomics and calls
        // async-signal-safe functions: no allocation, lock or unwinding.
        unsafe { signal_hook::low_level::register(signal, action) }
            .context("installing the Ctrl-C handler")?;
    }
    Ok(flag)
}

/// The monotonic clock in nanoseconds (`clock_gettime` is async-signal-safe).
fn monotonic_nanos() -> u64 {
    let mut now = libc::timespec { tv_sec: 0, tv_nsec: 0 };
    // SAFETY: writes into `now`, a valid timespec.
    unsafe { libc::clock_gettime(libc::CLOCK_MONOTONIC, &mut now) };
    (now.tv_sec as u64).saturating_mul(1_000_000_000).saturating_add(now.tv_nsec as u64)
}

/// The error a command's output loop returns once the flag is set: it
/// unwinds the command to where [`Exit::Interrupted`] is reported.
#[derive(Debug, thiserror::Error)]
#[error("interrupted")]
pub struct Interrupted;
