//! Numbers in the messages and reports people read: digit groups and
//! nouns that agree with their count.

/// `1234567` → `1,234,567`.
pub fn thousands(n: u64) -> String {
    let digits = n.to_string();
    let mut out = String::with_capacity(digits.len() + digits.len() / 3);
    for (i, c) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(c);
    }
    out
}

/// `n` (in digit groups) and `noun`, in the plural unless `n` is 1:
/// `1 game`, `0 games`, `1,500 games`. Plurals add an `s`: every noun
/// counted here does.
pub fn counted(n: u64, noun: &str) -> String {
    if n == 1 {
        format!("1 {noun}")
    } else {
        format!("{} {noun}s", thousands(n))
    }
}

#[cfg(test)]
mod tests {
    use super::{counted, thousands};

    #[test]
    fn digit_groups() {
        assert_eq!(thousands(0), "0");
        assert_eq!(thousands(999), "999");
        assert_eq!(thousands(1000), "1,000");
        assert_eq!(thousands(1_234_567), "1,234,567");
        assert_eq!(thousands(u64::MAX), "18,446,744,073,709,551,615");
    }

    #[test]
    fn counts_agree_in_number() {
        assert_eq!(counted(0, "game"), "0 games");
        assert_eq!(counted(1, "game"), "1 game");
        assert_eq!(counted(2, "error"), "2 errors");
        assert_eq!(counted(12_000, "warning"), "12,000 warnings");
    }
}
