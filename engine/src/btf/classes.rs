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

/// Slots of the class cache (a power of two).
const SLOTS: usize = 64;

/// Classes by (type, action), numbered from 0 in order of appearance.
#[derive(Debug)]
pub struct Classes {
    by_type: HashMap<Box<[u8]>, ByAction>,
    classes: Vec<Class>,
    /// Class ids by a cheap hash of (type, action), checked against the
    /// class's name: a trace has a few dozen classes, and hashing both
    /// names fully for every row cost more than the rest of the lookup.
    cache: [u32; SLOTS],
}

impl Default for Classes {
    fn default() -> Self {
        Classes {
            by_type: HashMap::default(),
            classes: Vec::new(),
            cache: [u32::MAX; SLOTS],
        }
    }
}

/// The cache slot of (type, action): their lengths and end bytes.
fn slot(target_type: &[u8], action: &[u8]) -> usize {
    let end = |b: &[u8]| b.last().map_or(0, |&c| usize::from(c));
    let first = |b: &[u8]| b.first().map_or(0, |&c| usize::from(c));
    (target_type.len() * 7
        + first(target_type) * 3
        + action.len() * 5
        + first(action)
        + end(action) * 11)
        % SLOTS
}

/// Whether `name` is `<type>_<action>`.
fn named(name: &str, target_type: &[u8], action: &[u8]) -> bool {
    let n = name.as_bytes();
    n.len() == target_type.len() + 1 + action.len()
        && n.starts_with(target_type)
        && n[target_type.len()] == b'_'
        && n.ends_with(action)
}

impl Classes {
    pub fn id(&mut self, target_type: &[u8], action: &[u8]) -> u32 {
        let k = slot(target_type, action);
        let cached = self.cache[k];
        if let Some(c) = self.classes.get(cached as usize) {
            if named(&c.name, target_type, action) {
                return cached;
            }
        }
        if let Some(&id) = self.by_type.get(target_type).and_then(|a| a.get(action)) {
            self.cache[k] = id;
            return id;
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
        self.cache[k] = id;
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
        // Many classes sharing cache slots still get their own ids.
        let mut ids = Vec::new();
        for a in 0..200u32 {
            ids.push(c.id(b"X", a.to_string().as_bytes()));
        }
        for a in 0..200u32 {
            assert_eq!(c.id(b"X", a.to_string().as_bytes()), ids[a as usize]);
            assert_eq!(&*c.get(ids[a as usize]).name, format!("X_{a}"));
        }
        assert_eq!(c.id(b"T", b"preempt"), a);
        let o = c.id(b"IB", b"start");
        assert_eq!(
            (&*c.get(o).name, c.get(o).kind),
            ("IB_start", ClassKind::Other)
        );
    }
}
