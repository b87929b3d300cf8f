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

fn main() -> ExitCode {
    cli::main()
}
