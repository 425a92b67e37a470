import Foundation
import TestSupport
#if canImport(Glibc)
import Glibc
#endif

/// `qapital-tui serve` as a child process, with its stderr kept.
final class ServeProcess {
    let process = Process()
    let port: UInt16
    private let errors = Pipe()
    private var firstLines: String

    init(_ arguments: [String] = []) throws {
        process.executableURL = TerminalSession.binary
        process.arguments = ["serve", "--port", "0"] + arguments
        process.standardError = errors
        process.standardOutput = FileHandle.nullDevice
        process.standardInput = FileHandle.nullDevice
        try process.run()
        // The first line names the address (bounded by the suite's time limit).
        var text = ""
        while !text.contains("\n") {
            let chunk = errors.fileHandleForReading.availableData
            if chunk.isEmpty { break }
            text += String(decoding: chunk, as: UTF8.self)
        }
        firstLines = text
        guard let address = text.split(separator: " ").first(where: { $0.hasPrefix("http://127.0.0.1:") }),
              let port = UInt16(address.dropFirst("http://127.0.0.1:".count).prefix(while: \.isNumber)) else {
            process.terminate()
            throw RawHTTPClient.Failure(description: "serve did not say where it listens: \(text)")
        }
        self.port = port
    }

    deinit {
        if process.isRunning { process.terminate() }
    }

    func client() throws -> RawHTTPClient {
        try RawHTTPClient(port: port)
    }

    /// Closes the reading end of serve's stderr, as `serve 2>&1 | head -1` does once `head` has its line.
    func closeStderr() {
        try? errors.fileHandleForReading.close()
    }

    /// Sends `signal` and waits for the exit, without reading stderr (closed by `closeStderr`).
    func stopWithoutReading(_ signal: Int32 = SIGTERM) -> Int32 {
        kill(process.processIdentifier, signal)
        process.waitUntilExit()
        return process.terminationStatus
    }

    /// Sends `signal` and waits for the exit; returns the status and everything written on stderr.
    func stop(_ signal: Int32 = SIGTERM) -> (status: Int32, stderr: String) {
        kill(process.processIdentifier, signal)
        let rest = errors.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return (process.terminationStatus, firstLines + String(decoding: rest, as: UTF8.self))
    }
}
