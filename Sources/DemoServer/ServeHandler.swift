import Foundation

// The seam between `serve`'s handlers and its HTTP stack.
//
// A handler sees one whole request (`ServeRequest`) and returns one whole answer
// (`ServeResponse`); it knows nothing of sockets, parsing, limits, keep-alive or the stack
// underneath. `DemoHTTPServer` owns all of that, plus what every request goes through whatever
// the handler: `--latency-ms`, `--fail-every`, the request log line and the bounded request
// ledger. So a new API shape (the demo's `DemoAPIHandler`, a Starling-shaped handler, a test's
// canned answer) is one type:
//
//     struct Hello: ServeHandler {
//         func handle(_ request: ServeRequest) async -> ServeResponse {
//             guard request.method == "GET" else { return .error(405, "GET only") }
//             return .json(["hello": request.headers["user-agent"] ?? "?"])
//         }
//     }
//     let server = try DemoHTTPServer(handler: Hello(), port: 0)
//
// Kept small and stable on purpose: add to it only what a handler cannot do without.

/// Header fields in the order received; names are matched without regard to case.
public struct ServeHeaders: Sendable, Sequence, ExpressibleByDictionaryLiteral {
    public typealias Field = (name: String, value: String)

    public private(set) var fields: [Field]

    public init(_ fields: [Field] = []) {
        self.fields = fields
    }

    public init(dictionaryLiteral elements: (String, String)...) {
        fields = elements.map { (name: $0.0, value: $0.1) }
    }

    /// The first value of `name` (any case), or nil.
    public subscript(name: String) -> String? {
        fields.first { $0.name.caseInsensitiveEquals(name) }?.value
    }

    /// Every value of `name` (any case), in order.
    public func values(_ name: String) -> [String] {
        fields.filter { $0.name.caseInsensitiveEquals(name) }.map(\.value)
    }

    public mutating func add(_ name: String, _ value: String) {
        fields.append((name: name, value: value))
    }

    /// Removes every field named `name` (any case), then adds `name: value`.
    public mutating func set(_ name: String, _ value: String) {
        fields.removeAll { $0.name.caseInsensitiveEquals(name) }
        fields.append((name: name, value: value))
    }

    public func makeIterator() -> IndexingIterator<[Field]> {
        fields.makeIterator()
    }
}

/// One whole request, as received. Nothing is percent-decoded.
public struct ServeRequest: Sendable {
    /// As sent, e.g. `GET`, `POST`.
    public var method: String
    /// The target's path, still percent-encoded, e.g. `/savingsgoals/1/feed`.
    public var path: String
    /// What followed the first `?` of the target, still percent-encoded; empty when none.
    public var rawQuery: String
    public var headers: ServeHeaders
    /// The whole body (the server refuses bodies over its limit with 413 before a handler runs).
    public var body: Data

    public init(method: String, path: String, rawQuery: String = "", headers: ServeHeaders = [:], body: Data = Data()) {
        self.method = method
        self.path = path
        self.rawQuery = rawQuery
        self.headers = headers
        self.body = body
    }

    /// Splits `target` (path and query, as on the request line) at its first `?`.
    public init(method: String, target: String, headers: ServeHeaders = [:], body: Data = Data()) {
        if let mark = target.firstIndex(of: "?") {
            self.init(method: method, path: String(target[..<mark]), rawQuery: String(target[target.index(after: mark)...]),
                      headers: headers, body: body)
        } else {
            self.init(method: method, path: target, headers: headers, body: body)
        }
    }

    /// Path and query, as on the request line: `/activities?from=2016-10-04T00:00:00%2B00:00&to=…`.
    public var target: String {
        rawQuery.isEmpty ? path : path + "?" + rawQuery
    }
}

/// One whole answer. The server adds `Content-Length` and the connection's headers.
public struct ServeResponse: Sendable {
    public var status: Int
    public var headers: ServeHeaders
    public var body: Data

    public init(status: Int, headers: ServeHeaders = [:], body: Data = Data()) {
        self.status = status
        self.headers = headers
        self.body = body
    }

    /// `body` with its `Content-Type`.
    public static func data(_ body: Data, contentType: String, status: Int = 200) -> ServeResponse {
        ServeResponse(status: status, headers: ["Content-Type": contentType], body: body)
    }

    /// `value` as JSON, keys sorted (the same data always reads the same), slashes unescaped.
    /// A value that cannot be encoded is a 500 with the reason.
    public static func json(_ value: some Encodable, status: Int = 200) -> ServeResponse {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.withoutEscapingSlashes, .sortedKeys]
        return json(value, status: status, encoder: encoder)
    }

    /// `value` as JSON through `encoder` (for date or key strategies of one's own).
    public static func json(_ value: some Encodable, status: Int = 200, encoder: JSONEncoder) -> ServeResponse {
        do {
            return .data(try encoder.encode(value), contentType: ServeResponse.jsonType, status: status)
        } catch {
            return .error(500, "cannot encode the answer: \(error)")
        }
    }

    /// `{"error": message}`, the body of every error `serve` answers.
    public static func error(_ status: Int, _ message: String) -> ServeResponse {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.withoutEscapingSlashes]
        let body = (try? encoder.encode(["error": message])) ?? Data(#"{"error":"?"}"#.utf8)
        return .data(body, contentType: ServeResponse.jsonType, status: status)
    }

    public static let jsonType = "application/json; charset=utf-8"

    /// The reason phrase the status line carries (`Not Found`); `Unknown` for codes not listed.
    public static func reason(_ status: Int) -> String {
        switch status {
        case 100: "Continue"
        case 200: "OK"
        case 201: "Created"
        case 202: "Accepted"
        case 204: "No Content"
        case 301: "Moved Permanently"
        case 302: "Found"
        case 304: "Not Modified"
        case 400: "Bad Request"
        case 401: "Unauthorized"
        case 403: "Forbidden"
        case 404: "Not Found"
        case 405: "Method Not Allowed"
        case 408: "Request Timeout"
        case 409: "Conflict"
        case 411: "Length Required"
        case 413: "Content Too Large"
        case 414: "URI Too Long"
        case 415: "Unsupported Media Type"
        case 417: "Expectation Failed"
        case 422: "Unprocessable Content"
        case 429: "Too Many Requests"
        case 431: "Request Header Fields Too Large"
        case 500: "Internal Server Error"
        case 501: "Not Implemented"
        case 503: "Service Unavailable"
        case 505: "HTTP Version Not Supported"
        default: "Unknown"
        }
    }
}

/// Answers requests; the HTTP stack, limits, faults and logging are the server's.
public protocol ServeHandler: Sendable {
    /// Never throws: every failure is an answer (`ServeResponse.error`).
    func handle(_ request: ServeRequest) async -> ServeResponse
}

extension String {
    fileprivate func caseInsensitiveEquals(_ other: String) -> Bool {
        utf8.count == other.utf8.count && lowercased() == other.lowercased()
    }
}
