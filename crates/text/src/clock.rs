//! The one source of time. Every timestamp cogmem writes (episode headings, audit lines, commit
//! dates, decay entries) comes from a [`Clock`], so tests and replays can fix the time with
//! `COGMEM_NOW` and get byte-identical workspaces.

use chrono::{DateTime, FixedOffset, Local, SecondsFormat, Utc};

/// A point in time with the UTC offset it was observed in.
///
/// Episode files are dated in this offset (the user's local time); audit lines and commit
/// dates are written in UTC.
pub type Timestamp = DateTime<FixedOffset>;

/// Tells the current time.
pub trait Clock: Send + Sync {
    /// Returns the current time.
    fn now(&self) -> Timestamp;
}

/// The system clock, in the machine's local offset.
#[derive(Debug, Default, Clone, Copy)]
pub struct SystemClock;

impl Clock for SystemClock {
    fn now(&self) -> Timestamp {
        Local::now().fixed_offset()
    }
}

/// A clock stopped at one instant (what `COGMEM_NOW` sets).
#[derive(Debug, Clone, Copy)]
pub struct FixedClock(pub Timestamp);

impl FixedClock {
    /// Parses an RFC 3339 timestamp such as `2026-02-02T15:30:05Z`.
    ///
    /// Returns `None` when the text is not RFC 3339.
    pub fn parse(text: &str) -> Option<Self> {
        crate::date::parse_rfc3339(text).map(Self)
    }
}

impl Clock for FixedClock {
    fn now(&self) -> Timestamp {
        self.0
    }
}

/// Formats a time as UTC with whole seconds: `2026-02-02T15:30:05Z`.
pub fn utc_seconds(t: &Timestamp) -> String {
    t.with_timezone(&Utc).to_rfc3339_opts(SecondsFormat::Secs, true)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fixed_clock_keeps_offset_and_formats_utc() {
        let clock = FixedClock::parse("2026-02-02T23:30:05+09:00").unwrap();
        assert_eq!(clock.now().format("%Y-%m-%d %H:%M").to_string(), "2026-02-02 23:30");
        assert_eq!(utc_seconds(&clock.now()), "2026-02-02T14:30:05Z");
        assert!(FixedClock::parse("yesterday").is_none());
    }
}
