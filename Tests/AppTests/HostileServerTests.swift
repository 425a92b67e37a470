@testable import QapitalClient
import FeedModel
import Foundation
import HTTPTransport
import Testing

/// The HTTP client against servers that misbehave on purpose (loopback, raw sockets).
@Suite(.serialized, .timeLimit(.minutes(1))) struct HostileServerTests {
    static func apiError(_ work: () async throws -> Void) async -> APIError? {
        do {
            try await work()
            return nil
        } catch let error as APIError {
            return error
        } catch {
            Issue.record("not an APIError: \(error)")
            return nil
        }
    }

    // MARK: - The token stays with its origin

    @Test func aRedirectToAnotherOriginIsRefusedAndTheTokenStaysHome() async throws {
        let elsewhere = try HostileServer { _ in .json(#"{"savingsGoals":[]}"#) }
        defer { elsewhere.stop() }
        let server = try HostileServer { path in .redirect(location: elsewhere.baseURL.absoluteString + path) }
        defer { server.stop() }
        let api = QapitalHTTPAPI(baseURL: server.baseURL, token: "secret-token-123")
        let error = await Self.apiError { _ = try await api.goals() }
        #expect(error?.kind == .rejected)
        #expect(error?.message == "GET /savingsgoals: redirected to another origin (http://127.0.0.1:\(elsewhere.port)); not followed")
        #expect(error?.message.contains("secret-token-123") == false)
        // The first server got the token; the other got nothing at all.
        #expect(server.received.first?.header("Authorization") == "Bearer secret-token-123")
        #expect(elsewhere.received.isEmpty)
    }

    @Test func aRedirectWithinTheOriginIsFollowedWithTheToken() async throws {
        let server = try HostileServer { path in
            path.hasPrefix("/v2/") ? .json(#"{"savingsGoals":[{"id":1,"name":"Bike","currentBalance":5}]}"#)
                                   : .redirect(location: "/v2" + path)
        }
        defer { server.stop() }
        let api = QapitalHTTPAPI(baseURL: server.baseURL, token: "secret-token-123")
        #expect(try await api.goals().map(\.name) == ["Bike"])
        #expect(server.received.map { $0.header("Authorization") } == ["Bearer secret-token-123", "Bearer secret-token-123"])
    }

    @Test func picturesMayMoveToAnotherHostButGoWithoutAToken() async throws {
        let elsewhere = try HostileServer { _ in .json("x") }
        defer { elsewhere.stop() }
        let server = try HostileServer { _ in .redirect(location: elsewhere.baseURL.absoluteString + "/a.png") }
        defer { server.stop() }
        #expect(try await ImageFetch.data(at: server.baseURL.appendingPathComponent("a.png")) == Data("x".utf8))
        #expect(elsewhere.received.count == 1)
        #expect(elsewhere.received[0].header("Authorization") == nil)
    }
}
