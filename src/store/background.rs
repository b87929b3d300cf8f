//! [`Background`]: a thread that runs one job again each time it is asked,
//! the shape of the import's checkpoint and sync threads.
//!
//! Requests made while one is pending are merged: each job (a checkpoint,
//! a sync) covers everything done before it starts, so one pending request
//! is enough and asking never waits.

use std::sync::mpsc::{self, SyncSender};
use std::thread::JoinHandle;

use crate::timings::{self, Span, Stage};

/// A named thread running a job on request.
#[derive(Debug)]
pub struct Background {
    requests: Option<SyncSender<()>>,
    thread: Option<JoinHandle<()>>,
}

impl Background {
    /// Starts the thread `name` of `stage`, which runs `job` once per
    /// request, each run counted to `span`; `None` if it cannot be started.
    pub fn start(
        name: &str,
        (stage, span): (Stage, Span),
        mut job: impl FnMut() + Send + 'static,
    ) -> Option<Background> {
        let (requests, pending) = mpsc::sync_channel::<()>(1);
        let thread = std::thread::Builder::new()
            .name(name.into())
            .spawn(move || {
                let _clock = timings::ThreadClock::start(stage);
                while pending.recv().is_ok() {
                    timings::timed(span, &mut job);
                }
            })
            .ok()?;
        Some(Background { requests: Some(requests), thread: Some(thread) })
    }

    /// Asks for a run of the job; never waits.
    pub fn request(&self) {
        if let Some(requests) = &self.requests {
            // Full: a request is pending already.
            let _ = requests.try_send(());
        }
    }

    /// Stops the thread after its running job and the pending one, if
    /// any.
    pub fn stop(mut self) {
        self.shut_down();
    }

    fn shut_down(&mut self) {
        self.requests = None;
        if let Some(thread) = self.thread.take() {
            // The thread catches nothing; a panic there lost only its job.
            let _ = thread.join();
        }
    }
}

impl Drop for Background {
    fn drop(&mut self) {
        self.shut_down();
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::atomic::{AtomicUsize, Ordering};
    use std::sync::Arc;

    #[test]
    fn runs_the_job_for_requests_and_stops() {
        let runs = Arc::new(AtomicUsize::new(0));
        let counter = Arc::clone(&runs);
        let background =
            Background::start("test-background", (Stage::Sync, Span::Syncing), move || {
                counter.fetch_add(1, Ordering::SeqCst);
            })
            .unwrap();
        for _ in 0..50 {
            background.request();
        }
        background.stop();
        // Merged requests: at least one run, at most one per request.
        let n = runs.load(Ordering::SeqCst);
        assert!((1..=50).contains(&n), "{n} runs");
    }
}
