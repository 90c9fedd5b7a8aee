//! `cogmem audit` (alias `log`): query `memory/meta/audit.log`. Read-only; malformed lines are
//! reported with their line number and skipped.

use chrono::{DateTime, NaiveDate, Utc};
use serde::Serialize;

use crate::Timestamp;
use crate::audit::{self, AuditFilter, AuditLine};
use crate::error::InputError;
use crate::store::fsx;
use crate::workspace::{Workspace, layout};

/// What `audit` found.
#[derive(Debug, Clone, Serialize)]
pub struct AuditReport {
    /// Matching lines, oldest first.
    pub lines: Vec<AuditLine>,
    /// Malformed lines, each naming the file and line.
    pub skipped: Vec<Skipped>,
}

/// A malformed line, left out of the results.
#[derive(Debug, Clone, Serialize)]
pub struct Skipped {
    /// The file, relative to the workspace root.
    pub path: String,
    /// The error, as `path:line: what is wrong`.
    pub error: String,
}

/// Returns the lines passing `filter`; with `limit`, only the last `limit` of them.
pub fn query(
    ws: &Workspace,
    filter: &AuditFilter,
    limit: Option<usize>,
) -> crate::Result<AuditReport> {
    let path = ws.abs(layout::AUDIT_LOG);
    let text = fsx::read_text_if_exists(&path)?.unwrap_or_default();
    let (lines, bad) = audit::parse_log(&text);
    let mut lines: Vec<AuditLine> = lines.into_iter().filter(|l| filter.matches(l)).collect();
    if let Some(n) = limit {
        let drop = lines.len().saturating_sub(n);
        lines.drain(..drop);
    }
    let skipped = bad
        .iter()
        .map(|b| Skipped {
            path: layout::AUDIT_LOG.into(),
            error: audit::bad_line_error(&path, b).to_string(),
        })
        .collect();
    Ok(AuditReport { lines, skipped })
}

/// Parses `--since`: a date (`2026-02-02`, midnight UTC), an RFC 3339 time, or an age before
/// `now` such as `90m`, `12h`, `7d` or `2w`.
pub fn parse_since(text: &str, now: Timestamp) -> Result<DateTime<Utc>, InputError> {
    let t = text.trim();
    let bad = || InputError::Since { text: text.to_owned() };
    if let Ok(d) = DateTime::parse_from_rfc3339(t) {
        return Ok(d.with_timezone(&Utc));
    }
    if let Ok(d) = NaiveDate::parse_from_str(t, "%Y-%m-%d") {
        return Ok(d.and_hms_opt(0, 0, 0).ok_or_else(bad)?.and_utc());
    }
    let digits = t.chars().take_while(char::is_ascii_digit).count();
    let n: i64 = t[..digits].parse().map_err(|_| bad())?;
    let seconds = match &t[digits..] {
        "m" => 60,
        "h" => 3600,
        "d" => 86_400,
        "w" => 7 * 86_400,
        _ => return Err(bad()),
    };
    let age =
        chrono::Duration::try_seconds(n.checked_mul(seconds).ok_or_else(bad)?).ok_or_else(bad)?;
    Ok((now - age).with_timezone(&Utc))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::FixedClock;

    #[test]
    fn since_forms() {
        let now = FixedClock::parse("2026-02-10T12:00:00Z").unwrap().0;
        let cases = [
            ("2026-02-02", "2026-02-02T00:00:00Z"),
            ("2026-02-02T10:00:00+02:00", "2026-02-02T08:00:00Z"),
            ("7d", "2026-02-03T12:00:00Z"),
            ("12h", "2026-02-10T00:00:00Z"),
        ];
        for (input, want) in cases {
            assert_eq!(
                parse_since(input, now).unwrap().to_rfc3339(),
                want.replace('Z', "+00:00"),
                "input: {input:?}"
            );
        }
        assert!(parse_since("yesterday", now).is_err());
        assert!(parse_since("7y", now).is_err());
    }
}
