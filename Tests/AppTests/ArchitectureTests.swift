import Foundation
import Testing
import TermUI
@testable import QapitalApp

/// What docs/architecture.md claims about the app's shape, checked.
@MainActor
@Suite(.timeLimit(.minutes(1))) struct ArchitectureTests {
    static let sources = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("Sources/QapitalApp")

    /// AppCore is routing only: it stays under 200 lines.
    @Test func appCoreIsSmall() throws {
        let text = try String(contentsOf: Self.sources.appendingPathComponent("AppCore.swift"), encoding: .utf8)
        let lines = text.split(separator: "\n", omittingEmptySubsequences: false).count - (text.hasSuffix("\n") ? 1 : 0)
        #expect(lines <= 200, "AppCore.swift has \(lines) lines")
    }

    /// Every lock in the app's own code is FeedModel's `Locked` (a `Mutex` ThreadSanitizer sees);
    /// `serve`'s SwiftNIO server keeps NIO's own `NIOLockedValueBox` (DemoServer, docs/architecture.md).
    @Test func everyLockIsLocked() throws {
        let root = Self.sources.deletingLastPathComponent().deletingLastPathComponent()
        var found: [String] = []
        for folder in ["Sources", "Banks"] {
            let base = root.appendingPathComponent(folder)
            for case let file as String in FileManager.default.enumerator(atPath: base.path)! where file.hasSuffix(".swift") {
                if file.hasSuffix("Support/Locked.swift") || file.hasPrefix("DemoServer/") || file.contains("/Tests/") { continue }
                let text = try String(contentsOf: base.appendingPathComponent(file), encoding: .utf8)
                for lock in ["NSLock", "NSRecursiveLock", "Mutex<", "Mutex(", "NIOLockedValueBox", "os_unfair_lock", "pthread_mutex_t"]
                where text.contains(lock) {
                    found.append("\(folder)/\(file): \(lock)")
                }
            }
        }
        #expect(found.isEmpty, "\(found)")
    }

    /// A new tab is one line: `AppCore.tabs` is the only place that names the tab screens, and
    /// the tab bar, the number keys and the help follow it.
    @Test func aTabIsOneLine() async throws {
        let files = try FileManager.default.contentsOfDirectory(atPath: Self.sources.path).filter { $0.hasSuffix(".swift") }
        for tab in AppCore.tabs {
            let name = "\(tab).self"
            var places: [String] = []
            for file in files {
                let text = try String(contentsOf: Self.sources.appendingPathComponent(file), encoding: .utf8)
                if text.contains(name) { places.append(file) }
            }
            #expect(places == ["AppCore.swift"], "\(name) is named in \(places)")
        }
        let app = AppHarness(width: 120, height: 30)
        _ = await app.start()
        let help = KeysHelp.defaultEntries
        for (index, tab) in AppCore.tabs.enumerated() {
            #expect(app.terminal.lines[0].contains("\(index + 1) \(tab.title)"))
            await app.press(.char(Character("\(index + 1)")))
            #expect(type(of: app.core.screen) == tab, "key \(index + 1) shows \(tab)")
            for entry in tab.keyMap.helpEntries { #expect(help.contains(entry), "the help lists \(tab)'s \(entry.keyLabel)") }
        }
    }
}
