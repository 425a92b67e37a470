import CNcurses
import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// A pseudo-terminal of a fixed size (the bench and the binary tests). The master side is read:
/// what a program writes to its terminal is exactly what arrives there. Every read has a deadline.
public final class PseudoTerminal {
    public let master: Int32
    public let slavePath: String
    public let rows: Int
    public let columns: Int

    public init?(rows: Int, columns: Int) {
        var path = [CChar](repeating: 0, count: 128)
        let fd = qt_open_pty(Int32(rows), Int32(columns), &path, path.count)
        guard fd >= 0 else { return nil }
        master = fd
        slavePath = String(decoding: path.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
        self.rows = rows
        self.columns = columns
    }

    deinit { close(master) }

    public func send(_ text: String) {
        let bytes = Array(text.utf8)
        _ = bytes.withUnsafeBytes { write(master, $0.baseAddress, $0.count) }
    }

    /// What arrives within `timeout` milliseconds (empty when nothing did or the slave is closed).
    public func read(timeoutMs: Int) -> [UInt8] {
        var poller = pollfd(fd: master, events: Int16(POLLIN), revents: 0)
        guard poll(&poller, 1, Int32(timeoutMs)) > 0 else { return [] }
        var chunk = [UInt8](repeating: 0, count: 65_536)
        let count = chunk.withUnsafeMutableBytes { Glibc.read(master, $0.baseAddress, $0.count) }
        return count > 0 ? Array(chunk.prefix(count)) : []
    }

    /// Reads until `needle` has appeared; the bytes read, or nil at the deadline.
    public func read(until needle: String, deadline: ContinuousClock.Instant) -> [UInt8]? {
        let target = Array(needle.utf8)
        var seen: [UInt8] = []
        while ContinuousClock.now < deadline {
            seen += read(timeoutMs: 5)
            if seen.count >= target.count, Self.contains(seen, target) { return seen }
        }
        return nil
    }

    /// Reads until the program has been silent for `quietMs` (after at least one byte, unless
    /// nothing comes within `limitMs`); returns the byte count.
    public func readUntilQuiet(quietMs: Int, limitMs: Int = 1_000) -> Int {
        let deadline = ContinuousClock.now + .milliseconds(limitMs)
        var total = 0
        while ContinuousClock.now < deadline {
            let chunk = read(timeoutMs: total == 0 ? 5 : quietMs)
            if chunk.isEmpty && total > 0 { break }
            total += chunk.count
        }
        return total
    }

    private static func contains(_ haystack: [UInt8], _ needle: [UInt8]) -> Bool {
        guard needle.count <= haystack.count else { return false }
        for start in 0...(haystack.count - needle.count) where haystack[start] == needle[0] {
            if haystack[start..<(start + needle.count)].elementsEqual(needle) { return true }
        }
        return false
    }
}

/// A child process whose terminal is a fresh pseudo-terminal; always ended by `finish`.
public final class TerminalProcess {
    public let terminal: PseudoTerminal
    public let pid: pid_t

    /// The environment every program gets: the same terminal type and a UTF-8 locale.
    public static let environment: [String] = [
        "TERM=xterm-256color", "LANG=C.UTF-8", "LC_ALL=C.UTF-8", "LESSHISTFILE=-", "LESS=",
        "SWIFT_BACKTRACE=enable=no", "PATH=/usr/bin:/bin", "HOME=" + (ProcessInfo.processInfo.environment["HOME"] ?? "/tmp"),
    ]

    /// `environment`: `NAME=value` entries added to (or replacing) the common ones.
    public init?(_ arguments: [String], rows: Int, columns: Int, environment extra: [String] = []) {
        guard let terminal = PseudoTerminal(rows: rows, columns: columns) else { return nil }
        self.terminal = terminal
        let argv = arguments.map { strdup($0) } + [nil]
        let names = Set(extra.map { $0.prefix { $0 != "=" } })
        let envp = (Self.environment.filter { !names.contains($0.prefix { $0 != "=" }) } + extra).map { strdup($0) } + [nil]
        defer {
            for pointer in argv { free(pointer) }
            for pointer in envp { free(pointer) }
        }
        pid = qt_spawn_on_pty(terminal.master, terminal.slavePath, argv, envp)
        guard pid > 0 else { return nil }
    }

    /// Sends `quitKeys`, waits up to a second for the exit, then SIGTERM and SIGKILL; reaps.
    public func finish(quitKeys: String) {
        terminal.send(quitKeys)
        for signal in [0, SIGTERM, SIGKILL] {
            if signal != 0 { kill(pid, signal) }
            let deadline = ContinuousClock.now + .seconds(1)
            while ContinuousClock.now < deadline {
                _ = terminal.read(timeoutMs: 2)  // keep the pty drained so the child can write
                var status: Int32 = 0
                if waitpid(pid, &status, WNOHANG) == pid { return }
            }
        }
    }
}

/// Resident memory of this process, from /proc/self/statm.
public enum ResidentMemory {
    public static func bytes() -> Int {
        guard let text = try? String(contentsOfFile: "/proc/self/statm", encoding: .utf8) else { return 0 }
        let fields = text.split(separator: " ")
        guard fields.count > 1, let pages = Int(fields[1]) else { return 0 }
        return pages * Int(sysconf(Int32(_SC_PAGESIZE)))
    }
}

/// The real `qapital-tui` binary running on a pseudo-terminal of a fixed size, its standard
/// streams on the slave side: keys go in as bytes, everything it writes is collected. Every
/// wait has a deadline; nothing sleeps.
public final class TerminalSession {
    public let process = Process()
    public let terminal: PseudoTerminal
    public private(set) var output = Data()

    /// The binary SwiftPM built beside this one (the test bundle or the bench).
    public static var binary: URL {
        URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent().appendingPathComponent("qapital-tui")
    }

    public init(arguments: [String] = [], width: Int = 100, height: Int = 30, environment extra: [String: String] = [:]) throws {
        guard let terminal = PseudoTerminal(rows: height, columns: width) else {
            throw CocoaError(.fileWriteUnknown, userInfo: [NSLocalizedDescriptionKey: "cannot open a pseudo-terminal"])
        }
        self.terminal = terminal
        let slave = open(terminal.slavePath, O_RDWR | O_NOCTTY)
        guard slave >= 0 else { throw CocoaError(.fileReadUnknown) }
        let handle = FileHandle(fileDescriptor: slave, closeOnDealloc: true)
        process.executableURL = TerminalSession.binary
        process.arguments = arguments
        var environment = ProcessInfo.processInfo.environment
        environment["TERM"] = "xterm-256color"
        environment["LANG"] = "C.UTF-8"
        environment["SWIFT_BACKTRACE"] = "enable=no"
        environment.removeValue(forKey: "QAPITAL_API_URL")
        environment.removeValue(forKey: "NO_COLOR")
        for (key, value) in extra { environment[key] = value }
        process.environment = environment
        process.standardInput = handle
        process.standardOutput = handle
        process.standardError = handle
        try process.run()
    }

    deinit {
        if process.isRunning { process.terminate() }
    }

    public var text: String { String(decoding: output, as: UTF8.self) }

    public func send(_ text: String) {
        terminal.send(text)
    }

    /// Reads until `condition` holds for everything read so far, or the deadline passes.
    @discardableResult
    public func read(until condition: (String) -> Bool, timeout: TimeInterval = 10) -> Bool {
        let deadline = Date().addingTimeInterval(timeout)
        while true {
            drain()
            if condition(text) { return true }
            let left = deadline.timeIntervalSinceNow
            if left <= 0 { return false }
            var descriptor = pollfd(fd: terminal.master, events: Int16(POLLIN), revents: 0)
            _ = poll(&descriptor, 1, Int32(min(left, 0.5) * 1000))
        }
    }

    private func drain() {
        while true {
            let chunk = terminal.read(timeoutMs: 0)
            if chunk.isEmpty { return }
            output.append(contentsOf: chunk)
        }
    }

    /// Waits for the process to end (reading what it still writes); nil if it did not in time.
    public func waitForExit(timeout: TimeInterval = 10) -> Int32? {
        let deadline = Date().addingTimeInterval(timeout)
        while process.isRunning && Date() < deadline {
            read(until: { _ in false }, timeout: 0.05)
        }
        drain()
        return process.isRunning ? nil : process.terminationStatus
    }
}

/// Runs blocking work (a terminal session's polling reads, a raw socket's) on a thread of its own, so that it
/// never holds one of the few threads Swift concurrency runs on: a server in the same process
/// needs them to answer the program being read.
public func onOwnThread<T: Sendable>(_ work: @escaping @Sendable () -> T) async -> T {
    await withCheckedContinuation { continuation in
        Thread { continuation.resume(returning: work()) }.start()
    }
}
