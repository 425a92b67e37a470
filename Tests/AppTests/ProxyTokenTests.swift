import Foundation
import Testing
import TestSupport

extension BlockingTests {
    /// Issue 37.5: a bearer token never reaches a proxy in the clear. libcurl takes proxies from
    /// the environment (`http_proxy` in lower case is enough); loopback never goes through one,
    /// a token never goes over plain http to a proxy, and https goes through one as a tunnel
    /// (CONNECT), where the proxy sees the host and never the token.
    @Suite(.serialized, .timeLimit(.minutes(1))) struct ProxyTokenTests {
        static let token = "proxy-secret-7d1c"

        static func environment(proxy: RecordingProxy) -> [String: String] {
            let home = FileManager.default.temporaryDirectory.appendingPathComponent("proxy-home-\(UUID().uuidString)").path
            var environment = ["PATH": "/usr/bin:/bin", "HOME": home, "XDG_CACHE_HOME": home + "/cache",
                               "XDG_CONFIG_HOME": home + "/config", "TZ": "Europe/London"]
            for name in ["http_proxy", "HTTP_PROXY", "https_proxy", "HTTPS_PROXY", "all_proxy", "ALL_PROXY"] {
                environment[name] = proxy.url
            }
            return environment
        }

        @Test func loopbackNeverGoesThroughAProxy() throws {
            let proxy = try RecordingProxy()
            defer { proxy.stop() }
            let serve = try ServeProcess()
            defer { _ = serve.stop() }
            let result = try runProcess(TerminalSession.binary,
                                        ["goals", "--api-url", "http://127.0.0.1:\(serve.port)", "--token", Self.token, "--no-cache"],
                                        environment: Self.environment(proxy: proxy))
            #expect(result.status == 0, "\(result.stderr)")
            #expect(result.stdout.contains("Balloons"))
            #expect(proxy.heads.isEmpty, "the proxy received: \(proxy.heads)")
            // localhost by name too.
            let named = try runProcess(TerminalSession.binary,
                                       ["goals", "--api-url", "http://localhost:\(serve.port)", "--token", Self.token, "--no-cache"],
                                       environment: Self.environment(proxy: proxy))
            #expect(proxy.heads.isEmpty, "the proxy received: \(proxy.heads) (\(named.stderr))")
        }

        @Test func aTokenNeverGoesToAProxyOverPlainHTTP() throws {
            let proxy = try RecordingProxy()
            defer { proxy.stop() }
            // A host that does not resolve: the request fails, but never by way of the proxy.
            let result = try runProcess(TerminalSession.binary,
                                        ["goals", "--api-url", "http://qapital.invalid", "--token", Self.token, "--allow-insecure-http",
                                         "--no-cache"],
                                        environment: Self.environment(proxy: proxy))
            #expect(result.status != 0)
            #expect(!proxy.heads.contains { $0.contains(Self.token) }, "the proxy received: \(proxy.heads)")
            #expect(proxy.heads.isEmpty, "the proxy received: \(proxy.heads)")
        }

        @Test func httpsGoesThroughAProxyAsATunnel() throws {
            let proxy = try RecordingProxy()
            defer { proxy.stop() }
            let result = try runProcess(TerminalSession.binary,
                                        ["goals", "--api-url", "https://qapital.invalid", "--token", Self.token, "--no-cache"],
                                        environment: Self.environment(proxy: proxy))
            #expect(result.status != 0)
            // The proxy answered the CONNECT with 502: it saw the host, never the token.
            #expect(proxy.heads.first?.hasPrefix("CONNECT qapital.invalid:443 ") == true, "the proxy received: \(proxy.heads)")
            #expect(!proxy.heads.contains { $0.contains(Self.token) })
            #expect(!result.stderr.contains(Self.token))
        }
    }
}
