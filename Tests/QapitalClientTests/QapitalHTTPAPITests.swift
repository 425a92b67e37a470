@testable import QapitalClient
@testable import HTTPTransport
import Foundation
import Testing
@testable import FeedModel

@Suite struct QapitalHTTPAPITests {
    @Test func queryValuesArePercentEncodedStrictly() throws {
        let api = QapitalHTTPAPI(baseURL: URL(string: "http://127.0.0.1:8080/api/")!)
        let url = api.url(for: "/activities", query: [
            URLQueryItem(name: "from", value: "2016-10-04T00:00:00+00:00"),
            URLQueryItem(name: "to", value: "2016-10-18T00:00:00+00:00"),
        ])
        #expect(url.absoluteString == "http://127.0.0.1:8080/api/activities?from=2016-10-04T00%3A00%3A00%2B00%3A00&to=2016-10-18T00%3A00%3A00%2B00%3A00")
    }

    @Test(arguments: [
        ("http://127.0.0.1:8080", nil),
        ("https://api.example.com/v1", nil),
        ("ftp://example.com", "unsupported URL scheme \"ftp\" in ftp://example.com (use http or https)"),
        ("localhost:8080", "unsupported URL scheme \"localhost\" in localhost:8080 (use http or https)"),
        ("http://", "no host in URL http://"),
        ("not a url", "not a URL: not a url"),
        ("http://\u{1b}[2J", "not a URL: http://"),
        ("http://127.0.0.1:8080/api?x=1", "a base URL takes no query or fragment: http://127.0.0.1:8080/api?x=1"),
        ("http://127.0.0.1:8080/#top", "a base URL takes no query or fragment: http://127.0.0.1:8080/#top"),
    ])
    func baseURLValidation(text: String, problem: String?) {
        do {
            _ = try HTTPTransport.validate(baseURL: text)
            #expect(problem == nil)
        } catch {
            #expect(error.message == problem)
        }
    }

    @Test(arguments: [("127.0.0.1", true), ("127.1.2.3", true), ("localhost", true), ("LOCALHOST", true), ("::1", true),
                      ("[::1]", true), ("128.0.0.1", false), ("127.0.0.1.example", false), ("bank.example", false),
                      ("10.0.0.1", false), ("", false)])
    func loopbackHosts(host: String, loopback: Bool) {
        #expect(HTTPTransport.isLoopback(host) == loopback)
    }

    @Test func aTokenIsNotSentOverPlainHTTPToAnotherMachine() async {
        // Nothing listens at bank.example: the refusal comes before any connection.
        let api = QapitalHTTPAPI(baseURL: URL(string: "http://bank.example:8080")!, token: "secret-token")
        do {
            _ = try await api.goals()
            Issue.record("sent")
        } catch let error as APIError {
            #expect(error.kind == .rejected)
            #expect(error.message.hasPrefix("GET /savingsgoals: not sent: a token goes over plain http only to this machine"))
            #expect(!error.message.contains("secret-token"))
        } catch {
            Issue.record("\(error)")
        }
        // Without a token nothing is secret: such a request is allowed (and fails to connect here).
        #expect(throws: Never.self) {
            try HTTPTransport.checkTokenTransport(baseURL: URL(string: "https://bank.example")!, allowInsecureHTTP: false)
            try HTTPTransport.checkTokenTransport(baseURL: URL(string: "http://bank.example")!, allowInsecureHTTP: true)
        }
    }

    @Test func redirectsKeepTheTokensOriginAndNeverDowngrade() {
        func origin(_ text: String) -> HTTPFetcher.Origin { HTTPFetcher.Origin(URL(string: text)) }
        let api = origin("https://bank.example")
        #expect(HTTPFetcher.allows(redirect: .sameOrigin, from: api, to: origin("https://bank.example:443/v2/goals")))
        #expect(HTTPFetcher.allows(redirect: .sameOrigin, from: api, to: origin("https://BANK.example/x")))
        #expect(!HTTPFetcher.allows(redirect: .sameOrigin, from: api, to: origin("http://bank.example/x")))
        #expect(!HTTPFetcher.allows(redirect: .sameOrigin, from: api, to: origin("https://bank.example:8443/x")))
        #expect(!HTTPFetcher.allows(redirect: .sameOrigin, from: api, to: origin("https://evil.example/x")))
        // Pictures go without a token: anywhere, but never from https down to http.
        #expect(HTTPFetcher.allows(redirect: .noDowngrade, from: api, to: origin("https://cdn.example/a.png")))
        #expect(HTTPFetcher.allows(redirect: .noDowngrade, from: origin("http://a.example"), to: origin("https://cdn.example/a.png")))
        #expect(!HTTPFetcher.allows(redirect: .noDowngrade, from: api, to: origin("http://cdn.example/a.png")))
    }

    @Test func sourceNameIsHostAndPort() {
        #expect(QapitalHTTPAPI(baseURL: URL(string: "http://127.0.0.1:8080")!).sourceName == "127.0.0.1:8080")
        #expect(QapitalHTTPAPI(baseURL: URL(string: "https://api.example.com")!).sourceName == "api.example.com")
    }
}
