import FeedModel
import Foundation

/// The ids every look-alike makes from the demo's own, the same every time and alike across
/// APIs (a goal is `5a7e0000-0000-4000-8000-000000000004` in every bank's shape).
public enum DemoIDs {
    /// `5a7e0000-0000-4000-8000-000000000004` for demo goal 4.
    public static func goalUid(_ id: GoalID) -> String {
        guard let number = id.number else { return id.rawValue }
        return "5a7e0000-0000-4000-8000-" + String(format: "%012d", number)
    }

    /// The demo goal of a `goalUid`, or nil.
    public static func goalId(fromUid uid: String) -> GoalID? {
        let prefix = "5a7e0000-0000-4000-8000-"
        guard uid.hasPrefix(prefix), let number = Int(uid.dropFirst(prefix.count)) else { return nil }
        return GoalID(number)
    }

    /// A UUID-shaped id made from a demo id, the same every time.
    public static func uid(_ text: String, prefix: String) -> String {
        let hash = FNV1a.hash(text.utf8)
        return prefix + String(format: "%06x-0000-4000-8000-%012llx", hash & 0xFF_FFFF, hash & 0xFFFF_FFFF_FFFF)
    }
}
