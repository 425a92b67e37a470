import Commands
import FeedModel
import Foundation

/// What a command wrote, kept for the test (the binary writes to stdout).
public final class CapturedOutput: Sendable {
    private let text = Locked("")
    public init() {}
    public var value: String { text.withLock { $0 } }
    public var lines: [String] { value.split(separator: "\n", omittingEmptySubsequences: false).map(String.init).dropLast() }
    public func sink(colors: Bool = false) -> OutputSink { OutputSink(colors: colors) { [text] more in text.withLock { $0 += more } } }
}

/// A command's context on `api` whose output is captured, at `fixedNow`.
public func commandContext(_ api: any SavingsAPI, format: OutputFormat, kind: String = "demo", currency: Currency = .usd,
                           saver: RoundUpSaver = RoundUpSaver(identity: .demo, record: MemoryRoundUpRecord()),
                           timeZone: TimeZone = TimeZone(identifier: "Europe/London")!) -> (CommandContext, CapturedOutput) {
    let captured = CapturedOutput()
    let context = CommandContext(api: api, sourceKind: kind, currency: currency, format: format, output: captured.sink(),
                                 calendar: Week.calendar(in: timeZone), now: { fixedNow }, saver: saver)
    return (context, captured)
}

