//! Helpers for calling the C ABI from Rust tests, the way a C caller would: the shared test
//! kit (`kit.rs`, also used by the fuzz targets and the criterion benchmark), and what only
//! the tests need.
#![allow(dead_code)]

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::thread;
use std::time::Duration;

mod kit;

pub use kit::*;
pub use sqlbatch::*;

/// Calls `sqlbatch_conn_interrupt` on `conn` every millisecond until stopped: whatever the
/// moment the call under test reaches, an interrupt arrives while it runs.
pub struct Interrupter {
    stop: Arc<AtomicBool>,
    thread: Option<thread::JoinHandle<()>>,
}

impl Interrupter {
    pub fn start(c: &Conn, after: Duration) -> Interrupter {
        let stop = Arc::new(AtomicBool::new(false));
        let (handle, flag) = (c.0 as usize, stop.clone());
        let thread = thread::spawn(move || {
            thread::sleep(after);
            while !flag.load(Ordering::SeqCst) {
                unsafe { sqlbatch_conn_interrupt(handle as *const sqlbatch_conn) };
                thread::sleep(Duration::from_millis(1));
            }
        });
        Interrupter { stop, thread: Some(thread) }
    }
}

impl Drop for Interrupter {
    fn drop(&mut self) {
        self.stop.store(true, Ordering::SeqCst);
        self.thread.take().unwrap().join().unwrap();
    }
}
