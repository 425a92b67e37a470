import Foundation

extension HTTPFetcher {
    /// Whether a request goes straight to its server even when the environment names a proxy
    /// (libcurl reads `http_proxy`, `https_proxy`, `all_proxy` and their upper-case kin on its own):
    ///
    /// - a request to this machine (127.0.0.0/8, ::1, localhost) never goes through a proxy: the
    ///   proxy would read a token that was meant to stay on the machine;
    /// - a request over plain http that carries a token (`Authorization`) never goes through a
    ///   proxy either: the proxy would read it in the clear (that host was allowed plain http by
    ///   `--allow-insecure-http`, for itself, not for whoever sits in between);
    /// - https goes through a proxy as a tunnel (CONNECT): the proxy sees the host, never the token.
    static func bypassesProxy(url: URL, headers: [String: String]) -> Bool {
        if HTTPTransport.isLoopback(url.host ?? "") { return true }
        let carriesToken = headers.keys.contains { $0.lowercased() == "authorization" }
        return url.scheme?.lowercased() != "https" && carriesToken
    }
}
