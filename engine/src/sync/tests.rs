use super::*;
use sextant_formats::testing::shared_ctf as shared;

/// Trace Compass's ExperimentSyncTest.testExperimentSync on the same
/// traces: VM3 (scp_dest) is the reference, and VM1's (scp_src) times go
/// onto it by `slope = 0.9999413783703139011056845831168394, offset =
/// 79796507913179.33347660124688298171`; MatchAndSyncTest finds 46
/// matched packets.
#[test]
fn synctraces_match_trace_compass() {
    let Some(sync) = shared("synctraces") else {
        return;
    };
    let s = synchronize(&[sync]).unwrap();
    let names: Vec<&str> = s.hosts.iter().map(|h| h.name.as_str()).collect();
    assert_eq!(names, ["VM3", "VM1"]);
    assert_eq!(s.reference, Some(0), "VM3's clock UUID is the smaller");
    assert_eq!(s.pairs.len(), 1);
    let pair = &s.pairs[0];
    assert_eq!(pair.messages + s.local_messages, 46);
    assert_eq!((pair.reference, pair.other), (0, 1));
    assert_eq!(pair.quality, Quality::Accurate);
    assert_eq!(s.hosts[0].correction, Some(Correction::IDENTITY));
    let vm1 = s.hosts[1].correction.unwrap();
    // slope − 1, written out: 0.99994… as an f64 would lose the digits
    // that matter at 10¹⁸ ns.
    let want_drift = -5.862_162_968_609_89e-5;
    assert!(
        (vm1.drift - want_drift).abs() < 1e-18,
        "slope − 1 = {}, Trace Compass has {want_drift}",
        vm1.drift
    );
    // Compared where it is used: on VM1's times, to the nanosecond. Trace
    // Compass moves t by (slope − 1)·t + offset.
    let offset = 79_796_507_913_179.33;
    for t in [1_361_214_076_535_112_167i64, 1_361_214_090_000_000_000] {
        let want = want_drift * t as f64 + offset;
        let got = (vm1.apply(t) - t) as f64;
        assert!(
            (got - want).abs() <= 1.0,
            "VM1 time {t} moves by {got} ns, by {want} in Trace Compass"
        );
    }
}

/// The packets each host received from the other, as explain is given
/// them: every message the sync paired across the two hosts, once, on the
/// receiving host's CPU, sent before it arrived on the shared timeline.
#[test]
fn synctraces_arrivals_are_the_sync_messages() {
    let Some(sync) = shared("synctraces") else {
        return;
    };
    let s = synchronize(&[sync]).unwrap();
    let to_vm3 = received_by(&s, 0);
    let to_vm1 = received_by(&s, 1);
    assert_eq!(to_vm3.len() + to_vm1.len(), s.pairs[0].messages);
    assert!(!to_vm3.is_empty() && !to_vm1.is_empty());
    assert!(to_vm3.iter().all(|a| a.from == "VM1"));
    assert!(to_vm1.iter().all(|a| a.from == "VM3"));
    for a in to_vm3.iter().chain(&to_vm1) {
        assert!(
            a.transit > 0 && a.transit < 10_000_000,
            "{a:?}: a packet between two virtual machines of one host"
        );
    }
    assert!(to_vm3.windows(2).all(|w| w[0].received <= w[1].received));
    // VM3 is the reference: its receptions are on the shared timeline
    // already.
    assert!(to_vm3.iter().all(|a| a.sent + a.transit == a.received));
}

/// A cache directory of its own for a test, removed when dropped.
struct Cache(PathBuf);

impl Cache {
    fn new(name: &str) -> Cache {
        let dir = std::env::temp_dir().join(format!("sextant-sync-{name}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        Cache(dir)
    }

    /// The store of `trace`, in this cache (never beside the trace).
    fn store(&self, trace: &Path) -> crate::store::TraceStore {
        let places = crate::store::Places::new(Some(self.0.clone()), Default::default());
        crate::store::TraceStore::open(&places, trace).unwrap()
    }
}

impl Drop for Cache {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

/// The stored unit gives back the synchronisation with the packets it
/// matched, and which of its hosts the store's trace holds (the folder:
/// both), so that explain's arrivals come from it alone.
#[test]
fn a_stored_sync_keeps_its_matched_packets() {
    let Some(sync) = shared("synctraces") else {
        return;
    };
    let s = synchronize(std::slice::from_ref(&sync)).unwrap();
    assert_eq!(s.exchanged.len(), s.pairs[0].messages);
    let cache = Cache::new("kept");
    let store = cache.store(&sync);
    stored::save(&s, &sync, &store).unwrap();
    let back = stored::load(&store).unwrap().unwrap();
    assert_eq!(back.sync, s);
    assert_eq!(back.own, [0, 1]);
    for host in [0, 1] {
        assert_eq!(received_by(&back.sync, host), received_by(&s, host));
    }
    // Each host's own trace: its store names that host alone.
    let dest = sync.join("scp_dest");
    let by_trace = synchronize(&[dest.clone(), sync.join("scp_src")]).unwrap();
    let store = cache.store(&dest);
    stored::save(&by_trace, &dest, &store).unwrap();
    assert_eq!(stored::load(&store).unwrap().unwrap().own, [0]);
}

/// A sync stored by an earlier sextant (the result alone, without the
/// packets) is not used, and the reason says to synchronise again.
#[test]
fn a_sync_stored_without_its_packets_is_reported() {
    let Some(sync) = shared("synctraces") else {
        return;
    };
    let s = synchronize(std::slice::from_ref(&sync)).unwrap();
    let cache = Cache::new("earlier");
    let store = cache.store(&sync);
    store
        .write("sync", Vec::new(), serde_json::to_value(&s).unwrap())
        .unwrap();
    let e = stored::load(&store).unwrap_err();
    assert!(matches!(e, crate::store::Unusable::Outdated { .. }), "{e}");
    assert!(e.to_string().contains("run `sextant sync` again"), "{e}");
}
