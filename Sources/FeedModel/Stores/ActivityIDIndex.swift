/// The ids of the activities a pager delivered, for "each id once": an open-addressing table of
/// 4-byte indexes into the delivered list (linear probing, at most three quarters full), which
/// compares the ids themselves. A `Set<String>` of the ids costs 16 bytes a slot; this costs 4,
/// about 8 bytes an activity at a million (docs/performance.md; growing by half instead of
/// doubling measured 5 B more per activity, not less).
struct ActivityIDIndex: Sendable {
    /// 0: empty; otherwise the index into the list, plus one.
    private var slots: [UInt32] = []
    private var count = 0

    mutating func removeAll() {
        slots = []
        count = 0
    }

    /// Whether an activity with `activity`'s id is in `list` (which holds everything inserted);
    /// if not, notes that it will be `list[list.count]` and answers true.
    mutating func insert(_ activity: Activity, appendingTo list: [Activity]) -> Bool {
        // Past 4 billion rows (more than any memory holds) nothing more is indexed.
        guard list.count < Int(UInt32.max) - 1 else { return true }
        if (count + 1) * 4 > slots.count * 3 { grow(list) }
        let key = activity.idKey
        var slot = home(key)
        while slots[slot] != 0 {
            if list[Int(slots[slot]) - 1].idKey == key { return false }
            slot = slot + 1 == slots.count ? 0 : slot + 1
        }
        slots[slot] = UInt32(list.count + 1)
        count += 1
        return true
    }

    private mutating func grow(_ list: [Activity]) {
        let old = slots
        slots = [UInt32](repeating: 0, count: max(16, old.count * 2))
        for entry in old where entry != 0 {
            var slot = home(list[Int(entry) - 1].idKey)
            while slots[slot] != 0 { slot = slot + 1 == slots.count ? 0 : slot + 1 }
            slots[slot] = entry
        }
    }

    /// The first slot to try: the hash's low 32 bits scaled to the table (any size, no modulo).
    private func home(_ id: ActivityID) -> Int {
        Int((UInt64(UInt32(truncatingIfNeeded: id.hashValue)) &* UInt64(slots.count)) >> 32)
    }
}
