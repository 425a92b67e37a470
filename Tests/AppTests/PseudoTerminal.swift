import CNcurses
import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// The real `qapital-tui` binary running in a pseudo-terminal of a fixed size: keys go in as
/// bytes, everything it writes is collected. Every wait has a deadline; nothing sleeps.
final class PseudoTerminal {
    let process = Process()
    private let master: Int32
    private(set) var output = Data()

    /// The binary SwiftPM built beside the test bundle.
    static var binary: URL {
        URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent().appendingPathComponent("qapital-tui")
    }

    init(arguments: [String] = [], width: Int = 100, height: Int = 30, environment extra: [String: String] = [:]) throws {
        var path = [CChar](repeating: 0, count: 128)
        master = qt_open_pty(Int32(height), Int32(width), &path, path.count)
        guard master >= 0 else {
            throw CocoaError(.fileWriteUnknown, userInfo: [NSLocalizedDescriptionKey: "cannot open a pseudo-terminal"])
        }
        let slave = open(String(decoding: path.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self), O_RDWR | O_NOCTTY)
        guard slave >= 0 else { throw CocoaError(.fileReadUnknown) }
        let handle = FileHandle(fileDescriptor: slave, closeOnDealloc: true)
        process.executableURL = PseudoTerminal.binary
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
        let flags = fcntl(master, F_GETFL)
        _ = fcntl(master, F_SETFL, flags | O_NONBLOCK)
    }

    deinit {
        if process.isRunning { process.terminate() }
        close(master)
    }

    var text: String { String(decoding: output, as: UTF8.self) }

    func send(_ text: String) {
        let bytes = Array(text.utf8)
        _ = bytes.withUnsafeBufferPointer { write(master, $0.baseAddress, $0.count) }
    }

    /// Reads until `condition` holds for everything read so far, or the deadline passes.
    @discardableResult
    func read(until condition: (String) -> Bool, timeout: TimeInterval = 10) -> Bool {
        let deadline = Date().addingTimeInterval(timeout)
        while true {
            drain()
            if condition(text) { return true }
            let left = deadline.timeIntervalSinceNow
            if left <= 0 { return false }
            var descriptor = pollfd(fd: master, events: Int16(POLLIN), revents: 0)
            _ = poll(&descriptor, 1, Int32(min(left, 0.5) * 1000))
        }
    }

    private func drain() {
        var buffer = [UInt8](repeating: 0, count: 65_536)
        while true {
            let count = buffer.withUnsafeMutableBufferPointer { Glibc.read(master, $0.baseAddress, $0.count) }
            if count <= 0 { return }
            output.append(contentsOf: buffer[0..<count])
        }
    }

    /// Waits for the process to end (reading what it still writes); nil if it did not in time.
    func waitForExit(timeout: TimeInterval = 10) -> Int32? {
        let deadline = Date().addingTimeInterval(timeout)
        while process.isRunning && Date() < deadline {
            read(until: { _ in false }, timeout: 0.05)
        }
        drain()
        return process.isRunning ? nil : process.terminationStatus
    }
}
