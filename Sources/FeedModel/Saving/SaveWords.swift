import Foundation

/// What a save says, in one place for the Round-ups tab and `roundups --save`, so the two never
/// tell a lost answer differently (docs/roundups.md, "After a lost answer"). Sentences start in
/// lower case; a screen capitalises and marks them.
public enum SaveWords {
    /// "€0.80 into Rainy day"
    public static func what(_ part: SavedRoundUp) -> String { "\(part.amount.formatted) into \(part.goalName)" }

    /// It moved, by this run.
    public static func saved(_ part: SavedRoundUp, goal: Goal, checked: Bool) -> String {
        "saved \(part.amount.formatted) into \(goal.name): its balance is now \(goal.balance.formatted)"
            + (checked ? " (its first answer was lost; checking found it moved once)" : "")
    }

    /// While the saver checks after a lost answer.
    public static func checking(_ part: SavedRoundUp) -> String {
        "the answer was lost: checking whether \(what(part)) moved"
    }

    /// It may have moved: a request left and no answer (nor the check's) came back.
    public static func mayHaveMoved(_ part: SavedRoundUp, _ error: any Error) -> String {
        "\(what(part)) may have moved: \(reason(error)); the next save checks with the same transfer, which moves it once"
    }

    /// Nothing moved: the server refused it, or it never left.
    public static func notSaved(_ error: any Error) -> String {
        "not saved: \(reason(error)); nothing moved"
    }

    private static func reason(_ error: any Error) -> String {
        (error as? APIError)?.message ?? String(describing: error)
    }
}
