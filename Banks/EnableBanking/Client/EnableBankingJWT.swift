import _CryptoExtras
import FeedModel
import Foundation
import HTTPTransport

/// The JWT every Enable Banking request carries (`Authorization: Bearer`): header
/// `{"typ":"JWT","alg":"RS256","kid":APPLICATION_ID}`, claims `iss` "enablebanking.com", `aud`
/// "api.enablebanking.com", `iat` now and `exp` an hour later; base64url without padding, signed
/// RSA-SHA256 PKCS #1 v1.5. Made in memory only, never written anywhere.
public enum EnableBankingJWT {
    public static let issuer = "enablebanking.com"
    public static let audience = "api.enablebanking.com"
    /// A token's life (the API refuses more than 24 h).
    public static let lifetime: Int64 = 3_600
    /// A token is made anew this long before its end.
    public static let renewBefore: Int64 = 300

    /// The token for `applicationId` issued at `issuedAt` (Unix seconds). The JSON is written
    /// byte for byte as here, so the same key, id and time always give the same token.
    public static func token(key: EnableBankingKey, applicationId: String, issuedAt: Int64) throws(EnableBankingKeyError) -> String {
        let header = #"{"typ":"JWT","alg":"RS256","kid":"# + jsonString(applicationId) + "}"
        let claims = #"{"iss":"\#(issuer)","aud":"\#(audience)","iat":\#(issuedAt),"exp":\#(issuedAt + lifetime)}"#
        let input = base64URL(Data(header.utf8)) + "." + base64URL(Data(claims.utf8))
        return input + "." + base64URL(try key.sign(Data(input.utf8)))
    }

    /// A JSON string literal (the id is a UUID, but nothing the user typed goes out unescaped).
    static func jsonString(_ text: String) -> String {
        var out = "\""
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\"": out += "\\\""
            case "\\": out += "\\\\"
            case _ where scalar.value < 0x20: out += String(format: "\\u%04x", scalar.value)
            default: out.unicodeScalars.append(scalar)
            }
        }
        return out + "\""
    }

    public static func base64URL(_ data: Data) -> String {
        data.base64EncodedString().replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_")
            .replacingOccurrences(of: "=", with: "")
    }

    public static func fromBase64URL(_ text: Substring) -> Data? {
        let alphabet = { (byte: UInt8) in
            (UInt8(ascii: "A")...UInt8(ascii: "Z")).contains(byte) || (UInt8(ascii: "a")...UInt8(ascii: "z")).contains(byte)
                || (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte) || byte == UInt8(ascii: "-") || byte == UInt8(ascii: "_")
        }
        guard text.utf8.count <= 16_384, text.utf8.allSatisfy(alphabet) else { return nil }
        var base64 = text.replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
        while base64.count % 4 != 0 { base64 += "=" }
        return Data(base64Encoded: base64)
    }
}

/// Signs each request with a JWT, made when none is held or the one held ends within five
/// minutes (`AuthScheme.signed`: the transport sends it to its origin only, never over plain
/// http to another machine). `description` never shows the token or the key.
public final class EnableBankingSigner: RequestSigner, CustomStringConvertible {
    private let key: EnableBankingKey
    public let applicationId: String
    private let now: @Sendable () -> Date
    private let held = Locked<(token: String, expires: Int64)?>(nil)

    public init(key: EnableBankingKey, applicationId: String, now: @escaping @Sendable () -> Date = { Date() }) {
        self.key = key
        self.applicationId = applicationId
        self.now = now
    }

    /// The `Authorization` value (the transport's token, if any, is not used: the JWT is the credential).
    public func authorization(token: String?) throws -> String {
        "Bearer " + (try currentToken())
    }

    /// The token held, or a new one when it ends within `renewBefore`.
    func currentToken() throws(EnableBankingKeyError) -> String {
        let seconds = Int64(now().timeIntervalSince1970.rounded(.down))
        if let held = held.withLock({ $0 }), held.expires - EnableBankingJWT.renewBefore > seconds { return held.token }
        let token = try EnableBankingJWT.token(key: key, applicationId: applicationId, issuedAt: seconds)
        held.withLock { $0 = (token, seconds + EnableBankingJWT.lifetime) }
        return token
    }

    public var description: String { "EnableBankingSigner(application \(applicationId), token not shown)" }
}

/// The look-alike's side: a token checked against the application's public key, as the API
/// checks it (alg, kid, signature, `iss`, `aud`, `iat`, `exp` at most 24 h after `iat`).
public struct EnableBankingTokenCheck: Sendable {
    private let publicKey: _RSA.Signing.PublicKey
    public let applicationId: String

    public init(publicKeyPEM: String, applicationId: String) throws(EnableBankingKeyError) {
        do {
            publicKey = try _RSA.Signing.PublicKey(pemRepresentation: publicKeyPEM)
        } catch {
            throw EnableBankingKeyError(message: "the public key is not an RSA public key in PEM")
        }
        self.applicationId = applicationId
    }

    /// Why `authorization` (the whole header value) is refused, or nil when it is good at `now`.
    public func refusal(_ authorization: String?, now: Date) -> String? {
        guard let authorization, authorization.hasPrefix("Bearer ") else { return "no bearer token" }
        let parts = authorization.dropFirst("Bearer ".count).split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count == 3, let headerData = EnableBankingJWT.fromBase64URL(parts[0]),
              let claimsData = EnableBankingJWT.fromBase64URL(parts[1]),
              let signature = EnableBankingJWT.fromBase64URL(parts[2]) else { return "not a JWT" }
        struct Header: Decodable { let alg: String?; let kid: String? }
        struct Claims: Decodable { let iss: String?; let aud: String?; let iat: Int64?; let exp: Int64? }
        guard let header = try? JSONDecoder().decode(Header.self, from: headerData),
              let claims = try? JSONDecoder().decode(Claims.self, from: claimsData) else { return "not a JWT" }
        guard header.alg == "RS256" else { return "alg is not RS256" }
        guard header.kid == applicationId else { return "kid is not the application id" }
        let input = Data((parts[0] + "." + parts[1]).utf8)
        guard publicKey.isValidSignature(_RSA.Signing.RSASignature(rawRepresentation: signature), for: input,
                                         padding: .insecurePKCS1v1_5) else { return "the signature does not verify" }
        guard claims.iss == EnableBankingJWT.issuer else { return "iss is not \(EnableBankingJWT.issuer)" }
        guard claims.aud == EnableBankingJWT.audience else { return "aud is not \(EnableBankingJWT.audience)" }
        guard let iat = claims.iat, let exp = claims.exp else { return "iat or exp missing" }
        let seconds = Int64(now.timeIntervalSince1970.rounded(.down))
        guard exp > iat, exp - iat <= 86_400 else { return "exp is more than 24 h after iat" }
        // A minute's leeway for clocks that differ a little.
        guard iat <= seconds + 60 else { return "iat is in the future" }
        guard seconds < exp else { return "the token has expired" }
        return nil
    }
}
