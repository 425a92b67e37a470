import Foundation

/// A program the tests run (hledger, tmux) that `Scripts/bootstrap.sh test` installs. Where it is
/// missing, a test that needs it is skipped with its reason printed (`.enabled(if: tool.runs, …)`);
/// in CI (`QT_CI=1`, which .ci/run sets) it runs anyway and fails at `require()`, so a tool CI
/// should have installed is never a silent pass there.
public struct ExternalTool: Sendable {
    public static let hledger = ExternalTool("hledger")
    public static let tmux = ExternalTool("tmux")

    public let name: String
    /// Where it is (a `PATH` directory, /usr/bin, /usr/local/bin); nil where it is missing.
    public let path: String?
    /// Whether this is CI (`QT_CI=1`), where a missing tool is a failure.
    public let inCI: Bool

    public init(_ name: String, environment: [String: String] = ProcessInfo.processInfo.environment) {
        self.name = name
        let directories = (environment["PATH"] ?? "/usr/bin:/bin").split(separator: ":").map(String.init) + ["/usr/bin", "/usr/local/bin"]
        path = directories.map { "\($0)/\(name)" }.first { FileManager.default.isExecutableFile(atPath: $0) }
        inCI = environment["QT_CI"] == "1"
    }

    /// Whether a test that needs the tool runs: where it is installed, and always in CI.
    public var runs: Bool { path != nil || inCI }

    /// Its path; where it is missing (which only a CI run reaches) an error that fails the test.
    public func require() throws -> String {
        guard let path else { throw Missing(name: name) }
        return path
    }

    public struct Missing: Error, CustomStringConvertible {
        public let name: String
        public var description: String { "\(name) is not installed, and CI (QT_CI=1) needs it: Scripts/bootstrap.sh test installs it" }
    }
}
