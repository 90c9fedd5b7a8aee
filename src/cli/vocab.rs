//! The fixed vocabularies of flags (`--store`, `--type`, `--confidence`, `--section`,
//! `--action`, `--encoding`) as clap possible values, built from the library's own lists, so a
//! flag cannot accept a value the operation refuses, or the other way round. Clap refuses any
//! other value with exit 2, names the nearest one and lists them all, `--help` lists them, and
//! the completion scripts complete them. The library's types stay free of clap (see
//! docs/architecture.md): the flags keep their text, which the operation parses as the MCP
//! server's tool arguments are parsed.

use std::sync::OnceLock;

use clap::builder::{PossibleValue, PossibleValuesParser};
use cogmem::audit::Action;
use cogmem::model::{Confidence, EntryType, Store};
use cogmem::ops::context::Encoding;
use cogmem::store::core_memory::CoreSection;

/// The five stores: `core`, `episodic`, `semantic`, `procedural`, `vault`.
pub fn stores() -> PossibleValuesParser {
    PossibleValuesParser::new(Store::ALL.map(Store::as_str))
}

/// The kinds of episode entries: `decision`, `fact`, … `correction`.
pub fn entry_types() -> PossibleValuesParser {
    PossibleValuesParser::new(EntryType::ALL.map(EntryType::as_str))
}

/// `high`, `medium`, `low`.
pub fn confidences() -> PossibleValuesParser {
    PossibleValuesParser::new(Confidence::ALL.map(Confidence::as_str))
}

/// The sections of MEMORY.md by their kebab-case names; the headings (`Active Context`) are
/// accepted too, as hidden aliases.
pub fn sections() -> PossibleValuesParser {
    PossibleValuesParser::new(
        CoreSection::ALL.map(|s| PossibleValue::new(s.slug()).alias(s.title())),
    )
}

/// The audit log's actions in lower case (`archive`: clap suggests the nearest value only in
/// the case of the values listed); the flag ignores case, so the log's `ARCHIVE` works too.
pub fn actions() -> PossibleValuesParser {
    static LOWER: OnceLock<Vec<String>> = OnceLock::new();
    let lower =
        LOWER.get_or_init(|| Action::ALL.iter().map(|a| a.as_str().to_ascii_lowercase()).collect());
    PossibleValuesParser::new(lower.iter().map(String::as_str))
}

/// The token encodings of `context`; `cl100k` and `o200k` are hidden aliases.
pub fn encodings() -> PossibleValuesParser {
    PossibleValuesParser::new(Encoding::ALL.map(|e| {
        let name = e.name();
        match name.strip_suffix("_base") {
            Some(short) => PossibleValue::new(name).alias(short),
            None => PossibleValue::new(name),
        }
    }))
}
