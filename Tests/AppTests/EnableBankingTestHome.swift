import EnableBankingClient
import EnableBankingSource
import Foundation
import Testing

/// A home for the real binary on Enable Banking: the user's key (0600) and a config file
/// naming the look-alike's bank, with a redirect URL and goals when given.
enum EnableBankingTestHome {
    /// The environment that points the binary at `home`.
    static func environment(_ home: URL) -> [String: String] {
        ["HOME": home.path, "XDG_CONFIG_HOME": home.path + "/.config", "XDG_CACHE_HOME": home.path + "/.cache"]
    }

    static func write(_ home: URL, key: EnableBankingKey, applicationId: String, redirect: String? = nil, goals: String? = nil,
                      refreshAfter: String? = nil) throws {
        let config = home.appendingPathComponent(".config/qapital-tui")
        try FileManager.default.createDirectory(at: config, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        let keyPath = config.appendingPathComponent("app.pem")
        #expect(EnableBankingFiles.writePrivate(Data(key.privateKeyPEM.utf8), to: keyPath))
        try Data("""
            [enablebanking]
            application-id = "\(applicationId)"
            key-file = "\(keyPath.path)"
            aspsp = "\(EnableBankingDemoAPI.bankName)"
            country = "FI"
            \(redirect.map { "redirect-url = \"\($0)\"" } ?? "")
            \(goals.map { "goals = \"\($0)\"" } ?? "")
            \(refreshAfter.map { "refresh-after = \"\($0)\"" } ?? "")

            """.utf8).write(to: config.appendingPathComponent("config.toml"))
    }
}
