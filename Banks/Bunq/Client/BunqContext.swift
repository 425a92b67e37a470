import FeedModel
import Foundation

/// What a machine keeps of its bunq API context, per (base URL, API key): its RSA private key,
/// the installation token, bunq's public key, the device id and the current session. The API
/// key itself is not kept here (the app keeps it only when the user asks); `keyDigest` tells a
/// context made for another key (a fresh one is made then).
public struct BunqContext: Codable, Sendable, Equatable {
    public var baseURL: String
    public var keyDigest: String
    public var privateKeyPEM: String
    public var installationToken: String?
    public var serverPublicKeyPEM: String?
    public var deviceId: Int?
    public var sessionToken: String?
    public var sessionExpiry: Date?
    public var userId: Int?
    public var userName: String?

    public init(baseURL: String, keyDigest: String, privateKeyPEM: String) {
        self.baseURL = baseURL
        self.keyDigest = keyDigest
        self.privateKeyPEM = privateKeyPEM
    }

    /// A digest of the API key (never the key): which key a context belongs to.
    public static func digest(apiKey: String) -> String { SHA1.hex(Array("qapital-tui bunq key\n\(apiKey)".utf8)) }
}

/// The context's file: `DIRECTORY/bunq-<host>.json`, 0600 in a 0700 directory, written whole
/// (a temporary file renamed over it). A file that cannot be read is a fresh start, never a crash.
public struct BunqContextFile: Sendable {
    public let url: URL

    public init(directory: URL, baseURL: URL) {
        let host = (baseURL.host ?? "bunq").lowercased().filter { $0.isLetter || $0.isNumber || $0 == "." || $0 == "-" }
        let port = baseURL.port.map { "-\($0)" } ?? ""
        url = directory.appendingPathComponent("bunq-\(host)\(port).json")
    }

    /// The configuration directory: `$XDG_CONFIG_HOME/qapital-tui`, else `~/.config/qapital-tui`.
    public static func defaultDirectory(environment: [String: String] = ProcessInfo.processInfo.environment) -> URL {
        ConfigFolder.url(environment: environment)
    }

    public func load() -> BunqContext? {
        guard let data = try? Data(contentsOf: url), data.count < 1_000_000 else { return nil }
        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = .secondsSince1970
        return try? decoder.decode(BunqContext.self, from: data)
    }

    public func save(_ context: BunqContext) throws {
        let manager = FileManager.default
        let directory = url.deletingLastPathComponent()
        try manager.createDirectory(at: directory, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        try manager.setAttributes([.posixPermissions: 0o700], ofItemAtPath: directory.path)
        let encoder = JSONEncoder()
        encoder.dateEncodingStrategy = .secondsSince1970
        encoder.outputFormatting = [.sortedKeys]
        let data = try encoder.encode(context)
        let temporary = directory.appendingPathComponent(".\(url.lastPathComponent).\(UUID().uuidString.prefix(8)).tmp")
        guard manager.createFile(atPath: temporary.path, contents: nil, attributes: [.posixPermissions: 0o600]) else {
            throw CocoaError(.fileWriteNoPermission)
        }
        let handle = try FileHandle(forWritingTo: temporary)
        try handle.write(contentsOf: data)
        try handle.close()
        if rename(temporary.path, url.path) != 0 {
            try? manager.removeItem(at: temporary)
            throw CocoaError(.fileWriteUnknown)
        }
    }
}
