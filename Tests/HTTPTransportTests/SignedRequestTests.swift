@testable import HTTPTransport
import FeedModel
import Foundation
import Testing

/// The request-signing seam (`AuthScheme.signed`, issue 48): a source's signer makes each
/// request's `Authorization`, bound to the origin and to the plain-http rule as a token is.
@Suite(.serialized, .timeLimit(.minutes(1))) struct SignedRequestTests {
    /// Counts its signatures; "JWT n" for the n-th.
    final class CountingSigner: RequestSigner {
        let made = Locked(0)
        let fails: Bool
        init(fails: Bool = false) { self.fails = fails }

        struct CannotSign: Error, CustomStringConvertible { var description: String { "the key file cannot be read" } }

        func authorization(token: String?) throws -> String {
            if fails { throw CannotSign() }
            let n = made.withLock { made in
                made += 1
                return made
            }
            return "Bearer JWT \(n)" + (token.map { " for \($0)" } ?? "")
        }
    }

    @Test func eachRequestCarriesTheSignersAuthorization() async throws {
        let server = try HostileServer { _ in .json("{}") }
        defer { server.stop() }
        let signer = CountingSigner()
        let transport = HTTPTransport(baseURL: server.baseURL, token: nil, scheme: .signed(signer))
        _ = try await transport.answer("GET", "/application", label: "GET /application")
        _ = try await transport.answer("GET", "/aspsps", label: "GET /aspsps")
        #expect(server.received.map { $0.header("Authorization") } == ["Bearer JWT 1", "Bearer JWT 2"])
    }

    @Test func aSignedRequestGoesOverPlainHTTPOnlyToThisMachine() async {
        let signer = CountingSigner()
        // Nothing listens at bank.example: the refusal comes before any connection, and before signing.
        let transport = HTTPTransport(baseURL: URL(string: "http://bank.example:8080")!, token: nil, scheme: .signed(signer))
        await #expect {
            _ = try await transport.answer("GET", "/application", label: "GET /application")
        } throws: { error in
            (error as? APIError)?.message.hasPrefix("GET /application: not sent: a token goes over plain http only to this machine") == true
        }
        #expect(signer.made.withLock { $0 } == 0)
    }

    @Test func aSecretHeaderASourceAddsIsHeldToTheSameRule() async {
        let transport = HTTPTransport(baseURL: URL(string: "http://bank.example:8080")!, token: nil)
        await #expect {
            _ = try await transport.answer("GET", "/user", label: "GET /user", headers: ["X-Bunq-Client-Authentication": "session-secret"])
        } throws: { error in
            guard let error = error as? APIError else { return false }
            return error.message.contains("not sent") && !error.message.contains("session-secret")
        }
    }

    @Test func aSignerThatCannotSignSendsNothing() async throws {
        let server = try HostileServer { _ in .json("{}") }
        defer { server.stop() }
        let transport = HTTPTransport(baseURL: server.baseURL, token: nil, scheme: .signed(CountingSigner(fails: true)))
        await #expect {
            _ = try await transport.answer("GET", "/application", label: "GET /application")
        } throws: { error in
            (error as? APIError)?.message == "GET /application: not sent: the key file cannot be read"
        }
        #expect(server.received.isEmpty)
    }
}
