import Foundation
import Testing
import TestSupport
#if canImport(Glibc)
import Glibc
#endif

extension BlockingTests {
    /// Issue 30, items 1 and 12, on the real binary in a pseudo-terminal: keys from the terminal
    /// when stdin is a pipe, and the mouse in SGR reports with button events under every TERM.
    @Suite(.serialized, .timeLimit(.minutes(1))) struct NewcomerTerminalTests {
        /// The exit status of `pid` once it ended (the pty drained meanwhile), nil at the deadline.
        static func exitStatus(_ process: TerminalProcess, timeout: Duration = .seconds(10)) -> Int32? {
            let deadline = ContinuousClock.now + timeout
            while ContinuousClock.now < deadline {
                _ = process.terminal.read(timeoutMs: 5)
                var status: Int32 = 0
                if waitpid(process.pid, &status, WNOHANG) == process.pid {
                    return status & 0x7f == 0 ? (status >> 8) & 0xff : 128 + (status & 0x7f)
                }
            }
            return nil
        }

        static func text(_ bytes: [UInt8]?) -> String { bytes.map { String(decoding: $0, as: UTF8.self) } ?? "" }

        @Test func keysComeFromTheTerminalWhenStdinIsAPipe() throws {
            let binary = TerminalSession.binary.path
            let process = try #require(TerminalProcess(["/bin/sh", "-c", "echo | exec '\(binary)' --no-images"], rows: 30, columns: 100))
            defer { process.finish(quitKeys: "") }
            let pty = process.terminal
            #expect(pty.read(until: "Balloons", deadline: .now + .seconds(10)) != nil)
            pty.send("2")
            #expect(pty.read(until: "savings per week", deadline: .now + .seconds(10)) != nil, "a key reached the app")
            pty.send("q")
            #expect(Self.exitStatus(process) == 0, "q quits")
        }

        @Test func withoutAnyTerminalToReadKeysFromItRefusesInOneLine() throws {
            let binary = TerminalSession.binary.path
            // A session of its own has no controlling terminal: /dev/tty cannot be opened.
            let process = try #require(TerminalProcess(["/usr/bin/setsid", "-w", "/bin/sh", "-c", "echo | exec '\(binary)'"], rows: 30, columns: 100))
            defer { process.finish(quitKeys: "") }
            let said = Self.text(process.terminal.read(until: "\n", deadline: .now + .seconds(10)))
            #expect(said.contains("qapital-tui: standard input is not a terminal"), "\(said)")
            #expect(Self.exitStatus(process) == 64)
        }
    }
}
