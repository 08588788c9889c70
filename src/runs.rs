//! Consecutive numbers written as runs, as history shows restart attempts (`0-2,5`) and
//! diff shows Job indexes (`0..3,5`).

/// `numbers` (sorted, without repeats) as runs joined by `,`, each run's ends joined by `to`.
pub fn runs(numbers: impl IntoIterator<Item = i64>, to: &str) -> String {
    let mut runs: Vec<String> = Vec::new();
    let mut numbers = numbers.into_iter().peekable();
    while let Some(start) = numbers.next() {
        let mut end = start;
        while numbers.peek() == Some(&(end + 1)) {
            end = numbers.next().unwrap_or(end);
        }
        runs.push(if start == end { start.to_string() } else { format!("{start}{to}{end}") });
    }
    runs.join(",")
}

#[cfg(test)]
mod tests {
    #[test]
    fn runs_of_consecutive_numbers() {
        assert_eq!(super::runs([0, 1, 2, 5], "-"), "0-2,5");
        assert_eq!(super::runs([3, 7, 8], ".."), "3,7..8");
        assert_eq!(super::runs([], "-"), "");
    }
}
