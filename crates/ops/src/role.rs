//! Who may do what: the gate for decisions reserved to a person. (The other gate, that a
//! sub-agent writes nothing but proposals, is the workspace lock's:
//! [`Workspace::lock`](cogmem_store::workspace::Workspace::lock).)
//!
//! A person is `user:NAME`, or `manual`, which the binary gives only to someone at a terminal
//! ([`Actor::is_person`]); every other actor is an agent or a tool.

use cogmem_store::audit::Actor;

use crate::error::RuleError;

/// Refuses an actor that is not a person, naming what it tried (`approve a reflection`).
pub fn require_person(actor: &Actor, what: &'static str) -> crate::Result<()> {
    if actor.is_person() {
        Ok(())
    } else {
        Err(RuleError::NotUser { actor: actor.to_string(), what }.into())
    }
}
