import SourceKit
import TermUI

/// The examples in `--help`: a command and what it does, in two columns that never wrap mid-phrase
/// in an 80-column terminal (ArgumentParser wraps any line longer than the terminal where it falls).
enum HelpExamples {
    /// The longest line: ArgumentParser's help is 80 columns wide where it cannot ask the terminal.
    static let width = 79
    /// Where "what it does" starts.
    static let column = 47

    /// "EXAMPLES:" and its lines; a command too long for its column has what it does on the next
    /// line, and what does not fit goes on at the same column, word by word.
    static func block(_ examples: [RegisteredSource.Example], title: String = "EXAMPLES:") -> String {
        ([title] + examples.flatMap(lines)).joined(separator: "\n")
    }

    static func lines(_ example: RegisteredSource.Example) -> [String] {
        let command = "  qapital-tui " + example.arguments
        let what = SpanWrap.wrap([Span(example.what)], width: width - column).map { $0.map(\.text).joined() }.filter { !$0.isEmpty }
        let indent = String(repeating: " ", count: column)
        guard let first = what.first else { return [command] }
        let rest = what.dropFirst().map { indent + $0 }
        if command.count < column - 1 {
            return [command.padding(toLength: column, withPad: " ", startingAt: 0) + first] + rest
        }
        return [command, indent + first] + rest
    }
}
