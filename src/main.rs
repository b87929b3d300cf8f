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

fn main() -> ExitCode {
    cli::main()
}
