import Foundation
import Testing
@testable import HTTPTransport

/// Issue 37.5: which requests go straight to their server whatever proxy the environment names.
@Suite struct ProxyRuleTests {
    @Test func loopbackAndPlainTokensGoDirectHTTPSMayTunnel() {
        let token = ["Authorization": "Bearer t"]
        for host in ["127.0.0.1", "127.5.6.7", "localhost", "LOCALHOST", "[::1]"] {
            for scheme in ["http", "https"] {
                for headers in [token, [:]] {
                    let url = URL(string: "\(scheme)://\(host):8080/savingsgoals")!
                    #expect(HTTPFetcher.bypassesProxy(url: url, headers: headers), "\(url)")
                }
            }
        }
        // Plain http elsewhere: a token never goes to a proxy; a request without one (a picture) may.
        #expect(HTTPFetcher.bypassesProxy(url: URL(string: "http://bank.example/a")!, headers: token))
        #expect(HTTPFetcher.bypassesProxy(url: URL(string: "http://bank.example/a")!, headers: ["authorization": "Bearer t"]))
        #expect(!HTTPFetcher.bypassesProxy(url: URL(string: "http://images.example/a.png")!, headers: [:]))
        // https elsewhere: through the proxy as a tunnel, token or not.
        #expect(!HTTPFetcher.bypassesProxy(url: URL(string: "https://bank.example/a")!, headers: token))
        #expect(!HTTPFetcher.bypassesProxy(url: URL(string: "HTTPS://bank.example/a")!, headers: [:]))
        // Not loopback, though it looks near: 127 as a name, a 127.x with a bad part, 0.0.0.0.
        for host in ["127.example", "127.0.0.256", "0.0.0.0", "10.0.0.1"] {
            #expect(!HTTPFetcher.bypassesProxy(url: URL(string: "https://\(host)/a")!, headers: token), "\(host)")
        }
    }
}
