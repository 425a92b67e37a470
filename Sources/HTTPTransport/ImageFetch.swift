import FeedModel
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Picture bytes over HTTP(S): the default `SavingsAPI.imageData(at:)`. No token goes out
/// (pictures may live on another host), bodies over `maxBytes` are refused while they arrive,
/// a request ends after `deadline` in all, and a cancelled task cancels the request.
public enum ImageFetch {
    public static let maxBytes = 10 * 1024 * 1024

    /// Pictures may live on other hosts: no token goes out, redirects go anywhere but from https to http.
    private static let fetcher = HTTPFetcher(idleTimeout: 10, maxConnectionsPerHost: 4)

    /// `log`: `--log-file`, which gets a line for the picture as for every request.
    public static func data(at url: URL, deadline: TimeInterval = 20, log: RequestLog? = nil) async throws -> Data {
        try await data(at: url, deadline: deadline, fetcher: fetcher, log: log)
    }

    /// Through `fetcher` (the tests give one of their own, to count what it read).
    static func data(at url: URL, deadline: TimeInterval, fetcher: HTTPFetcher, log: RequestLog? = nil) async throws -> Data {
        let started = ContinuousClock.now
        do {
            let data = try await fetch(url, deadline: deadline, fetcher: fetcher)
            logged(url, log, status: 200, started: started)
            return data
        } catch {
            if case .http(let status) = error.kind { logged(url, log, status: status, started: started) }
            else { logged(url, log, status: nil, started: started, failure: error.message) }
            throw error
        }
    }

    /// The picture's line in the log: its origin and path, its query's names (never their values).
    private static func logged(_ url: URL, _ log: RequestLog?, status: Int?, started: ContinuousClock.Instant, failure: String? = nil) {
        guard let log else { return }
        let origin = (url.scheme ?? "") + "://" + (url.host ?? "") + (url.port.map { ":\($0)" } ?? "")
        let query = URLComponents(url: url, resolvingAgainstBaseURL: false)?.queryItems ?? []
        log.request("GET", origin + url.path, query: query, status: status,
                    milliseconds: Int((ContinuousClock.now - started) / .milliseconds(1)), failure: failure)
    }

    private static func fetch(_ url: URL, deadline: TimeInterval, fetcher: HTTPFetcher) async throws(APIError) -> Data {
        let label = "GET \(TextSanitizer.clean(url.absoluteString))"
        guard let scheme = url.scheme?.lowercased(), scheme == "http" || scheme == "https", !(url.host ?? "").isEmpty else {
            throw APIError(kind: .rejected, request: label, message: "\(label): only http and https pictures are fetched")
        }
        var request = URLRequest(url: url, timeoutInterval: 10)
        request.setValue("image/png, image/jpeg", forHTTPHeaderField: "Accept")
        let data: Data
        let response: HTTPURLResponse
        do {
            (data, response) = try await fetcher.fetch(request, limits: .init(maxBytes: maxBytes, deadline: deadline, redirects: .noDowngrade))
        } catch {
            switch error {
            case .tooLarge:
                throw APIError(kind: .rejected, request: label, message: "\(label): larger than \(maxBytes / 1_048_576) MB")
            case .deadline(let seconds):
                throw APIError(kind: .timedOut, request: label, message: "\(label): not complete within \(Int(seconds)) s")
            case .redirectRefused:
                throw APIError(kind: .rejected, request: label, message: "\(label): redirected from https to http; not followed")
            case .cancelled:
                throw APIError(kind: .cancelled, request: label, message: "\(label): cancelled")
            case .transport(let underlying):
                throw APIError(kind: .transport, request: label, message: "\(label): \(underlying.localizedDescription)")
            case .mayHaveArrived:
                // Pictures are fetched with GET, which is never reported so.
                throw APIError(kind: .transport, request: label, message: "\(label): no whole answer")
            }
        }
        guard (200..<300).contains(response.statusCode) else {
            throw APIError(kind: .http(status: response.statusCode), request: label, message: "\(label): HTTP \(response.statusCode)")
        }
        return data
    }
}
