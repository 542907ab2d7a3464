//! Event classes of BTF rows: one per (target type, action), named
//! `<type>_<action>` (`T_preempt`, `R_start`, `SEM_assigned`, `STI_trigger`),
//! with the action already decoded for the model.

use rustc_hash::FxHashMap as HashMap;

use super::intern::Key;
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

/// Bits of a slot number of the class cache.
const BITS: u32 = 6;

/// Classes by (type, action), numbered from 0 in order of appearance.
#[derive(Debug)]
pub struct Classes {
    by_type: HashMap<Box<[u8]>, ByAction>,
    classes: Vec<Class>,
    /// Class ids by the keys of (type, action), which are the names
    /// themselves when short (they are: `T`, `activate`): a trace has a
    /// few dozen classes, and hashing both names fully for every row, or
    /// comparing them with `memcmp`, cost more than the rest of the lookup.
    cache: [(Key, Key, u32); 1 << BITS],
}

impl Default for Classes {
    fn default() -> Self {
        Classes {
            by_type: HashMap::default(),
            classes: Vec::new(),
            cache: [(Key::of(b""), Key::of(b""), u32::MAX); 1 << BITS],
        }
    }
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
    #[inline]
    pub fn id(&mut self, target_type: &[u8], action: &[u8]) -> u32 {
        let keys = (Key::of(target_type), Key::of(action));
        let k = (keys.0.slot(BITS) + keys.1.slot(BITS)) % (1 << BITS);
        let (t, a, cached) = self.cache[k];
        if (t, a) == keys {
            let exact = t.is_exact() && a.is_exact();
            // An empty slot has an id no class has, so `get` fails then.
            if let Some(c) = self.classes.get(cached as usize) {
                if exact || named(&c.name, target_type, action) {
                    return cached;
                }
            }
        }
        self.missed(target_type, action, keys, k)
    }

    /// A class not in its cache slot: looked up (or made) and cached.
    #[cold]
    fn missed(&mut self, target_type: &[u8], action: &[u8], keys: (Key, Key), k: usize) -> u32 {
        if let Some(&id) = self.by_type.get(target_type).and_then(|a| a.get(action)) {
            self.cache[k] = (keys.0, keys.1, id);
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
        self.cache[k] = (keys.0, keys.1, id);
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
