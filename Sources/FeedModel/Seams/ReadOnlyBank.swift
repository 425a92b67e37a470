/// What a read-only bank (Enable Banking, SimpleFIN) says when asked to move money or make a
/// goal, in the words of what was asked: the one place these lines are written.
public enum ReadOnlyBank {
    /// The Round-ups tab, `s` there, `round-ups --save`.
    public static func noRoundUpMoves(_ bank: String) -> String {
        "\(bank) is read-only: these round-ups are suggestions and nothing is sent; move the total in your bank's own app"
    }

    /// The Rules tab, `s` there, `rules --save`.
    public static func noRuleMoves(_ bank: String) -> String {
        "\(bank) is read-only: rules show what they would save and nothing is sent; move it in your bank's own app"
    }

    /// `n`, and a list with no goals: where goals come from instead (`table`: the config file's).
    public static func noGoalCreation(_ bank: String, table: String) -> String {
        "\(bank) is read-only: goals are the accounts named in the config file's [\(table)] goals"
    }
}
