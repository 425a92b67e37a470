import Foundation
import Testing
import TestSupport
#if canImport(Glibc)
import Glibc
#endif

extension BlockingTests {
    /// The real binary with `--screen-reader` in a real terminal (tmux, which says where its
    /// cursor is and whether it is shown): the cursor stands on the selected row's text.
    @Suite(.serialized, .timeLimit(.minutes(1))) struct ScreenReaderTerminalTests {

        /// Runs tmux on a socket of its own (through the shell, which waits for it and reaps it:
        /// the server a command starts keeps running, detached); its standard output.
        @discardableResult
        static func tmux(_ socket: String, _ arguments: [String], reading: Bool = true) throws -> String {
            let quoted = ([try ExternalTool.tmux.require(), "-L", socket] + arguments)
                .map { "'" + $0.replacingOccurrences(of: "'", with: "'\\''") + "'" }.joined(separator: " ")
            guard reading else {
                _ = system(quoted + " </dev/null >/dev/null 2>&1")
                return ""
            }
            guard let pipe = popen(quoted + " </dev/null 2>/dev/null", "r") else { return "" }
            var text = Data()
            var chunk = [UInt8](repeating: 0, count: 4096)
            while true {
                let count = fread(&chunk, 1, chunk.count, pipe)
                if count <= 0 { break }
                text.append(contentsOf: chunk[0..<count])
            }
            pclose(pipe)
            return String(decoding: text, as: UTF8.self)
        }

        /// Polls until `condition` holds for the pane's text and cursor, or the deadline passes.
        static func wait(_ socket: String, deadline: TimeInterval = 15,
                         until condition: (_ lines: [String], _ x: Int, _ y: Int, _ shown: Bool) -> Bool) throws -> Bool {
            let end = Date().addingTimeInterval(deadline)
            while Date() < end {
                let lines = try tmux(socket, ["capture-pane", "-p", "-t", "qt"]).components(separatedBy: "\n")
                let place = try tmux(socket, ["display-message", "-p", "-t", "qt", "#{cursor_x} #{cursor_y} #{cursor_flag}"])
                    .split(whereSeparator: \.isWhitespace).compactMap { Int($0) }
                if place.count == 3, condition(lines, place[0], place[1], place[2] == 1) { return true }
                usleep(20_000)
            }
            return false
        }

        @Test(.enabled(if: ExternalTool.tmux.runs, "tmux is not installed here (Scripts/bootstrap.sh test installs it; .ci/run needs it)"))
        func theCursorStandsOnTheSelectedGoal() throws {
            let socket = "qt-reader-\(UUID().uuidString.prefix(8))"
            let data = FileManager.default.temporaryDirectory.appendingPathComponent(socket)
            defer {
                _ = try? Self.tmux(socket, ["kill-server"], reading: false)
                try? FileManager.default.removeItem(at: data)
            }
            let command = "env XDG_DATA_HOME=\(data.path) XDG_CONFIG_HOME=\(data.path) \(TerminalSession.binary.path) --screen-reader --no-cache"
            try Self.tmux(socket, ["new-session", "-d", "-s", "qt", "-x", "100", "-y", "30", command], reading: false)
            // The first goal selected: the cursor on its row, shown.
            #expect(try Self.wait(socket) { lines, _, y, shown in
                shown && y < lines.count && lines[y].contains("Balloons")
            })
            try Self.tmux(socket, ["send-keys", "-t", "qt", "j", "j"], reading: false)
            // Two down: Bike, the cursor at the start of the row's text.
            #expect(try Self.wait(socket) { lines, x, y, shown in
                guard shown, y < lines.count, lines[y].contains("Bike") else { return false }
                let start = lines[y].firstIndex { $0 != " " }.map { lines[y].distance(from: lines[y].startIndex, to: $0) }
                return start == x
            })
            try Self.tmux(socket, ["send-keys", "-t", "qt", "q"], reading: false)
        }
    }
}
