//! The campaign's one source of randomness: xorshift64* seeded through splitmix64, so a
//! seed (printed first, replayed with SOAK_SEED) fixes every choice the campaign makes.

pub struct Rng(u64);

impl Rng {
    pub fn new(seed: u64) -> Rng {
        // splitmix64 spreads small or patterned seeds; xorshift must never hold 0.
        let mut z = seed.wrapping_add(0x9e37_79b9_7f4a_7c15);
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^= z >> 31;
        Rng(if z == 0 { 0x2545_f491_4f6c_dd1d } else { z })
    }

    pub fn next_u64(&mut self) -> u64 {
        let mut x = self.0;
        x ^= x >> 12;
        x ^= x << 25;
        x ^= x >> 27;
        self.0 = x;
        x.wrapping_mul(0x2545_f491_4f6c_dd1d)
    }

    /// Uniform in `0..n` (n > 0); the bias of a plain modulo is negligible at these sizes.
    pub fn below(&mut self, n: u64) -> u64 {
        assert!(n > 0, "below(0)");
        (self.next_u64() >> 11) % n
    }

    /// Uniform in `lo..=hi`.
    pub fn range(&mut self, lo: u64, hi: u64) -> u64 {
        lo + self.below(hi - lo + 1)
    }

    /// True with probability `percent`/100.
    pub fn chance(&mut self, percent: u64) -> bool {
        self.below(100) < percent
    }

    pub fn index(&mut self, len: usize) -> usize {
        self.below(len as u64) as usize
    }
}

/// A seed for runs that were not given one: the clock and the process id.
pub fn fresh_seed() -> u64 {
    let nanos = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_nanos() as u64)
        .unwrap_or(0);
    // Small numbers are easier to type back in; 2^40 values is plenty.
    (nanos ^ (u64::from(std::process::id()) << 20)) % (1 << 40)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_seed_replays_the_same_choices() {
        let draw = |seed| {
            let mut r = Rng::new(seed);
            (0..64).map(|_| r.range(3, 9)).collect::<Vec<_>>()
        };
        assert_eq!(draw(42), draw(42));
        assert_ne!(draw(42), draw(43));
        assert!(draw(0).iter().all(|v| (3..=9).contains(v)));
    }

    #[test]
    fn every_value_of_a_small_range_comes_up() {
        let mut r = Rng::new(7);
        let mut seen = [0usize; 5];
        for _ in 0..5000 {
            seen[r.index(5)] += 1;
        }
        assert!(seen.iter().all(|&n| n > 800), "{seen:?}");
    }
}
