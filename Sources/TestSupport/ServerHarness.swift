import QapitalClient
import DemoServer
import DemoData
import FeedModel
import Foundation
import UpSource
import StarlingSource
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// A fixed "now" on a whole second, so every timestamp survives the API's text forms exactly.
public let fixedNow = Date(timeIntervalSince1970: 1_795_000_000)

/// Runs `body` against a demo server on 127.0.0.1 and a free port, and always stops it.
public func withDemoServer(backend: DemoBackend = DemoBackend(now: fixedNow),
                    options: DemoHTTPServer.Options = .init(),
                    clientTimeout: TimeInterval = serverAnswerTimeout,
                    _ body: (DemoHTTPServer, QapitalHTTPAPI) async throws -> Void) async throws {
    let server = try DemoHTTPServer(backend: backend, options: options)
    try await withStarted(server, clientTimeout: clientTimeout, body)
}

/// Runs `body` against any handler served on 127.0.0.1 and a free port.
public func withServer(handler: some ServeHandler, options: DemoHTTPServer.Options = .init(),
                _ body: (DemoHTTPServer, QapitalHTTPAPI) async throws -> Void) async throws {
    let server = try DemoHTTPServer(handler: handler, options: options)
    try await withStarted(server, clientTimeout: serverAnswerTimeout, body)
}

private func withStarted(_ server: DemoHTTPServer, clientTimeout: TimeInterval,
                         _ body: (DemoHTTPServer, QapitalHTTPAPI) async throws -> Void) async throws {
    try await server.start()
    let api = QapitalHTTPAPI(baseURL: await server.baseURL, timeout: clientTimeout)
    do {
        try await body(server, api)
    } catch {
        await server.stop()
        throw error
    }
    await server.stop()
}

/// One fixed answer, whatever was asked: for serving broken responses.
public struct CannedHandler: ServeHandler {
    public var status = 200
    public var contentType = "text/html"
    public var body: String

    public init(status: Int = 200, contentType: String = "text/html", body: String) {
        self.status = status
        self.contentType = contentType
        self.body = body
    }

    public func handle(_ request: ServeRequest) async -> ServeResponse {
        .data(Data(body.utf8), contentType: contentType, status: status)
    }
}

/// A raw request, for what the typed client never sends (a bare `+`, unknown paths).
public func rawRequest(_ method: String, _ url: String, body: String? = nil) async throws -> (status: Int, json: [String: Any]?, contentType: String?) {
    var request = URLRequest(url: URL(string: url)!, timeoutInterval: 10)
    request.httpMethod = method
    if let body { request.httpBody = Data(body.utf8) }
    let (data, response) = try await URLSession.shared.data(for: request)
    let http = response as? HTTPURLResponse
    let json = try? JSONSerialization.jsonObject(with: data) as? [String: Any]
    return (http?.statusCode ?? 0, json, http?.value(forHTTPHeaderField: "Content-Type"))
}

/// Fixed answers by path (the first prefix that matches), 404 for anything else.
public struct RoutedHandler: ServeHandler {
    public var routes: [(prefix: String, body: String)]

    public init(routes: [(prefix: String, body: String)]) {
        self.routes = routes
    }

    public func handle(_ request: ServeRequest) async -> ServeResponse {
        guard let route = routes.first(where: { request.path.hasPrefix($0.prefix) }) else {
            return .data(Data(#"{"error":"no"}"#.utf8), contentType: "application/json", status: 404)
        }
        return .data(Data(route.body.utf8), contentType: "application/json")
    }
}

/// Runs `body` against `serve --api starling` on 127.0.0.1 and a free port, and always stops it.
public func withStarlingServer(backend: DemoBackend = DemoBackend(now: fixedNow, options: .init(currency: .gbp)),
                        handler: (any ServeHandler)? = nil,
                        _ body: (DemoHTTPServer, URL) async throws -> Void) async throws {
    let server = if let handler {
        try DemoHTTPServer(handler: handler)
    } else {
        try DemoHTTPServer(handler: StarlingDemoAPI(backend: backend))
    }
    try await server.start()
    do {
        try await body(server, await server.baseURL)
    } catch {
        await server.stop()
        throw error
    }
    await server.stop()
}

/// Runs `body` against `serve --api up` (or another handler) on 127.0.0.1 and a free port, with
/// the base URL under `/api/v1`, and always stops it.
public func withUpServer(handler: any ServeHandler = UpDemoAPI(backend: DemoBackend(now: fixedNow, options: .init(currency: Currency(code: "AUD")))),
                         _ body: (DemoHTTPServer, URL) async throws -> Void) async throws {
    let server = try DemoHTTPServer(handler: handler)
    try await server.start()
    let base = URL(string: await server.baseURL.absoluteString + UpDemoAPI.basePath)!
    do {
        try await body(server, base)
    } catch {
        await server.stop()
        throw error
    }
    await server.stop()
}

/// One `/activities` window: as asked for, or as the server saw it (decoded from the raw query).
public struct SeenWindow: Equatable, Sendable {
    public let from: Date
    public let to: Date

    public init(from: Date, to: Date) {
        self.from = from
        self.to = to
    }
}

/// Walks `/activities` two weeks at a time from `start` back past `oldest`, as the app does:
/// the windows asked for, every activity read, and `oldest` once reached (nil if never).
public func walkActivities(_ api: QapitalHTTPAPI, from start: Date) async throws -> (windows: [SeenWindow], activities: [Activity], oldest: Date?) {
    var windows: [SeenWindow] = []
    var activities: [Activity] = []
    var to = start
    for _ in 0..<200 {  // 548 days of history is 40 windows; the bound only guards the loop
        let from = to.addingTimeInterval(-14 * 86_400)
        let page = try await api.activities(from: from, to: to)
        windows.append(SeenWindow(from: from, to: to))
        activities += page.activities
        if from <= page.oldest { return (windows, activities, page.oldest) }
        to = from
    }
    return (windows, activities, nil)
}
