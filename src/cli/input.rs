//! Reading text arguments, where `-` means stdin (at most 64 KiB, UTF-8).

use std::io::Read;

use cogmem::error::InputError;
use cogmem::ops::remember::MAX_TEXT_BYTES;
use cogmem::store::fsx::IoError;

/// Reads all of stdin (transcripts may be large), as UTF-8.
pub fn stdin_unbounded() -> cogmem::Result<String> {
    let mut bytes = Vec::new();
    std::io::stdin()
        .lock()
        .read_to_end(&mut bytes)
        .map_err(|e| IoError::new("<stdin>", "read", e))?;
    String::from_utf8(bytes).map_err(|_| InputError::NotUtf8.into())
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
        return Err(InputError::TextTooLong { bytes: bytes.len(), limit: MAX_TEXT_BYTES }.into());
    }
    String::from_utf8(bytes).map_err(|_| InputError::NotUtf8.into())
}
