//! Reading text arguments, where `-` means stdin (at most 64 KiB, UTF-8).

use std::io::Read;

use cogmem::error::InputError;
use cogmem::ops::remember::HARD_MAX_TEXT_BYTES as MAX_TEXT_BYTES;
use cogmem::store::fsx::IoError;

/// Reads stdin up to `limit` bytes, as UTF-8; `None` when it holds more (the caller says what
/// its input is and what to do).
pub fn stdin_limited(limit: u64) -> cogmem::Result<Option<String>> {
    let mut bytes = Vec::new();
    std::io::stdin()
        .lock()
        .take(limit.saturating_add(1))
        .read_to_end(&mut bytes)
        .map_err(|e| IoError::new("<stdin>", "read", e))?;
    if bytes.len() as u64 > limit {
        return Ok(None);
    }
    String::from_utf8(bytes).map(Some).map_err(|_| InputError::NotUtf8.into())
}

/// Returns `arg`, or stdin when it is `-`.
pub fn text_or_stdin(arg: &str) -> cogmem::Result<String> {
    if arg != "-" {
        return Ok(arg.to_owned());
    }
    let mut bytes = Vec::new();
    std::io::stdin()
        .lock()
        .take(MAX_TEXT_BYTES as u64 + 1)
        .read_to_end(&mut bytes)
        .map_err(|e| IoError::new("<stdin>", "read", e))?;
    if bytes.len() > MAX_TEXT_BYTES {
        // Name the real size: count (without keeping) what is left.
        let rest = std::io::copy(&mut std::io::stdin().lock(), &mut std::io::sink())
            .map_err(|e| IoError::new("<stdin>", "read", e))?;
        let bytes = bytes.len() as u64 + rest;
        return Err(InputError::TextOverHardLimit { bytes, limit: MAX_TEXT_BYTES }.into());
    }
    String::from_utf8(bytes).map_err(|_| InputError::NotUtf8.into())
}
