//! Page buffers kept for the next pages made on the same thread.
//!
//! A batch's leaves are about as many as the last batch's. A fresh page
//! buffer goes through the allocator's path for large sizes and has its
//! memory faulted in at first touch; on the writer thread that was about a
//! fifth of its time on TCEC files. A buffer given back after its page is
//! written is taken again, zeroed, already mapped.
//!
//! Each thread keeps its own buffers (no lock, no buffer crosses threads
//! here), at most [`KEPT_BYTES`] of them; the rest are freed as usual.

use std::cell::RefCell;

/// Bytes of buffers a thread keeps at most.
const KEPT_BYTES: usize = 16 << 20;

/// A thread's buffers and their bytes.
struct Kept {
    pages: Vec<Vec<u8>>,
    bytes: usize,
}

thread_local! {
    static KEPT: RefCell<Kept> = const { RefCell::new(Kept { pages: Vec::new(), bytes: 0 }) };
}

/// A page of `size` zero bytes: a buffer given back on this thread if one
/// of that size is kept, else a new one.
pub fn take(size: usize) -> Vec<u8> {
    let kept = KEPT.with_borrow_mut(|kept| {
        // Kept buffers all have the size of the pages this thread writes;
        // one of another size is of a database no longer written.
        while let Some(page) = kept.pages.pop() {
            kept.bytes -= page.len();
            if page.len() == size {
                return Some(page);
            }
        }
        None
    });
    match kept {
        Some(mut page) => {
            page.fill(0);
            page
        }
        None => vec![0; size],
    }
}

/// Keeps `pages`, written and no longer needed, for [`take`] on this
/// thread, up to [`KEPT_BYTES`]; frees the rest.
pub fn give_back(pages: impl IntoIterator<Item = Vec<u8>>) {
    KEPT.with_borrow_mut(|kept| {
        for page in pages {
            if kept.bytes + page.len() > KEPT_BYTES {
                break;
            }
            kept.bytes += page.len();
            kept.pages.push(page);
        }
    });
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_page_given_back_is_taken_again_zeroed() {
        let mut page = take(512);
        assert_eq!(page, vec![0; 512]);
        page.fill(7);
        let at = page.as_ptr();
        give_back([page]);
        let again = take(512);
        assert_eq!(again.as_ptr(), at, "the same buffer");
        assert_eq!(again, vec![0; 512]);
    }

    #[test]
    fn a_page_of_another_size_is_not_taken() {
        give_back([vec![1; 1024]]);
        assert_eq!(take(2048), vec![0; 2048]);
        // The buffer of the other size was dropped on the way.
        assert_eq!(take(1024), vec![0; 1024]);
    }

    #[test]
    fn keeps_at_most_its_bytes() {
        let size = 64 << 10;
        give_back((0..2 * KEPT_BYTES / size).map(|_| vec![0u8; size]));
        let kept = KEPT.with_borrow(|kept| kept.pages.iter().map(Vec::len).sum::<usize>());
        assert_eq!(kept, KEPT_BYTES);
        assert_eq!(KEPT.with_borrow(|kept| kept.bytes), KEPT_BYTES);
    }
}
