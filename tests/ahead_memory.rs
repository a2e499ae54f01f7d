//! Fetch-ahead's memory bound: at most two batches per statement, the one read and the one
//! stepped. Peak heap bytes (a counting allocator; SQLite's own memory is not counted),
//! synchronous against fetch-ahead, for a result whose rows go from small (so that a job
//! steps several of the caller's batches) to large (so that one of them is large), and back.
mod common;
use common::*;

use std::alloc::{GlobalAlloc, Layout, System};
use std::sync::atomic::{AtomicUsize, Ordering::SeqCst};

struct Counting;
static LIVE: AtomicUsize = AtomicUsize::new(0);
static PEAK: AtomicUsize = AtomicUsize::new(0);

unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, l: Layout) -> *mut u8 {
        let p = unsafe { System.alloc(l) };
        if !p.is_null() {
            let now = LIVE.fetch_add(l.size(), SeqCst) + l.size();
            PEAK.fetch_max(now, SeqCst);
        }
        p
    }
    unsafe fn dealloc(&self, p: *mut u8, l: Layout) {
        unsafe { System.dealloc(p, l) };
        LIVE.fetch_sub(l.size(), SeqCst);
    }
    unsafe fn realloc(&self, p: *mut u8, l: Layout, new: usize) -> *mut u8 {
        let q = unsafe { System.realloc(p, l, new) };
        if !q.is_null() {
            if new > l.size() {
                let now = LIVE.fetch_add(new - l.size(), SeqCst) + new - l.size();
                PEAK.fetch_max(now, SeqCst);
            } else {
                LIVE.fetch_sub(l.size() - new, SeqCst);
            }
        }
        q
    }
}

#[global_allocator]
static A: Counting = Counting;

fn peak_of(ahead: bool) -> usize {
    let c = Conn::memory();
    // Per 30 rows: 20 of one small integer, then 10 of a 2 MB blob; batches of 10 rows.
    let s = c.prepare(
        "WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 120)
         SELECT CASE WHEN (i - 1) % 30 < 20 THEN i ELSE zeroblob(2000000) END FROM n",
    );
    assert_eq!(unsafe { sqlbatch_stmt_set_fetch_ahead(s.0, ahead) }, SQLBATCH_OK);
    let base = LIVE.load(SeqCst);
    PEAK.store(base, SeqCst);
    let mut rows = 0;
    loop {
        let (rc, b) = s.fetch(10, usize::MAX);
        assert!(rc == SQLBATCH_ROW || rc == SQLBATCH_DONE, "rc {rc}");
        rows += b.n_rows;
        if rc == SQLBATCH_DONE {
            break;
        }
    }
    assert_eq!(rows, 120);
    let peak = PEAK.load(SeqCst) - base;
    drop(s);
    drop(c);
    peak
}

#[test]
fn fetch_ahead_holds_at_most_twice_the_synchronous_memory() {
    let sync = peak_of(false);
    let ahead = peak_of(true);
    let batch = 10 * 2_000_000;
    eprintln!(
        "one batch = {} MB; peak sync {} B, ahead {} B ({:.2} batches)",
        batch >> 20,
        sync,
        ahead,
        ahead as f64 / batch as f64
    );
    // The header: at most two batches per statement (the one read and the one stepped).
    assert!(ahead <= 2 * sync + (1 << 20), "ahead peak {ahead} > 2 x sync peak {sync}");
}
