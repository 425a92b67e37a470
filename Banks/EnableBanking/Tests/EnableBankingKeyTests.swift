@testable import EnableBankingClient
import FeedModel
import Foundation
import Testing

func fixtureURL(_ name: String, _ ext: String) throws -> URL {
    try #require(Bundle.module.url(forResource: name, withExtension: ext, subdirectory: "Fixtures"))
}

func fixtureData(_ name: String, _ ext: String = "json") throws -> Data {
    try Data(contentsOf: try fixtureURL(name, ext))
}

func fixtureText(_ name: String, _ ext: String = "pem") throws -> String {
    String(decoding: try fixtureData(name, ext), as: UTF8.self)
}

/// A folder of its own for one test, removed at the end.
final class TemporaryFolder {
    let url: URL

    init() throws {
        url = FileManager.default.temporaryDirectory.appendingPathComponent("eb-tests-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
    }

    deinit { try? FileManager.default.removeItem(at: url) }

    /// `text` written to `name` with `mode`.
    func file(_ name: String, _ text: String, mode: Int) throws -> String {
        let path = url.appendingPathComponent(name).path
        try Data(text.utf8).write(to: URL(fileURLWithPath: path))
        try FileManager.default.setAttributes([.posixPermissions: mode], ofItemAtPath: path)
        return path
    }
}

@Suite struct EnableBankingKeyTests {
    /// Our RS256 is openssl's byte for byte: PKCS #1 v1.5 is deterministic, so the token made
    /// from the same key, id and time must equal the one `openssl dgst -sha256 -sign` signed.
    @Test(arguments: ["eb_test_key_pkcs1", "eb_test_key_pkcs8"])
    func theTokenEqualsOpenSSLs(keyName: String) throws {
        struct Vector: Decodable { let kid: String; let iat: Int64; let token: String }
        let vectors = try JSONDecoder().decode([Vector].self, from: try fixtureData("jwt_vectors"))
        #expect(vectors.count == 2)
        let key = try EnableBankingKey(pem: try fixtureText(keyName))
        for vector in vectors {
            let token = try EnableBankingJWT.token(key: key, applicationId: vector.kid, issuedAt: vector.iat)
            #expect(token == vector.token)
        }
    }

    @Test func theTokensHeaderAndClaimsAreTheSpecs() throws {
        let key = try EnableBankingKey(pem: try fixtureText("eb_test_key_pkcs1"))
        let token = try EnableBankingJWT.token(key: key, applicationId: "app-1", issuedAt: 1_767_225_600)
        let parts = token.split(separator: ".")
        #expect(parts.count == 3 && !token.contains("="))
        let header = String(decoding: try #require(EnableBankingJWT.fromBase64URL(parts[0])), as: UTF8.self)
        let claims = String(decoding: try #require(EnableBankingJWT.fromBase64URL(parts[1])), as: UTF8.self)
        #expect(header == #"{"typ":"JWT","alg":"RS256","kid":"app-1"}"#)
        #expect(claims == #"{"iss":"enablebanking.com","aud":"api.enablebanking.com","iat":1767225600,"exp":1767229200}"#)
    }

    /// The look-alike's check takes our token and refuses one changed anywhere, signed by
    /// another key, for another application, or expired.
    @Test func aTamperedTokenIsRefused() throws {
        let key = try EnableBankingKey(pem: try fixtureText("eb_test_key_pkcs1"))
        let check = try EnableBankingTokenCheck(publicKeyPEM: try fixtureText("eb_test_public_key"), applicationId: "app-1")
        let at = Date(timeIntervalSince1970: 1_767_225_600)
        let token = try EnableBankingJWT.token(key: key, applicationId: "app-1", issuedAt: 1_767_225_600)
        #expect(check.refusal("Bearer " + token, now: at.addingTimeInterval(10)) == nil)
        #expect(check.refusal("Bearer " + token, now: at.addingTimeInterval(3_600)) == "the token has expired")
        #expect(check.refusal(nil, now: at) != nil)
        // One character of the claims changed: the signature no longer verifies.
        var parts = token.split(separator: ".").map(String.init)
        let claims = #"{"iss":"enablebanking.com","aud":"api.enablebanking.com","iat":1767225600,"exp":1767312000}"#
        parts[1] = EnableBankingJWT.base64URL(Data(claims.utf8))
        #expect(check.refusal("Bearer " + parts.joined(separator: "."), now: at) == "the signature does not verify")
        let other = try EnableBankingKey.generate()
        let foreign = try EnableBankingJWT.token(key: other, applicationId: "app-1", issuedAt: 1_767_225_600)
        #expect(check.refusal("Bearer " + foreign, now: at) == "the signature does not verify")
        let wrongApp = try EnableBankingJWT.token(key: key, applicationId: "app-2", issuedAt: 1_767_225_600)
        #expect(check.refusal("Bearer " + wrongApp, now: at) == "kid is not the application id")
    }

    /// The signer reuses its token until five minutes before its end, then makes another.
    @Test func theSignerReusesItsTokenUntilNearItsEnd() throws {
        let key = try EnableBankingKey(pem: try fixtureText("eb_test_key_pkcs1"))
        let clock = Locked(Date(timeIntervalSince1970: 1_767_225_600))
        let signer = EnableBankingSigner(key: key, applicationId: "app-1", now: { clock.withLock { $0 } })
        let first = try signer.authorization(token: nil)
        clock.withLock { $0 = $0.addingTimeInterval(3_600 - 301) }
        #expect(try signer.authorization(token: nil) == first)
        clock.withLock { $0 = $0.addingTimeInterval(2) }
        let second = try signer.authorization(token: nil)
        #expect(second != first && second.hasPrefix("Bearer ey"))
        #expect(!"\(signer)".contains(first.dropFirst(7).prefix(20)))
    }

    @Test func aKeyFileOthersMayReadIsRefused() throws {
        let folder = try TemporaryFolder()
        let pem = try fixtureText("eb_test_key_pkcs1")
        for mode in [0o644, 0o640, 0o604, 0o660, 0o606] {
            let path = try folder.file("key-\(mode).pem", pem, mode: mode)
            #expect(throws: EnableBankingKeyError(message: "the Enable Banking key file \(path) may be read by others: run chmod 600 \(path)")) {
                try EnableBankingKey.read(path: path)
            }
        }
        for mode in [0o600, 0o400] {
            let path = try folder.file("good-\(mode).pem", pem, mode: mode)
            #expect(try EnableBankingKey.read(path: path).description == "EnableBankingKey(RSA-2048, not shown)")
        }
    }

    @Test func aKeyWithAPassphraseOrNotRSAIsRefusedInOneLineWithoutItsContents() throws {
        let folder = try TemporaryFolder()
        for name in ["eb_test_key_encrypted_pkcs1", "eb_test_key_encrypted_pkcs8", "eb_test_key_ec", "eb_test_public_key"] {
            let text = try fixtureText(name)
            let path = try folder.file(name + ".pem", text, mode: 0o600)
            do {
                _ = try EnableBankingKey.read(path: path)
                Issue.record("\(name) was accepted")
            } catch {
                #expect(error.message.contains(path) && !error.message.contains("\n"))
                #expect(error.message.contains(name.contains("encrypted") ? "passphrase" : "not an RSA private key"), "\(error.message)")
                // Nothing of the file is quoted.
                let body = text.split(separator: "\n").dropFirst().first.map(String.init) ?? ""
                #expect(!error.message.contains(body.prefix(16)))
            }
        }
        #expect(throws: EnableBankingKeyError.self) { try EnableBankingKey.read(path: folder.url.appendingPathComponent("missing.pem").path) }
    }

    /// A key saved on Windows (CRLF) reads the same.
    @Test func aCRLFKeyReads() throws {
        let pem = try fixtureText("eb_test_key_pkcs8").replacingOccurrences(of: "\n", with: "\r\n")
        let key = try EnableBankingKey(pem: pem)
        struct Vector: Decodable { let kid: String; let iat: Int64; let token: String }
        let vector = try #require(try JSONDecoder().decode([Vector].self, from: try fixtureData("jwt_vectors")).first)
        #expect(try EnableBankingJWT.token(key: key, applicationId: vector.kid, issuedAt: vector.iat) == vector.token)
    }
}
