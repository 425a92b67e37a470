import _CryptoExtras
import FeedModel
import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// The application's private key (RSA, at least 2048 bits, PEM, PKCS #1 or #8), read from the
/// file the user names at each start and kept in memory only: never copied, rewritten, logged
/// or shown (`description` says what it is, never what it holds).
///
/// The file is refused, with one line naming it and nothing sent, when group or others may read
/// or write it, when it has a passphrase, or when it is not an RSA key.
public struct EnableBankingKey: Sendable, CustomStringConvertible {
    let key: _RSA.Signing.PrivateKey

    /// The largest key file read (a 4096-bit PEM is about 3.3 kB).
    static let maxBytes = 64 * 1024

    /// Reads and checks the key at `path` (already expanded: no `~`).
    public static func read(path: String) throws(EnableBankingKeyError) -> EnableBankingKey {
        let shown = TextSanitizer.clean(path)
        var info = stat()
        guard stat(path, &info) == 0 else {
            throw EnableBankingKeyError(message: "the Enable Banking key file \(shown) cannot be read (\(String(cString: strerror(errno))))")
        }
        guard (info.st_mode & S_IFMT) == S_IFREG else {
            throw EnableBankingKeyError(message: "the Enable Banking key file \(shown) is not a file")
        }
        guard info.st_mode & 0o077 == 0 else {
            throw EnableBankingKeyError(message: "the Enable Banking key file \(shown) may be read by others: run chmod 600 \(shown)")
        }
        guard info.st_size <= maxBytes, let data = FileManager.default.contents(atPath: path) else {
            throw EnableBankingKeyError(message: "the Enable Banking key file \(shown) cannot be read")
        }
        return try EnableBankingKey(pem: String(decoding: data, as: UTF8.self), shown: shown)
    }

    /// A key from its PEM text (`shown`: how the refusal names where it came from).
    public init(pem: String, shown: String = "the key") throws(EnableBankingKeyError) {
        // CRLF files are common on Windows downloads: the PEM reader wants LF.
        let text = pem.replacingOccurrences(of: "\r\n", with: "\n")
        if text.contains("ENCRYPTED") {
            throw EnableBankingKeyError(message: "the Enable Banking key file \(shown) has a passphrase: "
                                        + "save it without one (openssl pkey -in KEY -out NEW) and chmod 600 it")
        }
        guard text.contains("-----BEGIN RSA PRIVATE KEY-----") || text.contains("-----BEGIN PRIVATE KEY-----") else {
            throw EnableBankingKeyError(message: "the Enable Banking key file \(shown) is not an RSA private key in PEM")
        }
        do {
            key = try _RSA.Signing.PrivateKey(pemRepresentation: text)
        } catch {
            throw EnableBankingKeyError(message: "the Enable Banking key file \(shown) is not an RSA private key in PEM")
        }
        guard key.keySizeInBits >= 2048 else {
            throw EnableBankingKeyError(message: "the Enable Banking key file \(shown) holds an RSA key shorter than 2048 bits")
        }
    }

    /// RSA-SHA256, PKCS #1 v1.5 (deterministic: the same key and input give the same bytes).
    func sign(_ input: Data) throws(EnableBankingKeyError) -> Data {
        do {
            return try key.signature(for: input, padding: .insecurePKCS1v1_5).rawRepresentation
        } catch {
            throw EnableBankingKeyError(message: "the request could not be signed with the Enable Banking key")
        }
    }

    /// The public half as PEM (what the look-alike verifies with).
    public var publicKeyPEM: String { key.publicKey.pemRepresentation }

    /// A fresh 2048-bit key (the look-alike's own pair when the user gives none).
    public static func generate() throws(EnableBankingKeyError) -> EnableBankingKey {
        do {
            return EnableBankingKey(key: try _RSA.Signing.PrivateKey(keySize: .bits2048))
        } catch {
            throw EnableBankingKeyError(message: "an RSA key could not be made")
        }
    }

    private init(key: _RSA.Signing.PrivateKey) { self.key = key }

    /// PKCS #8 PEM, only for the look-alike's `--key-out` file (0600).
    public var privateKeyPEM: String { key.pkcs8PEMRepresentation }

    public var description: String { "EnableBankingKey(RSA-\(key.keySizeInBits), not shown)" }
}

/// Why the key file cannot be used: one line, naming the path, never its contents.
public struct EnableBankingKeyError: Error, Equatable, Sendable, CustomStringConvertible {
    public let message: String
    public init(message: String) { self.message = message }
    public var description: String { message }
}
