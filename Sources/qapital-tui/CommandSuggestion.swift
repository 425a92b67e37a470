/// "did you mean goals?" for a command typed wrong (`qapital-tui gaols`), as git and gh say it:
/// the nearest command by edit distance (a swap of two letters counts as one), when it is near
/// enough to be what was meant.
enum CommandSuggestion {
    /// The one-line message for `word` given where a command goes, or nil when `word` looks like
    /// no command (an option, a path, a word far from every command).
    static func message(for word: String, commands: Set<String>) -> String? {
        guard !word.hasPrefix("-"), !commands.contains(word), let near = nearest(to: word, in: commands) else { return nil }
        return "unknown command '\(word)': did you mean \(near)? (qapital-tui --help lists the commands)"
    }

    /// The command nearest `word`: at most 2 edits, and fewer than half its letters.
    static func nearest(to word: String, in commands: Set<String>) -> String? {
        let typed = Array(word.lowercased())
        let scored = commands.sorted().map { (command: $0, distance: distance(typed, Array($0))) }
        guard let best = scored.min(by: { $0.distance < $1.distance }),
              best.distance <= min(2, max(1, typed.count / 2)) else { return nil }
        return best.command
    }

    /// Edits (insert, delete, replace, swap two neighbours) from `a` to `b`.
    static func distance(_ a: [Character], _ b: [Character]) -> Int {
        guard !a.isEmpty else { return b.count }
        guard !b.isEmpty else { return a.count }
        var table = Array(repeating: Array(repeating: 0, count: b.count + 1), count: a.count + 1)
        for i in 0...a.count { table[i][0] = i }
        for j in 0...b.count { table[0][j] = j }
        for i in 1...a.count {
            for j in 1...b.count {
                let cost = a[i - 1] == b[j - 1] ? 0 : 1
                table[i][j] = min(table[i - 1][j] + 1, table[i][j - 1] + 1, table[i - 1][j - 1] + cost)
                if i > 1, j > 1, a[i - 1] == b[j - 2], a[i - 2] == b[j - 1] {
                    table[i][j] = min(table[i][j], table[i - 2][j - 2] + 1)
                }
            }
        }
        return table[a.count][b.count]
    }
}
