//! The file fuzz the readers' tests share: seeded mutations of real fixtures.
use rand::Rng;

/// `f` with 1..=5 mutations: bytes replaced by ones from `alphabet` (what the format cares
/// about), a huge number inserted, lines dropped, duplicated or swapped.
pub fn mutate(rng: &mut impl Rng, f: &[u8], alphabet: &[u8]) -> Vec<u8> {
    let mut f = f.to_vec();
    for _ in 0..rng.gen_range(1..6) {
        match rng.gen_range(0..5) {
            0 | 1 if !f.is_empty() => {
                let i = rng.gen_range(0..f.len());
                f[i] = alphabet[rng.gen_range(0..alphabet.len())];
            }
            2 => {
                let i = rng.gen_range(0..=f.len());
                f.splice(i..i, b"99999999999999999999".iter().copied());
            }
            _ => {
                let mut lines: Vec<&[u8]> = f.split(|&b| b == b'\n').collect();
                let (i, j) = (rng.gen_range(0..lines.len()), rng.gen_range(0..lines.len()));
                match rng.gen_range(0..3) {
                    0 => {
                        lines.remove(i);
                    }
                    1 => lines.insert(i, lines[j]),
                    _ => lines.swap(i, j),
                }
                f = lines.join(&b'\n');
            }
        }
    }
    f
}
