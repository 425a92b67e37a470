import DemoData
import FeedModel
import Foundation
import QapitalApp
import TermUI
import TestSupport
#if canImport(Glibc)
import Glibc
#endif

/// What the real binary does in a real pseudo-terminal: cold start, and bytes per `j` beside
/// `less` scrolling the same text.
enum TerminalBenchmarks {
    /// The text that appears when the status bar has been drawn.
    static let statusBarText = "q quit"

    /// The `qapital-tui` built beside this benchmark (`swift build -c release` builds both).
    static var appPath: String {
        let own = (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe")) ?? CommandLine.arguments[0]
        return URL(fileURLWithPath: own).deletingLastPathComponent().appendingPathComponent("qapital-tui").path
    }

    /// Answers the app's start-up probe as a plain terminal does (device attributes only, as
    /// xterm-256color without sixel), so start-up does not wait for the probe's deadline.
    static func answerProbe(_ terminal: PseudoTerminal, deadline: ContinuousClock.Instant) -> Bool {
        guard terminal.read(until: "\u{1B}[c", deadline: deadline) != nil else { return false }
        terminal.send("\u{1B}[?62;22c")
        return true
    }

    /// Process start to the first frame with its status bar, in milliseconds, for each run (the
    /// pty answers the probe as a terminal would).
    static func coldStart(runs: Int) -> [Double] {
        var times: [Double] = []
        for _ in 0..<runs {
            let start = ContinuousClock.now
            guard let process = TerminalProcess([appPath], rows: 30, columns: 100) else { continue }
            _ = answerProbe(process.terminal, deadline: start + .seconds(5))
            let seen = process.terminal.read(until: statusBarText, deadline: start + .seconds(5))
            let elapsed = ContinuousClock.now - start
            process.finish(quitKeys: "q")
            if seen != nil { times.append(elapsed.milliseconds) }
        }
        return times
    }

    struct Scroll {
        var keys: Int
        var bytes: Int
        var perKey: Double { Double(bytes) / Double(max(1, keys)) }
    }

    /// The app on demo data, Activity tab: `j` pressed `inside` times from the top (the cursor
    /// moves down the screen), then to the bottom of the screen unmeasured, then `scrolling`
    /// times (the view scrolls a row each), each frame waited for.
    /// `terminal`: a config file's `[terminal]` lines (pictures forced to a protocol), nil for
    /// none. The pty answers the probe as a plain terminal; the app sends what it would send to
    /// a terminal of that protocol.
    static func appScroll(inside: Int, scrolling: Int, terminal settings: String? = nil) -> (inside: Scroll, scrolling: Scroll)? {
        var arguments = [appPath]
        var configPath: String?
        if let settings {
            let path = NSTemporaryDirectory() + "qapital-bench-\(getpid())-\(UInt32.random(in: 0...UInt32.max)).toml"
            guard FileManager.default.createFile(atPath: path, contents: Data(("[terminal]\n" + settings).utf8),
                                                 attributes: [.posixPermissions: 0o600]) else { return nil }
            configPath = path
            arguments += ["--config", path]
        }
        defer { if let configPath { try? FileManager.default.removeItem(atPath: configPath) } }
        guard let process = TerminalProcess(arguments, rows: 30, columns: 100) else { return nil }
        defer { process.finish(quitKeys: "q") }
        _ = answerProbe(process.terminal, deadline: .now + .seconds(5))
        guard process.terminal.read(until: statusBarText, deadline: .now + .seconds(5)) != nil else { return nil }
        _ = process.terminal.readUntilQuiet(quietMs: 200)
        process.terminal.send("2")
        _ = process.terminal.readUntilQuiet(quietMs: 300)
        let moving = scroll(process.terminal, keys: inside)
        // 30 rows: the cursor is at the bottom after at most 30 presses.
        _ = scroll(process.terminal, keys: 30)
        return (moving, scroll(process.terminal, keys: scrolling))
    }

    /// `less` on `lines`, `j` pressed `keys` times, each screen update waited for.
    static func lessScroll(lines: [String], keys: Int) -> Scroll? {
        let path = NSTemporaryDirectory() + "qapital-bench-\(getpid()).txt"
        guard FileManager.default.createFile(atPath: path, contents: Data((lines.joined(separator: "\n") + "\n").utf8)) else { return nil }
        defer { try? FileManager.default.removeItem(atPath: path) }
        guard let process = TerminalProcess(["/usr/bin/less", path], rows: 30, columns: 100) else { return nil }
        defer { process.finish(quitKeys: "q") }
        _ = process.terminal.readUntilQuiet(quietMs: 300, limitMs: 3_000)
        return scroll(process.terminal, keys: keys)
    }

    private static func scroll(_ terminal: PseudoTerminal, keys: Int) -> Scroll {
        var total = 0
        for _ in 0..<keys {
            terminal.send("j")
            total += terminal.readUntilQuiet(quietMs: 25)
        }
        total += terminal.readUntilQuiet(quietMs: 200, limitMs: 300)
        return Scroll(keys: keys, bytes: total)
    }

    /// The activity list as the app shows it at 100 columns, one line per row (no selection,
    /// scrollbar or trailing blanks): what `less` gets to scroll.
    @MainActor
    static func activityText(rows wanted: Int) async -> [String] {
        let core = AppCore(api: DemoSavingsAPI(backend: DemoBackend()), configuration: .init(sourceName: "demo", colors: false))
        core.start()
        core.handle(.key(.char("2")))
        var buffer = CellBuffer(width: 100, height: wanted + 3)
        for _ in 0..<200 {
            core.drawFrame(into: &buffer)
            if core.isIdle { break }
            try? await Task.sleep(for: .milliseconds(5))
        }
        core.drawFrame(into: &buffer)
        return (1..<(wanted + 1)).map { y in
            var line = buffer.rowText(y)
            if line.last == "│" || line.last == "█" { line.removeLast() }
            while line.last == " " { line.removeLast() }
            return line
        }
    }
}

extension Duration {
    var milliseconds: Double {
        Double(components.seconds) * 1_000 + Double(components.attoseconds) / 1e15
    }
}
