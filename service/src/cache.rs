//! Answers of repeated viewport requests (time-graph states, XY series)
//! kept in a bounded LRU cache: a viewer scrolling back, or several clients
//! on one experiment, get them without sampling again.
//!
//! The key is (experiment, output, request kind, the body as canonical JSON:
//! serde_json writes object keys sorted), so that the same viewport asked
//! with its keys in another order hits too. Only COMPLETED answers are kept:
//! a RUNNING one would hide the result once indexing ends. Deleting a derived
//! output or an experiment forgets its answers.

use std::num::NonZeroUsize;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Mutex;

use lru::LruCache;
use serde_json::{json, Value};
use uuid::Uuid;

use super::params::Result;
use super::reply::Reply;

/// Answers kept unless `--cache-entries` says otherwise. A states answer for
/// 1,000 pixels over ten thousand rows is a few MB: 64 of them stay well
/// within a workstation's memory.
pub const DEFAULT_ENTRIES: usize = 64;

#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct Key {
    exp: Uuid,
    output: String,
    request: &'static str,
    body: String,
}

impl Key {
    pub fn new(exp: Uuid, output: &str, request: &'static str, body: &Value) -> Key {
        Key {
            exp,
            output: output.to_string(),
            request,
            body: body.to_string(),
        }
    }
}

pub struct Cache {
    /// `None` when caching is off (`--cache-entries 0`).
    lru: Option<Mutex<LruCache<Key, Reply>>>,
    capacity: usize,
    hits: AtomicU64,
    misses: AtomicU64,
}

impl Cache {
    pub fn new(entries: usize) -> Cache {
        Cache {
            lru: NonZeroUsize::new(entries).map(|n| Mutex::new(LruCache::new(n))),
            capacity: entries,
            hits: AtomicU64::new(0),
            misses: AtomicU64::new(0),
        }
    }

    /// The cached answer to `key`, or `compute`'s (kept when COMPLETED). The
    /// lock is not held while computing: two clients missing at once both
    /// compute, and neither waits for the other.
    /// Answers are kept as shared text: a hit copies a pointer, not a tree.
    pub fn get_or(&self, key: Key, compute: impl FnOnce() -> Result<Reply>) -> Result<Reply> {
        let Some(lru) = &self.lru else {
            return compute();
        };
        if let Some(v) = lru.lock().expect("not poisoned").get(&key) {
            self.hits.fetch_add(1, Ordering::Relaxed);
            return Ok(v.clone());
        }
        self.misses.fetch_add(1, Ordering::Relaxed);
        let v = compute()?;
        if !v.is_completed() {
            return Ok(v);
        }
        let v = v.into_text()?;
        lru.lock().expect("not poisoned").put(key, v.clone());
        Ok(v)
    }

    /// Forgets the experiment's answers whose output `forget` accepts.
    pub fn forget(&self, exp: Uuid, forget: impl Fn(&str) -> bool) {
        let Some(lru) = &self.lru else {
            return;
        };
        let mut lru = lru.lock().expect("not poisoned");
        let gone: Vec<Key> = lru
            .iter()
            .filter(|(k, _)| k.exp == exp && forget(&k.output))
            .map(|(k, _)| k.clone())
            .collect();
        for k in gone {
            lru.pop(&k);
        }
    }

    /// `{capacity, entries, hits, misses}`, shown by `GET /identifier`.
    pub fn stats(&self) -> Value {
        let entries = self
            .lru
            .as_ref()
            .map_or(0, |l| l.lock().expect("not poisoned").len());
        json!({
            "capacity": self.capacity,
            "entries": entries,
            "hits": self.hits.load(Ordering::Relaxed),
            "misses": self.misses.load(Ordering::Relaxed),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn done(n: i64) -> Result<Reply> {
        Ok(json!({"model": n, "status": "COMPLETED"}).into())
    }

    fn model(r: Result<Reply>) -> Value {
        r.unwrap().into_value().unwrap()["model"].clone()
    }

    #[test]
    fn hits_evicts_and_forgets() {
        let c = Cache::new(2);
        let exp = Uuid::nil();
        let key = |o: &str, n: i64| Key::new(exp, o, "xy", &json!({"parameters": {"n": n}}));
        assert_eq!(model(c.get_or(key("a", 1), || done(1))), 1);
        // A hit does not compute.
        assert_eq!(model(c.get_or(key("a", 1), || done(99))), 1);
        c.get_or(key("a", 2), || done(2)).unwrap();
        c.get_or(key("b", 3), || done(3)).unwrap();
        assert_eq!(c.stats()["entries"], 2, "bounded");
        // (a, 1) was the least recently used: evicted.
        assert_eq!(model(c.get_or(key("a", 1), || done(5))), 5);
        assert_eq!(c.stats()["hits"], 1);
        c.forget(exp, |o| o == "a");
        assert_eq!(c.stats()["entries"], 1);
        // RUNNING answers are not kept.
        let running = || Ok(json!({"model": 0, "status": "RUNNING"}).into());
        c.get_or(key("c", 1), running).unwrap();
        assert_eq!(model(c.get_or(key("c", 1), || done(7))), 7);
        // Off: always computes.
        let off = Cache::new(0);
        off.get_or(key("a", 1), || done(1)).unwrap();
        assert_eq!(model(off.get_or(key("a", 1), || done(2))), 2);
    }
}
