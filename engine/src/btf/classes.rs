//! Event classes of BTF rows: one per (target type, action), named
//! `<type>_<action>` (`T_preempt`, `R_start`, `SEM_assigned`, `STI_trigger`),
//! with the action already decoded for the model.

use rustc_hash::FxHashMap as HashMap;

use super::names::EntityType;
use super::os::{EventAction, SignalAction};
use super::process::ProcessAction;
use super::runnable::RunnableAction;
use super::semaphore::SemAction;

/// What a row of a class does, for the model.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ClassKind {
    Process(ProcessAction),
    Runnable(RunnableAction),
    Semaphore(SemAction),
    Signal(SignalAction),
    Event(EventAction),
    /// A stimulus triggered (`STI ... trigger`).
    Trigger,
    /// A row about a core (`C`).
    Core,
    Other,
}

#[derive(Debug, Clone)]
pub struct Class {
    /// `<type>_<action>`.
    pub name: Box<str>,
    pub kind: ClassKind,
}

/// Class ids of one target type, by action.
type ByAction = HashMap<Box<[u8]>, u32>;

/// Classes by (type, action), numbered from 0 in order of appearance.
#[derive(Debug, Default)]
pub struct Classes {
    by_type: HashMap<Box<[u8]>, ByAction>,
    classes: Vec<Class>,
}

impl Classes {
    pub fn id(&mut self, target_type: &[u8], action: &[u8]) -> u32 {
        if let Some(id) = self.by_type.get(target_type).and_then(|a| a.get(action)) {
            return *id;
        }
        let id = self.classes.len() as u32;
        let ty = EntityType::of(target_type);
        let kind = match ty {
            EntityType::Task | EntityType::Isr => ClassKind::Process(ProcessAction::of(action)),
            EntityType::Runnable => ClassKind::Runnable(RunnableAction::of(action)),
            EntityType::Semaphore => ClassKind::Semaphore(SemAction::of(action)),
            EntityType::Signal => ClassKind::Signal(SignalAction::of(action)),
            EntityType::Event => ClassKind::Event(EventAction::of(action)),
            EntityType::Stimulus if action == b"trigger" => ClassKind::Trigger,
            EntityType::Core => ClassKind::Core,
            _ => ClassKind::Other,
        };
        let name = format!(
            "{}_{}",
            String::from_utf8_lossy(target_type),
            String::from_utf8_lossy(action)
        );
        self.classes.push(Class {
            name: name.into_boxed_str(),
            kind,
        });
        self.by_type
            .entry(target_type.into())
            .or_default()
            .insert(action.into(), id);
        id
    }

    pub fn get(&self, id: u32) -> &Class {
        &self.classes[id as usize]
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn one_class_per_type_and_action() {
        let mut c = Classes::default();
        let a = c.id(b"T", b"preempt");
        let b = c.id(b"R", b"start");
        assert_eq!(c.id(b"T", b"preempt"), a);
        assert_ne!(a, b);
        assert_eq!(&*c.get(a).name, "T_preempt");
        assert_eq!(c.get(a).kind, ClassKind::Process(ProcessAction::Preempt));
        assert_eq!(c.get(b).kind, ClassKind::Runnable(RunnableAction::Start));
        let s = c.id(b"STI", b"trigger");
        assert_eq!(c.get(s).kind, ClassKind::Trigger);
        let o = c.id(b"IB", b"start");
        assert_eq!(
            (&*c.get(o).name, c.get(o).kind),
            ("IB_start", ClassKind::Other)
        );
    }
}
