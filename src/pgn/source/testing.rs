//! Helpers shared by the unit tests of the source modules: sample text,
//! files, compressed bytes, and the blocks a source delivers.

use std::fs;
use std::io::Write;
use std::ops::ControlFlow;
use std::path::Path;

use super::{InputName, Source};

/// A `max_block` that no test input reaches: blocks end where `cut` says.
pub(super) const MAX_BLOCK: usize = 1 << 30;

/// A game-like text with blank lines between "games".
pub(super) const PGN: &[u8] = b"[Event \"A\"]\n\n1. e4 e5 1-0\n\n[Event \"B\"]\n\n1. d4 d5 0-1\n\n\
    [Event \"C\"]\n\n1. c4 { Caf\xe9 } c5 1/2-1/2\n\n[Event \"D\"]\n\n1. Nf3 *\n";

/// Cuts after the last "\n\n" in the buffer (everything at EOF).
pub(super) fn cut_after_blank_line(buf: &[u8], at_eof: bool) -> usize {
    if at_eof {
        return buf.len();
    }
    buf.windows(2).rposition(|w| w == b"\n\n").map_or(0, |i| i + 2)
}

/// Runs `for_each_block` and returns the blocks with their offsets.
pub(super) fn blocks(
    source: Source,
    block_size: usize,
    max_block: usize,
    cut: impl FnMut(&[u8], bool) -> usize,
) -> Vec<(u64, Vec<u8>)> {
    let mut out = Vec::new();
    source
        .for_each_block(block_size, max_block, cut, |block, offset| {
            out.push((offset, block.to_vec()));
            ControlFlow::Continue(())
        })
        .unwrap();
    out
}

pub(super) fn concat(blocks: &[(u64, Vec<u8>)]) -> Vec<u8> {
    blocks.iter().flat_map(|(_, block)| block.iter().copied()).collect()
}

/// Everything a source delivers, with a cut that takes whole blocks.
pub(super) fn read_all(source: Source) -> Vec<u8> {
    concat(&blocks(source, 16, MAX_BLOCK, cut_after_blank_line))
}

pub(super) fn write_file(path: &Path, bytes: &[u8]) -> InputName {
    if let Some(parent) = path.parent() {
        fs::create_dir_all(parent).unwrap();
    }
    fs::write(path, bytes).unwrap();
    InputName::Path(path.to_owned())
}

pub(super) fn gzip(bytes: &[u8]) -> Vec<u8> {
    let mut encoder = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::default());
    encoder.write_all(bytes).unwrap();
    encoder.finish().unwrap()
}

pub(super) fn bzip2(bytes: &[u8]) -> Vec<u8> {
    let mut encoder = bzip2::write::BzEncoder::new(Vec::new(), bzip2::Compression::default());
    encoder.write_all(bytes).unwrap();
    encoder.finish().unwrap()
}

pub(super) fn xz(bytes: &[u8]) -> Vec<u8> {
    let mut encoder = xz2::write::XzEncoder::new(Vec::new(), 6);
    encoder.write_all(bytes).unwrap();
    encoder.finish().unwrap()
}

pub(super) fn zstd(bytes: &[u8]) -> Vec<u8> {
    zstd::stream::encode_all(bytes, 3).unwrap()
}
