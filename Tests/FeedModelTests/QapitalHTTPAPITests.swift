@testable import QapitalClient
import HTTPTransport
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

    @Test func sourceNameIsHostAndPort() {
        #expect(QapitalHTTPAPI(baseURL: URL(string: "http://127.0.0.1:8080")!).sourceName == "127.0.0.1:8080")
        #expect(QapitalHTTPAPI(baseURL: URL(string: "https://api.example.com")!).sourceName == "api.example.com")
    }
}
