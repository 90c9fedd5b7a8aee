//! Decay scores as pure functions of (base relevance, uses, last use, now) — design.md §5.
//! Creation counts as the first access, scores are clamped to `0.0..=1.0`, and pinned memories
//! (the vault) always score 1.0. Reads only; never writes to the store.

use serde::Serialize;

use crate::Timestamp;
use crate::settings::DecaySettings;

/// The stored inputs of one memory's score.
#[derive(Debug, Clone, Copy)]
pub struct DecayInputs {
    /// Base relevance by how the memory arrived (explicit, auto-detected, inferred).
    pub base: f64,
    /// Weight of its store.
    pub type_weight: f64,
    /// Times used, creation included.
    pub access_count: u64,
    /// Last use.
    pub last_accessed: Timestamp,
    /// Pinned memories never decay.
    pub pinned: bool,
}

/// Returns the relevance in `0.0..=1.0` of a memory at `now`.
pub fn relevance(e: &DecayInputs, now: Timestamp, p: &DecaySettings) -> f64 {
    if e.pinned {
        return 1.0;
    }
    let seconds = (now - e.last_accessed).num_seconds().max(0) as f64;
    let days = seconds / 86_400.0;
    let uses = e.access_count.max(1) as f64;
    (e.base * (-p.lambda * days).exp() * (uses + 1.0).log2() * e.type_weight).clamp(0.0, 1.0)
}

/// A score's band.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Band {
    /// Fully searchable.
    Active,
    /// Deprioritised.
    Fading,
    /// Found only when asked for explicitly.
    Dormant,
    /// Hidden from recall.
    Archived,
}

impl Band {
    /// Returns the word stored in `decay-scores.json`.
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Active => "active",
            Self::Fading => "fading",
            Self::Dormant => "dormant",
            Self::Archived => "archived",
        }
    }
}

/// Returns the band of a score; each band includes its lower bound.
pub fn band(score: f64, p: &DecaySettings) -> Band {
    if score >= p.active {
        Band::Active
    } else if score >= p.fading {
        Band::Fading
    } else if score >= p.dormant {
        Band::Dormant
    } else {
        Band::Archived
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::FixedClock;

    fn at(text: &str) -> Timestamp {
        FixedClock::parse(text).unwrap().0
    }

    #[test]
    fn new_memory_scores_its_weight_clamped() {
        let p = DecaySettings::default();
        let now = at("2026-02-02T00:00:00Z");
        let e = |w| DecayInputs {
            base: 1.0,
            type_weight: w,
            access_count: 1,
            last_accessed: now,
            pinned: false,
        };
        assert!((relevance(&e(0.8), now, &p) - 0.8).abs() < 1e-12);
        assert_eq!(relevance(&e(1.5), now, &p), 1.0);
    }

    #[test]
    fn half_life_is_about_23_days_and_pinned_never_fades() {
        let p = DecaySettings::default();
        let then = at("2026-01-01T00:00:00Z");
        let e = DecayInputs {
            base: 1.0,
            type_weight: 0.8,
            access_count: 1,
            last_accessed: then,
            pinned: false,
        };
        let later = then + chrono::Duration::seconds((23.105 * 86_400.0) as i64);
        assert!((relevance(&e, later, &p) - 0.4).abs() < 1e-3);
        let pinned = DecayInputs { pinned: true, ..e };
        assert_eq!(relevance(&pinned, then + chrono::Duration::days(3650), &p), 1.0);
    }

    #[test]
    fn bands_include_lower_bounds() {
        let p = DecaySettings::default();
        let cases = [
            (1.0, Band::Active),
            (0.5, Band::Active),
            (0.2, Band::Fading),
            (0.05, Band::Dormant),
            (0.049, Band::Archived),
        ];
        for (score, want) in cases {
            assert_eq!(band(score, &p), want, "score: {score}");
        }
    }
}
