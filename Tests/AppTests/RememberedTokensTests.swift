import Foundation
import Testing
#if canImport(Glibc)
import Glibc
#endif
@testable import qapital_tui

/// The opt-in token file: 0600, per origin, never trusted when others could read it.
@Suite struct RememberedTokensTests {
    func withDirectory(_ body: (URL) throws -> Void) rethrows {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("tokens-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: directory) }
        try body(directory)
    }

    @Test func defaultPlace() {
        #expect(RememberedTokens.defaultFile(environment: ["XDG_CONFIG_HOME": "/x/config", "HOME": "/h"]).path
                == "/x/config/qapital-tui/starling-tokens.json")
        #expect(RememberedTokens.defaultFile(environment: ["XDG_CONFIG_HOME": "relative", "HOME": "/h"]).path
                == "/h/.config/qapital-tui/starling-tokens.json")
    }

    @Test func keptWithMode0600AndReadBackForItsOriginOnly() throws {
        try withDirectory { directory in
            let file = RememberedTokens(fileURL: directory.appendingPathComponent("qapital-tui/starling-tokens.json"))
            let production = URL(string: "https://api.starlingbank.com")!
            let local = URL(string: "http://127.0.0.1:8080")!
            #expect(file.token(for: production) == nil)
            try file.remember("prod-token", for: production)
            try file.remember("local-token", for: local)
            #expect(file.token(for: URL(string: "https://API.starlingbank.com:443/")!) == "prod-token")
            #expect(file.token(for: local) == "local-token")
            #expect(file.token(for: URL(string: "http://127.0.0.1:8081")!) == nil)
            #expect(file.token(for: URL(string: "https://api-sandbox.starlingbank.com")!) == nil)

            var info = stat()
            #expect(stat(file.fileURL.path, &info) == 0)
            #expect(info.st_mode & 0o777 == 0o600)
            #expect(stat(file.fileURL.deletingLastPathComponent().path, &info) == 0)
            #expect(info.st_mode & 0o077 == 0)
            // Only the token file is left in the directory (no temporary files).
            #expect(try FileManager.default.contentsOfDirectory(atPath: file.fileURL.deletingLastPathComponent().path)
                    == ["starling-tokens.json"])

            try file.forget(production)
            #expect(file.token(for: production) == nil)
            #expect(file.token(for: local) == "local-token")
        }
    }

    @Test func aFileOthersCanReadIsNotTrusted() throws {
        try withDirectory { directory in
            let file = RememberedTokens(fileURL: directory.appendingPathComponent("starling-tokens.json"))
            let url = URL(string: "http://127.0.0.1:8080")!
            try file.remember("t", for: url)
            chmod(file.fileURL.path, 0o644)
            #expect(file.token(for: url) == nil)
            chmod(file.fileURL.path, 0o600)
            #expect(file.token(for: url) == "t")
            try Data("not json".utf8).write(to: file.fileURL)
            chmod(file.fileURL.path, 0o600)
            #expect(file.token(for: url) == nil)
        }
    }

    @Test func anUnwritablePlaceIsOneLineWithoutTheToken() throws {
        let file = RememberedTokens(fileURL: URL(fileURLWithPath: "/proc/qapital-tui-nope/starling-tokens.json"))
        do {
            try file.remember("secret-token-value", for: URL(string: "http://h:1")!)
            Issue.record("wrote under /proc")
        } catch {
            #expect(error.message == "cannot create /proc/qapital-tui-nope")
            #expect(!error.message.contains("secret-token-value"))
        }
    }
}
