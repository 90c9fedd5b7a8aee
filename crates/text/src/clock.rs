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
        DateTime::parse_from_rfc3339(text.trim()).ok().map(Self)
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

/// Reads a time given by a user: RFC 3339, `YYYY-MM-DD HH:MM` (or with `T`), `YYYY-MM-DD`
/// (midnight) or `HH:MM` (today). Times without an offset are in `now`'s offset.
pub fn parse_time(text: &str, now: &Timestamp) -> Option<Timestamp> {
    use chrono::{NaiveDate, NaiveDateTime, NaiveTime, TimeZone};
    let t = text.trim();
    if let Ok(d) = DateTime::parse_from_rfc3339(t) {
        return Some(d);
    }
    let local = |n: NaiveDateTime| now.offset().from_local_datetime(&n).single();
    for fmt in ["%Y-%m-%d %H:%M", "%Y-%m-%dT%H:%M", "%Y-%m-%d %H:%M:%S", "%Y-%m-%dT%H:%M:%S"] {
        if let Ok(n) = NaiveDateTime::parse_from_str(t, fmt) {
            return local(n);
        }
    }
    if let Ok(d) = NaiveDate::parse_from_str(t, "%Y-%m-%d") {
        return local(d.and_time(NaiveTime::MIN));
    }
    if let Ok(time) = NaiveTime::parse_from_str(t, "%H:%M") {
        return local(now.date_naive().and_time(time));
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parse_time_forms() {
        let now = FixedClock::parse("2026-02-02T10:00:00+09:00").unwrap().0;
        let cases = [
            ("2026-01-05T08:00:00Z", "2026-01-05T08:00:00+00:00"),
            ("2026-01-05 08:30", "2026-01-05T08:30:00+09:00"),
            ("2026-01-05", "2026-01-05T00:00:00+09:00"),
            ("07:15", "2026-02-02T07:15:00+09:00"),
        ];
        for (input, want) in cases {
            assert_eq!(
                parse_time(input, &now).map(|t| t.to_rfc3339()).as_deref(),
                Some(want),
                "input: {input:?}"
            );
        }
        assert!(parse_time("last tuesday", &now).is_none());
    }

    #[test]
    fn fixed_clock_keeps_offset_and_formats_utc() {
        let clock = FixedClock::parse("2026-02-02T23:30:05+09:00").unwrap();
        assert_eq!(clock.now().format("%Y-%m-%d %H:%M").to_string(), "2026-02-02 23:30");
        assert_eq!(utc_seconds(&clock.now()), "2026-02-02T14:30:05Z");
        assert!(FixedClock::parse("yesterday").is_none());
    }
}
