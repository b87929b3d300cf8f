//! The `pgnindex` command. Parses arguments, runs the command, and owns the
//! exit codes; everything else lives in the library and in `cli`.

mod cli;

use std::process::ExitCode;

// An import allocates a few dozen blocks per game on the workers and frees
// them on other threads; glibc's malloc then contends for its arenas' locks.
// jemalloc's thread caches take about 8 % off an import's CPU time
// (docs/benchmarks.md).
#[cfg(not(target_env = "msvc"))]
#[global_allocator]
static GLOBAL: tikv_jemallocator::Jemalloc = tikv_jemallocator::Jemalloc;

// jemalloc keeps freed pages for ten seconds by default; an import frees
// each chunk's rows as the writer takes them, so that a 1 GB import at
// `--threads 16` peaked 80 MB higher. One second returns them sooner,
// at no cost measured on the kinds of file.
#[cfg(not(target_env = "msvc"))]
#[export_name = "_rjem_malloc_conf"]
static MALLOC_CONF: &std::ffi::c_char =
    unsafe { &*c"dirty_decay_ms:1000,muzzy_decay_ms:0".as_ptr() };

/// SQLite allocates through the C library's `malloc`, not jemalloc. The
/// import's writer empties its page cache (up to 128 MiB) after each
/// commit that wrote pages by hand (`store::append::after_page_writes`),
/// and glibc then gives the freed memory back to the kernel, to fault it
/// in again, zeroed, in the next batch: a fifth of the writer's CPU time
/// on a lichess file. Keeping up to 256 MiB of free memory in the process
/// removes both; the peak stays what the cache allows.
#[cfg(all(target_os = "linux", target_env = "gnu"))]
fn keep_freed_memory() {
    // SAFETY: mallopt only sets a parameter of glibc's allocator; called
    // before any other thread starts.
    unsafe {
        libc::mallopt(libc::M_TRIM_THRESHOLD, 256 << 20);
    }
}

#[cfg(not(all(target_os = "linux", target_env = "gnu")))]
fn keep_freed_memory() {}

fn main() -> ExitCode {
    keep_freed_memory();
    cli::main()
}
