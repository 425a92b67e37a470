import FeedModel
import Foundation
import HTTPTransport
#if canImport(Glibc)
import Glibc
#endif

/// An access URL taken apart: the root every request goes to, and the basic-auth user and
/// password it carried. Only `root` (without them) is ever shown or logged.
public struct SimpleFINAccess: Sendable, Equatable {
    /// `https://bridge.simplefin.org/simplefin`: no userinfo, no trailing slash.
    public let root: URL
    let user: String
    let password: String

    /// `user:password`, what HTTP basic authentication sends (base64-encoded by the transport).
    var basicCredential: String { user + ":" + password }

    /// The access URL again, for the file it is kept in (never shown).
    var fullText: String {
        var components = URLComponents(url: root, resolvingAgainstBaseURL: false)
        components?.percentEncodedUser = user
        components?.percentEncodedPassword = password
        return components?.string ?? root.absoluteString
    }

    /// A short stable name for this access URL (its root and user, hashed with the password):
    /// the request count's and the cache's key, which never holds the URL itself.
    public var fingerprint: String { String(SHA256.hex(Array(fullText.utf8)).prefix(16)) }

    /// Reads an access URL: http(s), a host, a user and a password. Throws one line that
    /// never quotes what was given.
    public static func parse(_ text: String) throws(SimpleFINCredentialError) -> SimpleFINAccess {
        let trimmed = text.trimmingCharacters(in: .whitespacesAndNewlines)
        guard let components = URLComponents(string: trimmed), let scheme = components.scheme?.lowercased(),
              scheme == "http" || scheme == "https", let host = components.host, !host.isEmpty else {
            throw SimpleFINCredentialError(message: "not a SimpleFIN access URL (it should look like https://USER:PASS@HOST/simplefin)")
        }
        guard let user = components.percentEncodedUser, !user.isEmpty, let password = components.percentEncodedPassword,
              !password.isEmpty else {
            throw SimpleFINCredentialError(message: "the SimpleFIN access URL for \(TextSanitizer.clean(host)) has no user and password in it")
        }
        guard components.query == nil, components.fragment == nil else {
            throw SimpleFINCredentialError(message: "a SimpleFIN access URL takes no query or fragment (\(TextSanitizer.clean(host)))")
        }
        var bare = components
        bare.user = nil
        bare.password = nil
        var path = bare.percentEncodedPath
        while path.hasSuffix("/") { path.removeLast() }
        bare.percentEncodedPath = path
        guard let root = bare.url else {
            throw SimpleFINCredentialError(message: "not a SimpleFIN access URL (\(TextSanitizer.clean(host)))")
        }
        return SimpleFINAccess(root: root, user: user, password: password)
    }

    public init(root: URL, user: String, password: String) {
        self.root = root
        self.user = user
        self.password = password
    }
}

/// A credential that cannot be used, in one line (never quoting it).
public struct SimpleFINCredentialError: Error, Equatable, Sendable, CustomStringConvertible {
    public let message: String
    public var description: String { message }
}

/// What `--token`, `SIMPLEFIN_TOKEN` or the sign-in form gave: a setup token (base64 of a
/// claim URL) or an access URL.
public enum SimpleFINCredential: Sendable, Equatable {
    case setup(claimURL: URL, token: String)
    case access(SimpleFINAccess)

    public static func read(_ text: String) throws(SimpleFINCredentialError) -> SimpleFINCredential {
        let trimmed = text.trimmingCharacters(in: .whitespacesAndNewlines)
        if trimmed.lowercased().hasPrefix("http://") || trimmed.lowercased().hasPrefix("https://") {
            return .access(try SimpleFINAccess.parse(trimmed))
        }
        guard let claimURL = claimURL(ofSetupToken: trimmed) else {
            throw SimpleFINCredentialError(message: "not a SimpleFIN setup token or access URL (a setup token is base64 text "
                                           + "from the SimpleFIN Bridge; an access URL starts with https://)")
        }
        return .setup(claimURL: claimURL, token: trimmed)
    }

    /// The claim URL a setup token is the base64 of: http(s), a host, no userinfo, a path with
    /// `/claim/` in it. Nil for anything else.
    public static func claimURL(ofSetupToken token: String) -> URL? {
        var base64 = token.replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
        guard !base64.isEmpty, base64.count <= 4_096 else { return nil }
        while base64.count % 4 != 0 { base64 += "=" }
        guard let data = Data(base64Encoded: base64), let text = String(data: data, encoding: .utf8) else { return nil }
        let trimmed = text.trimmingCharacters(in: .whitespacesAndNewlines)
        guard trimmed.unicodeScalars.allSatisfy({ (0x21...0x7E).contains($0.value) }),
              let components = URLComponents(string: trimmed), let scheme = components.scheme?.lowercased(),
              scheme == "http" || scheme == "https", let host = components.host, !host.isEmpty,
              components.user == nil, components.password == nil, components.path.contains("/claim/"),
              let url = components.url else { return nil }
        return url
    }

    /// The SHA-256 of a setup token (hex): what is kept beside its access URL.
    public static func hash(ofSetupToken token: String) -> String {
        SHA256.hex(Array(token.trimmingCharacters(in: .whitespacesAndNewlines).utf8))
    }
}

/// Claiming a setup token: one `POST` to its claim URL, never followed through a redirect,
/// never sent twice for one token (the caller keeps the access URL at once).
public enum SimpleFINClaim {
    /// What the log and every message call the claim (the code in the URL is a secret).
    public static let label = "POST /claim/…"

    /// `POST <claim URL>` with an empty body: the access URL. A 403 says the token may be
    /// compromised; anything else that is not 200 with an access URL is one line.
    public static func claim(_ claimURL: URL, allowInsecureHTTP: Bool, log: RequestLog?, timeout: TimeInterval = 20)
        async throws(APIError) -> SimpleFINAccess {
        let label = SimpleFINClaim.label
        let host = claimURL.host.map { host in claimURL.port.map { "\(host):\($0)" } ?? host } ?? "?"
        do {
            try HTTPTransport.checkTokenTransport(baseURL: claimURL, allowInsecureHTTP: allowInsecureHTTP)
        } catch {
            throw APIError(kind: .rejected, request: label, message: "\(label) to \(TextSanitizer.clean(host)): not sent: \(error.message)")
        }
        // The transport's base is the claim URL's parent, and it keeps no log: the claim code
        // (the URL's last part) is written nowhere; the log gets "POST /claim/…" from here.
        let parent = claimURL.deletingLastPathComponent()
        let transport = HTTPTransport(baseURL: parent, token: nil, timeout: timeout, allowInsecureHTTP: allowInsecureHTTP,
                                      followsRedirects: false)
        let started = ContinuousClock.now
        let answer: HTTPTransport.Answer
        do {
            answer = try await transport.answer("POST", absolute: claimURL, body: Data(), label: label)
        } catch {
            log?.request("POST", "/claim/…", query: [], status: nil, milliseconds: milliseconds(since: started), failure: error.message)
            throw error
        }
        log?.request("POST", "/claim/…", query: [], status: answer.status, milliseconds: milliseconds(since: started))
        switch answer.status {
        case 200:
            let text = String(decoding: answer.body.prefix(4_096), as: UTF8.self)
            do {
                return try SimpleFINAccess.parse(text)
            } catch {
                throw APIError(kind: .malformed, request: label, message: "\(label): the Bridge's answer is not an access URL", status: 200)
            }
        case 403:
            throw APIError(kind: .unauthorized, request: label, message: compromised, status: 403)
        case 300..<400:
            throw APIError(kind: .rejected, request: label, message: "\(label): the Bridge answered with a redirect (HTTP \(answer.status)); "
                           + "not followed, the token was not claimed", status: answer.status)
        default:
            throw HTTPTransport.statusError(answer.status, label: label, serverMessage: nil)
        }
    }

    /// The protocol asks apps to say this on a 403.
    public static let compromised = "the SimpleFIN Bridge refused the setup token (HTTP 403): it does not exist or was already claimed. "
        + "If you did not claim it yourself, it may be compromised: disable it on the SimpleFIN Bridge and make a new one"

    private static func milliseconds(since start: ContinuousClock.Instant) -> Int {
        Int((ContinuousClock.now - start) / .milliseconds(1))
    }
}

/// The access URLs claimed so far, each with the SHA-256 of its setup token and the claim
/// time: `$XDG_CONFIG_HOME/qapital-tui/simplefin-access.json`, mode 0600 in a 0700 directory.
/// Written at once after a claim (a claimed token cannot be claimed again, so a lost access
/// URL means a new token); a later start with the same token finds its hash and does not claim.
public struct SimpleFINAccessFile: Sendable {
    public let fileURL: URL

    public init(fileURL: URL) { self.fileURL = fileURL }

    /// `$XDG_CONFIG_HOME/qapital-tui/simplefin-access.json`, else `~/.config/qapital-tui/…`.
    public static func defaultFile(environment: [String: String]) -> URL {
        ConfigFolder.url(environment: environment).appendingPathComponent("simplefin-access.json")
    }

    struct Entry: Codable {
        var tokenHash: String
        var accessURL: String
        var claimedAt: Date
    }

    struct Contents: Codable {
        var claims: [Entry]
    }

    /// The access URL claimed with a setup token of this hash, if kept (and the file is the user's own, 0600).
    public func access(forTokenHash hash: String) -> SimpleFINAccess? {
        guard let entry = read()?.claims.last(where: { $0.tokenHash == hash }) else { return nil }
        return try? SimpleFINAccess.parse(entry.accessURL)
    }

    /// The newest access URL kept: a start with no token uses it.
    public func newest() -> SimpleFINAccess? {
        guard let entry = read()?.claims.max(by: { $0.claimedAt < $1.claimedAt }) else { return nil }
        return try? SimpleFINAccess.parse(entry.accessURL)
    }

    /// The newest access URL kept, as text (handed to `connect` like a given one; never shown).
    public func newestText() -> String? { newest()?.fullText }

    /// Keeps `access` for the token hash (0600, written whole then moved into place).
    public func keep(_ access: SimpleFINAccess, tokenHash: String, at date: Date) throws(SimpleFINCredentialError) {
        var contents = read() ?? Contents(claims: [])
        contents.claims.removeAll { $0.tokenHash == tokenHash }
        contents.claims.append(Entry(tokenHash: tokenHash, accessURL: access.fullText, claimedAt: date))
        let directory = fileURL.deletingLastPathComponent()
        do {
            try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true,
                                                    attributes: [.posixPermissions: 0o700])
            _ = chmod(directory.path, 0o700)
            let encoder = JSONEncoder()
            encoder.dateEncodingStrategy = .iso8601
            encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
            let data = try encoder.encode(contents)
            let temporary = directory.appendingPathComponent(".simplefin-access-\(getpid()).tmp")
            let fd = open(temporary.path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o600)
            guard fd >= 0 else { throw SimpleFINCredentialError(message: "cannot write \(TextSanitizer.clean(temporary.path))") }
            let written = data.withUnsafeBytes { Glibc.write(fd, $0.baseAddress, $0.count) }
            _ = fsync(fd)
            _ = close(fd)
            guard written == data.count, rename(temporary.path, fileURL.path) == 0 else {
                unlink(temporary.path)
                throw SimpleFINCredentialError(message: "cannot write \(TextSanitizer.clean(fileURL.path))")
            }
        } catch let error as SimpleFINCredentialError {
            throw error
        } catch {
            throw SimpleFINCredentialError(message: "cannot write \(TextSanitizer.clean(fileURL.path))")
        }
    }

    /// The file's contents when it is a regular file of this user with no access for others.
    func read() -> Contents? {
        var info = stat()
        guard lstat(fileURL.path, &info) == 0, (info.st_mode & S_IFMT) == S_IFREG, info.st_uid == getuid(),
              info.st_mode & 0o077 == 0, let data = try? Data(contentsOf: fileURL) else { return nil }
        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = .iso8601
        return try? decoder.decode(Contents.self, from: data)
    }
}
