import _CryptoExtras
import Foundation

/// The app's own RSA-2048 key pair for bunq (made once per machine, base URL and API key): its
/// public half goes to `POST /installation`, its private half signs the session-server and
/// payment bodies (RSA-SHA256, PKCS #1 v1.5, base64), byte for byte as sent.
///
/// The only place the client names swift-crypto: the look-alike signs and verifies through
/// these types too. The private key's PEM is a secret: it is written to the context file
/// (0600) and nowhere else; `description` never shows it.
public struct BunqKeyPair: Sendable, CustomStringConvertible {
    private let key: _RSA.Signing.PrivateKey

    /// A fresh 2048-bit key pair.
    public static func generate() throws(BunqCryptoError) -> BunqKeyPair {
        do {
            return BunqKeyPair(key: try _RSA.Signing.PrivateKey(keySize: .bits2048))
        } catch {
            throw BunqCryptoError(message: "an RSA key pair could not be made")
        }
    }

    /// A key pair kept earlier (PKCS #8 or PKCS #1 PEM).
    public init(privateKeyPEM: String) throws(BunqCryptoError) {
        do {
            key = try _RSA.Signing.PrivateKey(pemRepresentation: privateKeyPEM)
        } catch {
            throw BunqCryptoError(message: "the kept private key could not be read")
        }
    }

    private init(key: _RSA.Signing.PrivateKey) { self.key = key }

    /// The private key as PEM, for the context file only.
    public var privateKeyPEM: String { key.pkcs8PEMRepresentation }
    /// `-----BEGIN PUBLIC KEY-----` (SubjectPublicKeyInfo), what `POST /installation` sends.
    public var publicKeyPEM: String { key.publicKey.pemRepresentation }
    public var publicKey: BunqPublicKey { BunqPublicKey(key: key.publicKey) }

    /// Base64 of RSA-SHA256 PKCS #1 v1.5 over `body` (deterministic: the same key and body give the same signature).
    public func sign(_ body: Data) throws(BunqCryptoError) -> String {
        do {
            return try key.signature(for: body, padding: .insecurePKCS1v1_5).rawRepresentation.base64EncodedString()
        } catch {
            throw BunqCryptoError(message: "the request could not be signed")
        }
    }

    public var description: String { "BunqKeyPair(RSA-\(key.keySizeInBits), private key not shown)" }
}

/// A public key that verifies signatures: bunq's server key (from the installation answer) for
/// its answers, or, in the look-alike, the client's for its requests.
public struct BunqPublicKey: Sendable {
    fileprivate let key: _RSA.Signing.PublicKey

    fileprivate init(key: _RSA.Signing.PublicKey) { self.key = key }

    public init(pem: String) throws(BunqCryptoError) {
        do {
            key = try _RSA.Signing.PublicKey(pemRepresentation: pem)
        } catch {
            throw BunqCryptoError(message: "the public key is not an RSA public key in PEM")
        }
        guard key.keySizeInBits >= 2048 else { throw BunqCryptoError(message: "the public key is shorter than 2048 bits") }
    }

    public var pem: String { key.pemRepresentation }

    /// Whether `signature` (base64) is this key's RSA-SHA256 PKCS #1 v1.5 signature of `body`.
    /// A missing, malformed or wrong signature is false, never a crash.
    public func verifies(_ signature: String?, body: Data) -> Bool {
        guard let signature, signature.utf8.count <= 4096,
              let raw = Data(base64Encoded: signature.trimmingCharacters(in: .whitespaces)) else { return false }
        return key.isValidSignature(_RSA.Signing.RSASignature(rawRepresentation: raw), for: body, padding: .insecurePKCS1v1_5)
    }
}

public struct BunqCryptoError: Error, Equatable, Sendable, CustomStringConvertible {
    public let message: String
    public var description: String { message }
}
