//! A seeded xorshift64 for the unit tests: the same cases on every run.

/// The generator; `Xorshift(seed)` with a seed other than zero.
pub(crate) struct Xorshift(pub u64);

impl Xorshift {
    /// The next number.
    pub(crate) fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }

    /// The next number below `n` (not zero).
    pub(crate) fn below(&mut self, n: u64) -> u64 {
        self.next() % n
    }
}
