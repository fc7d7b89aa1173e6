//! Application state handed to handlers: one value per type, registered
//! with [`ServerBuilder::state`](crate::server::ServerBuilder::state) and read with
//! [`ToolContext::state`](crate::server::api::context::ToolContext::state).

use std::any::{Any, TypeId};
use std::collections::HashMap;
use std::sync::Arc;

/// One value per type.
#[derive(Clone, Default)]
pub(crate) struct States {
    by_type: HashMap<TypeId, Arc<dyn Any + Send + Sync>>,
}

impl States {
    /// Register `value` (replacing an earlier value of the same type).
    pub(crate) fn insert<S: Send + Sync + 'static>(&mut self, value: S) {
        self.by_type.insert(TypeId::of::<S>(), Arc::new(value));
    }

    /// The value registered under `type_id`, if any.
    pub(crate) fn get_any(&self, type_id: TypeId) -> Option<&(dyn Any + Send + Sync)> {
        self.by_type.get(&type_id).map(|v| &**v)
    }

    /// The value of type `S`, if one was registered.
    #[cfg(test)]
    pub(crate) fn get<S: Send + Sync + 'static>(&self) -> Option<&S> {
        self.by_type
            .get(&TypeId::of::<S>())
            .and_then(|v| v.downcast_ref::<S>())
    }
}

impl std::fmt::Debug for States {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("States")
            .field("count", &self.by_type.len())
            .finish()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn one_value_per_type() {
        let mut s = States::default();
        s.insert(3u32);
        s.insert(String::from("db"));
        s.insert(4u32);
        assert_eq!(s.get::<u32>(), Some(&4));
        assert_eq!(s.get::<String>().map(String::as_str), Some("db"));
        assert_eq!(s.get::<i64>(), None);
    }
}
