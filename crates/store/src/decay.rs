//! Decay scores as pure functions of (base relevance, uses, age) — design.md §5.
//!
//! `relevance = clamp01(base × e^(−λ·age) × log2(uses + 1) × type_weight)`, where age is days
//! since the last use (or, with `decay.clock = "interactions"`, the number of remember and
//! recall operations since then). Creation counts as the first use, scores are clamped to
//! `0.0..=1.0`, pinned memories (the vault) always score 1.0, and forgotten ones stay at 0 until
//! restored. Reads only; never writes to the store.

use serde::Serialize;

use crate::Timestamp;
use crate::settings::{DecayClock, DecaySettings};

/// The stored inputs of one memory's score.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct DecayInputs {
    /// Base relevance by how the memory arrived (explicit, auto-detected, inferred).
    pub base: f64,
    /// Weight of its store.
    pub type_weight: f64,
    /// Times used, creation included.
    pub access_count: u64,
    /// Last use.
    pub last_accessed: Timestamp,
    /// The workspace's interaction count at the last use (interactions clock).
    pub last_interaction: u64,
    /// Pinned memories never decay.
    pub pinned: bool,
    /// Forgotten memories score 0 until restored.
    pub forgotten: bool,
}

/// Where "now" is: the time, and the workspace's interaction count.
#[derive(Debug, Clone, Copy)]
pub struct Now {
    /// The clock's time.
    pub time: Timestamp,
    /// Remember and recall operations so far.
    pub interactions: u64,
}

/// Returns the age of a memory in the clock's unit: days, or interactions.
pub fn age(e: &DecayInputs, now: &Now, p: &DecaySettings) -> f64 {
    match p.clock {
        DecayClock::Days => (now.time - e.last_accessed).num_seconds().max(0) as f64 / 86_400.0,
        DecayClock::Interactions => now.interactions.saturating_sub(e.last_interaction) as f64,
    }
}

/// Returns the relevance in `0.0..=1.0` of a memory at `now`.
pub fn relevance(e: &DecayInputs, now: &Now, p: &DecaySettings) -> f64 {
    if e.forgotten {
        return 0.0;
    }
    if e.pinned {
        return 1.0;
    }
    let uses = e.access_count.max(1) as f64;
    (e.base * (-p.lambda * age(e, now, p)).exp() * (uses + 1.0).log2() * e.type_weight)
        .clamp(0.0, 1.0)
}

/// A score's band.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Serialize)]
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

    /// Parses a stored status; unknown words (and the skill's `_archived`) map sensibly.
    pub(crate) fn parse(text: &str) -> Option<Self> {
        match text.trim().trim_start_matches('_') {
            "active" => Some(Self::Active),
            "fading" => Some(Self::Fading),
            "dormant" => Some(Self::Dormant),
            "archived" => Some(Self::Archived),
            _ => None,
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

/// Returns the half-life in clock units: `ln 2 / λ` (23.1 days at λ = 0.03).
#[cfg(test)]
fn half_life(p: &DecaySettings) -> f64 {
    std::f64::consts::LN_2 / p.lambda
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::FixedClock;

    fn at(text: &str) -> Timestamp {
        FixedClock::parse(text).unwrap().0
    }

    fn inputs(weight: f64, uses: u64, last: Timestamp) -> DecayInputs {
        DecayInputs {
            base: 1.0,
            type_weight: weight,
            access_count: uses,
            last_accessed: last,
            last_interaction: 0,
            pinned: false,
            forgotten: false,
        }
    }

    fn now(t: Timestamp) -> Now {
        Now { time: t, interactions: 0 }
    }

    #[test]
    fn table_of_scores() {
        let p = DecaySettings::default();
        let t0 = at("2026-01-01T00:00:00Z");
        let days = |d: f64| t0 + chrono::Duration::seconds((d * 86_400.0) as i64);
        // (type weight, uses, days since use, expected score)
        let cases = [
            (0.8, 1, 0.0, 0.8),                     // new episode: its weight
            (1.5, 1, 0.0, 1.0),                     // core clamps to 1
            (1.2, 1, 0.0, 1.0),                     // semantic clamps to 1
            (0.8, 1, 23.104_906, 0.4),              // one half-life halves it
            (0.8, 3, 0.0, 1.0),                     // log2(4) = 2 → 1.6, clamped
            (1.0, 1, 30.0, (-0.9f64).exp()),        // e^(−0.03·30)
            (0.8, 1, 62.0, 0.8 * (-1.86f64).exp()), // fading → dormant territory
        ];
        for (w, uses, d, want) in cases {
            let got = relevance(&inputs(w, uses, t0), &now(days(d)), &p);
            assert!(
                (got - want).abs() < 1e-4,
                "weight {w}, uses {uses}, {d} days: {got} vs {want}"
            );
        }
        assert!((half_life(&p) - 23.1).abs() < 0.01);
    }

    #[test]
    fn pinned_never_fades_and_forgotten_stays_at_zero() {
        let p = DecaySettings::default();
        let t0 = at("2026-01-01T00:00:00Z");
        let later = now(t0 + chrono::Duration::days(3650));
        let pinned = DecayInputs { pinned: true, ..inputs(0.8, 1, t0) };
        assert_eq!(relevance(&pinned, &later, &p), 1.0);
        let forgotten = DecayInputs { forgotten: true, pinned: true, ..inputs(0.8, 9, t0) };
        assert_eq!(relevance(&forgotten, &now(t0), &p), 0.0);
    }

    #[test]
    fn band_edges_include_lower_bounds() {
        let p = DecaySettings::default();
        let cases = [
            (1.0, Band::Active),
            (0.5, Band::Active),
            (0.499_999, Band::Fading),
            (0.2, Band::Fading),
            (0.199_999, Band::Dormant),
            (0.05, Band::Dormant),
            (0.049_999, Band::Archived),
            (0.0, Band::Archived),
        ];
        for (score, want) in cases {
            assert_eq!(band(score, &p), want, "score: {score}");
        }
    }

    #[test]
    fn interactions_clock_counts_operations_not_days() {
        let p = DecaySettings { clock: DecayClock::Interactions, ..DecaySettings::default() };
        let t0 = at("2026-01-01T00:00:00Z");
        let e = DecayInputs { last_interaction: 10, ..inputs(0.8, 1, t0) };
        let year_later_no_use = Now { time: t0 + chrono::Duration::days(365), interactions: 10 };
        assert!((relevance(&e, &year_later_no_use, &p) - 0.8).abs() < 1e-12);
        let busy = Now { time: t0, interactions: 33 };
        assert!((relevance(&e, &busy, &p) - 0.8 * (-0.03f64 * 23.0).exp()).abs() < 1e-12);
    }
}
