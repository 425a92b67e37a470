@testable import DemoServer
import DemoData
import Foundation
@testable import StarlingSource
import StarlingClient
import Testing
import TestSupport

/// The handler on the seam itself, without a socket.
@Suite struct StarlingDemoAPIHandlerTests {
    let api = StarlingDemoAPI(backend: DemoBackend(now: fixedNow, options: .init(currency: .gbp)))
    static let auth: ServeHeaders = ["authorization": "Bearer \(StarlingDemoAPI.testToken)"]

    @Test func theTokenIsRequired() async throws {
        let refused = await api.handle(ServeRequest(method: "GET", target: "/api/v2/accounts"))
        #expect(refused.status == 401)
        #expect(Starling.serverMessage(refused.body) == "invalid_token: No access token, or not the one this server printed at start")
        let wrong = await api.handle(ServeRequest(method: "GET", target: "/api/v2/accounts", headers: ["Authorization": "Bearer x"]))
        #expect(wrong.status == 401)
        let good = await api.handle(ServeRequest(method: "GET", target: "/api/v2/accounts", headers: Self.auth))
        #expect(good.status == 200 && good.headers["content-type"] == ServeResponse.jsonType)
    }

    @Test func unknownPathsMethodsAndAccounts() async {
        let cases: [(String, String, Int)] = [
            ("GET", "/api/v2/nope", 404),
            ("DELETE", "/api/v2/accounts", 405),
            ("GET", "/api/v2/accounts/someone-else/balance", 403),
            ("GET", "/api/v2/account/\(StarlingDemoAPI.accountUid)/savings-goals/not-a-goal/photo", 404),
            ("PUT", "/api/v2/account/\(StarlingDemoAPI.accountUid)/savings-goals/\(DemoIDs.goalUid(1))/add-money/not-a-uuid", 400),
        ]
        for (method, target, status) in cases {
            let answer = await api.handle(ServeRequest(method: method, target: target, headers: Self.auth, body: Data("{}".utf8)))
            #expect(answer.status == status, "\(method) \(target)")
            #expect(Starling.serverMessage(answer.body) != nil)
        }
    }
}
