import FeedModel
import Foundation
import Testing
import TestSupport

/// The Rules tab in the real binary on a pseudo-terminal, with a rules file of the user's own:
/// save (s, y), add with its twelve weeks shown (a, Enter, Enter), edit (e), pause (p) and
/// delete (x, y), each seen on the screen and in rules.toml (the last version kept as .bak).
@Suite(.serialized, .timeLimit(.minutes(2))) struct RulesTabBinaryTests {
    @Test func saveAddEditPauseAndDeleteInTheRealBinary() throws {
        let home = FileManager.default.temporaryDirectory.appendingPathComponent("rules-pty-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: home) }
        let config = home.appendingPathComponent(".config/qapital-tui")
        try FileManager.default.createDirectory(at: config, withIntermediateDirectories: true)
        let file = config.appendingPathComponent("rules.toml")
        // Owing from last week on, as a rule added then would.
        let calendar = Week.calendar(in: .current)
        let since = calendar.dateComponents([.year, .month, .day], from: Week(containing: Date(), calendar: calendar).previous.start)
        try """
            [[rule]]
            name = "weekly"
            kind = "set-and-forget"
            goal = "Dog"
            amount = "5.00"
            since = \(String(format: "%04d-%02d-%02d", since.year!, since.month!, since.day!))

            """.write(to: file, atomically: true, encoding: .utf8)
        func written() -> String { (try? String(contentsOf: file, encoding: .utf8)) ?? "" }

        let session = try TerminalSession(arguments: ["--no-images"], width: 110, height: 32,
                                          environment: ["HOME": home.path, "XDG_CONFIG_HOME": home.appendingPathComponent(".config").path])
        #expect(session.read(until: { $0.contains("Balloons") && $0.contains("? help") }))
        session.send("6")
        #expect(session.read(until: { $0.contains("weekly") && $0.contains("so far $5.00") }), "\(session.text.suffix(600))")

        // Save last week, typed at once: `s` waits for the week's rules, then lists them; y moves them once.
        session.send("[sy")
        #expect(session.read(until: { $0.contains("saved $5.00 into Dog") }), "\(session.text.suffix(600))")

        // Add: the twelve weeks first, Enter again keeps it.
        session.send("]")
        session.send("a")
        #expect(session.read(until: { $0.contains("New rule") }))
        session.send("treats\t\t\t3.00\tUber\r")
        // Its twelve weeks: the oldest one's label is on the screen (written whole: no space in it).
        var oldest = Week(containing: Date(), calendar: calendar)
        for _ in 0..<12 { oldest = oldest.previous }
        let label = oldest.isoLabel
        #expect(session.read(until: { $0.contains(label) }), "\(session.text.suffix(800))")
        #expect(!written().contains("treats"), "nothing is kept before its weeks are shown")
        session.send("\r")
        #expect(session.read(until: { _ in written().contains("name = \"treats\"") }))
        #expect(written().contains("amount = \"3.00\"") && written().contains("match = [\"Uber\"]"), "\(written())")

        // Edit it: another amount.
        session.send("G")
        session.send("e")
        #expect(session.read(until: { $0.contains("Edit rule") }))
        session.send("\t\t\t\u{7f}\u{7f}\u{7f}\u{7f}4.00\r")
        #expect(session.read(until: { $0.components(separatedBy: label).count > 2 }), "the twelve weeks again, for the edit")
        session.send("\r")
        #expect(session.read(until: { _ in written().contains("amount = \"4.00\"") }), "\(written())")

        // Pause the first rule, then delete it after a yes.
        session.send("g")
        session.send("p")
        #expect(session.read(until: { _ in written().contains("paused = true") }), "\(written())")
        session.send("x")
        #expect(session.read(until: { $0.contains("Delete a rule") }))
        session.send("y")
        #expect(session.read(until: { _ in !written().contains("\"weekly\"") }), "\(written())")
        let backup = (try? String(contentsOf: file.appendingPathExtension("bak"), encoding: .utf8)) ?? ""
        #expect(backup.contains("\"weekly\"") && backup.contains("paused = true"), "\(backup)")
        #expect(written().contains("\"treats\""))

        session.send("q")
        #expect(session.waitForExit() == 0)
    }
}
