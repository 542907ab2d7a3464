//! The `task-instance` preset's instances on small BTF files written here.

use crate::analysis::executions::{Execution, ExecutionAnalysis, Target};
use crate::analysis::model::{Preset, ThreadFilter};
use crate::btf::{BtfSource, Options};
use crate::event::EventSource;
use crate::run::{Pass, Work};
use sextant_formats::testing::TempFile;

/// Task instances through the pass: every process state, an instance
/// activated while another of its task lives, a migration, runnables nested
/// by call stack.
#[test]
fn task_instances_measure_every_state() {
    let text = "#version 2.2\n#timeScale ns\n\
        0,SIM,0,STI,TIM,0,trigger\n0,TIM,0,T,A,0,activate\n\
        10,Core_0,0,T,A,0,start\n10,A,0,R,R1,0,start\n20,A,0,R,R2,0,start\n\
        30,Core_0,0,T,A,0,poll\n40,Core_0,0,T,A,0,park\n50,Core_0,0,T,A,0,release_parking\n\
        60,Core_1,0,T,A,0,resume\n65,TIM,1,T,A,1,activate\n70,Core_1,0,T,A,0,wait\n\
        80,Core_1,0,T,A,0,release\n90,Core_1,0,T,A,0,resume\n95,Core_1,0,T,A,0,preempt\n\
        100,Core_1,0,T,A,0,resume\n110,A,0,R,R2,0,terminate\n120,A,0,R,R1,0,terminate\n\
        130,Core_1,0,T,A,0,terminate\n140,Core_0,0,T,A,1,start\n150,Core_0,0,T,A,1,terminate\n";
    let f = TempFile::new("instances.btf", text.as_bytes());
    let mut source = BtfSource::open(&f.0, Options::default()).unwrap();
    let target = Target::States(Preset::TaskInstance, ThreadFilter::default());
    let mut analysis = ExecutionAnalysis::new(target);
    Pass::new(&mut [&mut analysis])
        .read_source(&mut source, &Work::none())
        .unwrap();
    assert!(source.warnings().is_empty(), "{:?}", source.warnings());
    let found = analysis.into_executions();
    assert_eq!(found.incomplete, 0);
    let [a0, a1] = &found.executions[..] else {
        panic!("{:#?}", found.executions);
    };
    let times = |x: &Execution| {
        let b = x.btf.as_ref().unwrap();
        (
            b.active,
            b.ready,
            b.running,
            b.polling,
            b.waiting,
            b.parking,
            b.migrations,
        )
    };
    assert_eq!((a0.start, a0.end, a0.cpus.clone()), (0, 130, vec![0, 1]));
    assert_eq!(times(a0), (10, 25, 65, 10, 10, 10, 1));
    assert_eq!(
        (a0.running, a0.preempted, a0.waiting, a0.blocked),
        (75, 5, 30, 20)
    );
    assert_eq!(a0.btf.as_ref().unwrap().instance, 0);
    assert_eq!(
        (a1.start, a1.end, a1.running, a1.waiting),
        (65, 150, 10, 75)
    );
    assert_eq!(times(a1), (75, 0, 10, 0, 0, 0, 0));
    // R1 [10, 120] holds R2 [20, 110].
    let [r1] = &a0.nested[..] else {
        panic!("{:#?}", a0.nested);
    };
    assert_eq!((r1.start, r1.end), (10, 120));
    assert_eq!(r1.btf.as_ref().unwrap().entity, "R1");
    assert_eq!(
        (r1.running, r1.preempted, r1.waiting, r1.blocked),
        (65, 5, 20, 20)
    );
    let [r2] = &r1.nested[..] else {
        panic!("{:#?}", r1.nested);
    };
    assert_eq!((r2.start, r2.end, r2.running), (20, 110, 45));
}
