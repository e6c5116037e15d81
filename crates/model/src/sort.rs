//! A stable sort compiled once for every element type.
//!
//! `slice::sort_by` is monomorphised per element type and comparator, a few KB of code each;
//! the web page's bundle carried one per call site the t1 sweep reaches. These functions
//! order the indices with one merge sort (the only non-generic part, shared by every
//! caller) and then move the elements into place: the same order as `sort_by`, equal
//! elements keeping their order, in O(n log n).

use std::cmp::Ordering;

/// Sorts `v` as `v.sort_by(cmp)` does (stable).
pub fn sort_by<T>(v: &mut [T], mut cmp: impl FnMut(&T, &T) -> Ordering) {
    if v.len() < 2 {
        return;
    }
    let order = {
        let v = &*v;
        stable_order(v.len(), &mut |a, b| cmp(&v[a], &v[b]) == Ordering::Greater)
    };
    permute(v, order);
}

/// Sorts `v` as `v.sort_by_key(key)` does (stable).
pub fn sort_by_key<T, K: Ord>(v: &mut [T], mut key: impl FnMut(&T) -> K) {
    sort_by(v, |a, b| key(a).cmp(&key(b)));
}

/// The indices `0..n` in stable sorted order: a bottom-up merge sort that takes from the
/// right run only when its element is strictly less (`greater(left, right)`).
fn stable_order(n: usize, greater: &mut dyn FnMut(usize, usize) -> bool) -> Vec<usize> {
    let mut a: Vec<usize> = (0..n).collect();
    let mut buf = vec![0; n];
    let mut width = 1;
    while width < n {
        let mut start = 0;
        while start < n {
            let mid = (start + width).min(n);
            let end = (start + 2 * width).min(n);
            let (mut l, mut r) = (start, mid);
            for slot in &mut buf[start..end] {
                let take_right = l == mid || (r < end && greater(a[l], a[r]));
                if take_right {
                    *slot = a[r];
                    r += 1;
                } else {
                    *slot = a[l];
                    l += 1;
                }
            }
            start = end;
        }
        std::mem::swap(&mut a, &mut buf);
        width *= 2;
    }
    a
}

/// Puts the element at `order[i]` at position `i`, following the permutation's cycles
/// (each position is marked done by pointing at itself).
fn permute<T>(v: &mut [T], mut order: Vec<usize>) {
    for start in 0..order.len() {
        let mut j = start;
        loop {
            let next = order[j];
            order[j] = j;
            if next == start || next == j {
                break;
            }
            v.swap(j, next);
            j = next;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    proptest! {
        /// The same order as std's stable sort, ties included (the second field tells
        /// equal keys apart).
        #[test]
        fn same_as_std(keys in proptest::collection::vec(0u8..8, 0..300)) {
            let v: Vec<(u8, usize)> = keys.into_iter().enumerate().map(|(i, k)| (k, i)).collect();
            let mut ours = v.clone();
            sort_by(&mut ours, |a, b| a.0.cmp(&b.0));
            let mut std = v.clone();
            std.sort_by_key(|a| a.0);
            prop_assert_eq!(&ours, &std);
            let mut by_key = v.clone();
            sort_by_key(&mut by_key, |p| std::cmp::Reverse(p.0));
            let mut std_key = v;
            std_key.sort_by_key(|p| std::cmp::Reverse(p.0));
            prop_assert_eq!(by_key, std_key);
        }
    }
}
