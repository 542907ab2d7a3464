//! Framing packets on worker threads (`--jobs`).
//!
//! A packet whose context gives its first timestamp can be framed without
//! the packets before it. Every such packet of every stream is a job; jobs
//! are claimed in the order of their first timestamps, which is about the
//! order in which the merge needs them. `--jobs N` is N framers: N - 1
//! workers and the reading thread. They frame whole packets ahead, at most
//! `WINDOW` per framer framed and not yet taken (memory stays bounded by a
//! few packets). The reading thread takes each packet when its stream
//! reaches it and frames it itself when nobody has started it; when a
//! worker is at it, it frames the next unstarted packet instead of waiting,
//! so the work balances whatever share the merge and payloads take. Framing
//! is `frame::frame` either way, and the merge and the payload decoding stay
//! on the reading thread: the events and their order are those of one thread.

use std::cell::Cell;
use std::ops::Range;
use std::panic::AssertUnwindSafe;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Condvar, Mutex, MutexGuard};
use std::thread::JoinHandle;

use memmap2::Advice;

use crate::mapped::Mapped;

use super::frame::{self, Framed, Stop};
use super::layout::Layout;

/// Packets framed ahead per framing thread (the workers and the reading thread).
const WINDOW: usize = 2;

/// A packet to frame: everything framing needs, read from its header and
/// context beforehand.
pub(super) struct Job {
    pub info: super::PacketInfo,
    pub map: Arc<Mapped>,
    pub layout: Arc<Layout>,
    pub stream_class: usize,
    /// The packet's bytes in the map.
    pub data: Range<usize>,
    /// Where its events start and its content ends, in bits of the packet.
    pub body: (u64, u64),
    /// The clock before its first event (its `timestamp_begin`).
    pub clock: u64,
    /// The slots after its header and context.
    pub slots: Vec<i64>,
}

impl Job {
    /// Frames the whole packet, with `slots` as scratch.
    pub fn frame(&self, slots: &[Cell<i64>], out: &mut Vec<Framed>) -> Stop {
        for (s, v) in slots.iter().zip(&self.slots) {
            s.set(*v);
        }
        // Map the packet in one call rather than fault page by page (a
        // hint, as on one thread: older kernels refuse it).
        let _ = self
            .map
            .advise_range(Advice::PopulateRead, self.data.start, self.data.len());
        frame::frame(
            &self.layout.streams[self.stream_class],
            &self.layout.clocks,
            slots,
            &self.map[self.data.clone()],
            frame::Start {
                pos: self.body.0,
                end: self.body.1,
                clock: self.clock,
            },
            usize::MAX,
            out,
        )
    }
}

pub(super) struct FramedPacket {
    pub events: Vec<Framed>,
    pub stop: Stop,
}

enum State {
    Free,
    /// A worker is framing it.
    Claimed,
    Done(FramedPacket),
    Taken,
    /// Claimed, and its stream ended at damage (`--lenient`): dropped when framed.
    Abandoned,
}

struct Board {
    states: Vec<State>,
    /// Jobs claimed by workers and not yet taken.
    ahead: usize,
    stop: bool,
}

struct Shared {
    jobs: Vec<Job>,
    board: Mutex<Board>,
    /// Event buffers given back by the streams, for the next packets: a
    /// fresh buffer of a large packet is megabytes of pages to fault in
    /// (a third of the time with two workers before they were reused).
    spare: Mutex<Vec<Vec<Framed>>>,
    /// Finished packets whose pages the workers give back (`release_later`),
    /// so that the reading thread, the one that limits `--jobs`, does not.
    releases: Mutex<Vec<(Arc<Mapped>, Range<usize>)>>,
    changed: Condvar,
    next_claim: AtomicUsize,
    window: usize,
}

impl Shared {
    fn board(&self) -> MutexGuard<'_, Board> {
        // A worker that panicked left the board consistent (states change
        // under the lock in single assignments): go on with it.
        self.board.lock().unwrap_or_else(|p| p.into_inner())
    }
}

/// The worker threads and the jobs they share with the reading thread.
pub(super) struct Pool {
    shared: Arc<Shared>,
    workers: Vec<JoinHandle<()>>,
}

impl Pool {
    /// Starts `workers` threads over `jobs` (in the order to claim them);
    /// the reading thread frames too, when it would wait.
    pub fn start(jobs: Vec<Job>, workers: usize) -> Pool {
        let board = Board {
            states: jobs.iter().map(|_| State::Free).collect(),
            ahead: 0,
            stop: false,
        };
        let shared = Arc::new(Shared {
            jobs,
            board: Mutex::new(board),
            spare: Mutex::new(Vec::new()),
            releases: Mutex::new(Vec::new()),
            changed: Condvar::new(),
            next_claim: AtomicUsize::new(0),
            window: WINDOW * (workers + 1),
        });
        let workers = (0..workers)
            .map(|i| {
                let shared = Arc::clone(&shared);
                std::thread::Builder::new()
                    .name(format!("ctf-frame-{i}"))
                    .spawn(move || work(&shared))
                    .expect("starting a framing thread")
            })
            .collect();
        Pool { shared, workers }
    }

    pub fn job(&self, k: usize) -> &Job {
        &self.shared.jobs[k]
    }

    /// The framed packet of job `k`: framed by a worker (waiting for it if
    /// one is at it), or here with `slots` as scratch if none started it.
    pub fn take(&self, k: usize, slots: &[Cell<i64>]) -> FramedPacket {
        let mut board = self.shared.board();
        loop {
            match std::mem::replace(&mut board.states[k], State::Taken) {
                State::Free => {
                    drop(board);
                    let mut events = self.shared.buffer();
                    let stop = self.shared.jobs[k].frame(slots, &mut events);
                    return FramedPacket { events, stop };
                }
                State::Done(p) => {
                    board.ahead -= 1;
                    self.shared.changed.notify_all();
                    return p;
                }
                State::Claimed => {
                    board.states[k] = State::Claimed;
                    // Rather than wait for the worker at it, frame a packet
                    // nobody has started, for later: the reading thread is
                    // then one of the framers, and the work stays balanced
                    // whatever share of it the merge and payloads take.
                    board = match self.shared.claim(&mut board) {
                        Some(j) => {
                            drop(board);
                            self.shared.frame_claimed(j, &mut Vec::new());
                            self.shared.board()
                        }
                        None => self
                            .shared
                            .changed
                            .wait(board)
                            .unwrap_or_else(|p| p.into_inner()),
                    };
                }
                State::Taken | State::Abandoned => {
                    unreachable!("a job is taken once, by its stream")
                }
            }
        }
    }
}

impl Pool {
    /// Jobs `jobs` will not be taken: their stream ended at damage
    /// (`--lenient`). Dropped now (or, when a worker is at one, once it is
    /// framed), so that they hold no room in the window and no memory.
    pub fn abandon(&self, jobs: impl IntoIterator<Item = usize>) {
        let mut board = self.shared.board();
        for k in jobs {
            match std::mem::replace(&mut board.states[k], State::Taken) {
                State::Done(p) => self.shared.drop_framed(&mut board, k, p),
                State::Claimed => board.states[k] = State::Abandoned,
                _ => {}
            }
        }
        self.shared.changed.notify_all();
    }

    /// Gives back the events of a packet taken earlier, once read.
    pub fn give_back(&self, events: Vec<Framed>) {
        self.shared.keep_buffer(events);
    }

    /// Does the releases queued for the workers on the calling thread.
    pub fn release_now(&self) {
        self.shared.release_queued();
    }
}

/// Releases queued beyond this many are done by the reading thread itself
/// (when the workers are done or busy): memory stays bounded.
const MOST_RELEASES: usize = 4;

impl Pool {
    /// Has `range` of `map` (a finished packet) given back by a worker.
    pub fn release_later(&self, map: &Arc<Mapped>, range: Range<usize>) {
        let mut q = self.shared.lock_releases();
        q.push((Arc::clone(map), range));
        let too_many = q.len() > MOST_RELEASES;
        drop(q);
        if too_many {
            self.shared.release_queued();
        }
    }
}

impl Shared {
    fn lock_releases(&self) -> MutexGuard<'_, Vec<(Arc<Mapped>, Range<usize>)>> {
        self.releases.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// Does the releases queued so far.
    fn release_queued(&self) {
        let all = std::mem::take(&mut *self.lock_releases());
        for (m, r) in all {
            super::pages::release_pages(&m, r);
        }
    }

    /// Claims the next job nobody has started, when the window allows.
    fn claim(&self, board: &mut Board) -> Option<usize> {
        while board.ahead < self.window && !board.stop {
            let k = self.next_claim.fetch_add(1, Ordering::Relaxed);
            match board.states.get(k)? {
                State::Free => {
                    board.states[k] = State::Claimed;
                    board.ahead += 1;
                    return Some(k);
                }
                // Taken by its stream, framed there.
                _ => continue,
            }
        }
        None
    }

    /// Frames job `k`, claimed by the caller, with `slots` as scratch, and
    /// posts it; false if framing panicked.
    fn frame_claimed(&self, k: usize, slots: &mut Vec<Cell<i64>>) -> bool {
        let job = &self.jobs[k];
        slots.resize_with(job.slots.len(), || Cell::new(0));
        let framed = std::panic::catch_unwind(AssertUnwindSafe(|| {
            let mut events = self.buffer();
            let stop = job.frame(slots, &mut events);
            FramedPacket { events, stop }
        }));
        let mut board = self.board();
        let done = framed.is_ok();
        if matches!(board.states[k], State::Abandoned) {
            board.states[k] = State::Taken;
            match framed {
                Ok(p) => self.drop_framed(&mut board, k, p),
                Err(_) => board.ahead -= 1,
            }
            self.changed.notify_all();
            return done;
        }
        board.states[k] = match framed {
            Ok(p) => State::Done(p),
            // A bug, not bad data: give the packet back so that the reading
            // thread frames it and meets the same panic, rather than waiting
            // for it forever.
            Err(_) => {
                board.ahead -= 1;
                State::Free
            }
        };
        self.changed.notify_all();
        done
    }

    /// Drops job `k`'s framed packet, which no stream will take: its room
    /// in the window, its buffer (kept for the next packets) and its pages.
    fn drop_framed(&self, board: &mut Board, k: usize, p: FramedPacket) {
        board.ahead -= 1;
        self.keep_buffer(p.events);
        let job = &self.jobs[k];
        self.lock_releases()
            .push((Arc::clone(&job.map), job.data.clone()));
    }

    /// Keeps an event buffer done with, for the next packets.
    fn keep_buffer(&self, mut events: Vec<Framed>) {
        events.clear();
        let mut spare = self.spare.lock().unwrap_or_else(|p| p.into_inner());
        // At most one per packet that may be framed ahead, and the one being read.
        if spare.len() <= self.window && events.capacity() > 0 {
            spare.push(events);
        }
    }

    fn buffer(&self) -> Vec<Framed> {
        let mut spare = self.spare.lock().unwrap_or_else(|p| p.into_inner());
        spare.pop().unwrap_or_default()
    }
}

impl Drop for Pool {
    fn drop(&mut self) {
        self.shared.board().stop = true;
        self.shared.changed.notify_all();
        for w in self.workers.drain(..) {
            // A worker's panic was reported on its thread already.
            let _ = w.join();
        }
    }
}

fn work(shared: &Shared) {
    let mut slots = Vec::new();
    loop {
        shared.release_queued();
        let mut board = shared.board();
        let k = loop {
            if board.stop || shared.next_claim.load(Ordering::Relaxed) >= shared.jobs.len() {
                return;
            }
            if let Some(k) = shared.claim(&mut board) {
                break k;
            }
            // The window is full: wait for a take.
            board = shared
                .changed
                .wait(board)
                .unwrap_or_else(|p| p.into_inner());
            // The stream that took a packet has likely queued the pages of
            // the one before.
            drop(board);
            shared.release_queued();
            board = shared.board();
        };
        drop(board);
        if !shared.frame_claimed(k, &mut slots) {
            return;
        }
    }
}
