import FeedModel
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Picture bytes over HTTP(S): the default `SavingsAPI.imageData(at:)`. No token goes out
/// (pictures may live on another host), bodies over `maxBytes` are refused, and a cancelled
/// task cancels the request.
public enum ImageFetch {
    public static let maxBytes = 10 * 1024 * 1024

    private static let session: URLSession = {
        let configuration = URLSessionConfiguration.ephemeral
        configuration.timeoutIntervalForRequest = 10
        configuration.timeoutIntervalForResource = 20
        configuration.httpMaximumConnectionsPerHost = 4
        return URLSession(configuration: configuration)
    }()

    public static func data(at url: URL) async throws -> Data {
        let label = "GET \(TextSanitizer.clean(url.absoluteString))"
        guard let scheme = url.scheme?.lowercased(), scheme == "http" || scheme == "https", !(url.host ?? "").isEmpty else {
            throw APIError(kind: .rejected, request: label, message: "\(label): only http and https pictures are fetched")
        }
        var request = URLRequest(url: url)
        request.setValue("image/png, image/jpeg", forHTTPHeaderField: "Accept")
        let (data, response) = try await session.data(for: request)
        if let http = response as? HTTPURLResponse {
            guard (200..<300).contains(http.statusCode) else {
                throw APIError(kind: .http(status: http.statusCode), request: label, message: "\(label): HTTP \(http.statusCode)")
            }
            // URLSession on Linux has no streaming bytes(for:): the size is checked on arrival.
            if http.expectedContentLength > Int64(maxBytes) || data.count > maxBytes {
                throw APIError(kind: .rejected, request: label, message: "\(label): larger than \(maxBytes / 1_048_576) MB")
            }
        }
        return data
    }
}
