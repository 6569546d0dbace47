//! Keeping long lists readable: the first few and the last few items.
//!
//! Used for background events (docs/log-format.md: more than 10 events in one place
//! keep the first 2 and the last 8, with a note in between saying how many
//! were omitted).

/// Keeps the first `first` and the last `last` items of `items`, in order,
/// and returns them with the number of items dropped from the middle.
///
/// When nothing needs to go (`items.len() <= first + last`) every item is
/// kept and the count is 0. The omitted ones, if any, sat between index
/// `first - 1` and `first` of the returned vector.
pub fn keep_first_last<T>(items: Vec<T>, first: usize, last: usize) -> (Vec<T>, usize) {
    let len = items.len();
    let keep = first.saturating_add(last);
    if len <= keep {
        return (items, 0);
    }
    let omitted = len - keep;
    let mut items = items;
    items.drain(first..first + omitted);
    (items, omitted)
}

#[cfg(test)]
mod tests {
    use super::keep_first_last;

    #[test]
    fn short_lists_are_untouched() {
        let items: Vec<u32> = (0..10).collect();
        assert_eq!(keep_first_last(items.clone(), 2, 8), (items, 0));
        assert_eq!(keep_first_last(Vec::<u32>::new(), 2, 8), (vec![], 0));
    }

    #[test]
    fn long_lists_keep_head_and_tail() {
        let items: Vec<u32> = (0..13).collect();
        assert_eq!(
            keep_first_last(items, 2, 8),
            (vec![0, 1, 5, 6, 7, 8, 9, 10, 11, 12], 3)
        );
    }

    #[test]
    fn zero_head_or_tail() {
        let items: Vec<u32> = (0..5).collect();
        assert_eq!(keep_first_last(items.clone(), 0, 2), (vec![3, 4], 3));
        assert_eq!(keep_first_last(items.clone(), 2, 0), (vec![0, 1], 3));
        assert_eq!(keep_first_last(items, 0, 0), (vec![], 5));
    }

    #[test]
    fn huge_limits_do_not_overflow() {
        let items = vec!["a", "b"];
        assert_eq!(
            keep_first_last(items.clone(), usize::MAX, usize::MAX),
            (items, 0)
        );
    }

    #[test]
    fn works_for_non_copy_items() {
        let items: Vec<String> = (0..4).map(|i| i.to_string()).collect();
        let (kept, omitted) = keep_first_last(items, 1, 1);
        assert_eq!(kept, ["0", "3"]);
        assert_eq!(omitted, 2);
    }
}
