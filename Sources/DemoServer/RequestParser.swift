import Foundation

/// The limits `serve` puts on every connection and request. A request over a size limit gets
/// its status and a JSON reason, and the connection is closed.
public struct ServeLimits: Sendable, Equatable {
    /// The request line (`GET /path?query HTTP/1.1`), in bytes: longer is 414.
    public var maxRequestLine = 16 * 1024
    /// The header fields after the request line, in bytes all together: more is 431.
    public var maxHeaderBytes = 16 * 1024
    /// The number of header fields: more is 431.
    public var maxHeaderCount = 100
    /// The body, in bytes (after de-chunking): more is 413, answered before it is read.
    public var maxBody = 1024 * 1024
    /// The body of a request that creates a savings goal (`POST …/savingsgoals`, `PUT
    /// …/savings-goals`), which may carry the app's largest photo, 10 MB, as base64 (13.4 MB).
    public var maxGoalBody = 15 * 1024 * 1024
    /// From a request's first byte (or the connection's opening) to the end of its header: then
    /// 408 and the connection closed.
    public var headerTimeout: Duration = .seconds(10)
    /// From the end of the header to the end of the body: then 408 and the connection closed.
    public var bodyTimeout: Duration = .seconds(30)
    /// A kept-alive connection with no request under way is closed after this.
    public var idleTimeout: Duration = .seconds(30)
    /// Open connections at most; one more is answered 503 and closed.
    public var maxConnections = 1024

    public init() {}

    /// The body limit of one request: `maxGoalBody` where a goal is created, `maxBody` elsewhere.
    public func maxBody(method: String, target: String) -> Int {
        let path = target.prefix { $0 != "?" }
        let createsAGoal = (method == "POST" && path.hasSuffix("/savingsgoals"))
            || (method == "PUT" && path.hasSuffix("/savings-goals"))
        return createsAGoal ? max(maxBody, maxGoalBody) : maxBody
    }
}

/// A request the stack refuses before any handler sees it: the status and the JSON reason.
struct HTTPFailure: Error, Equatable {
    let status: Int
    let message: String

    static func malformed(_ message: String) -> HTTPFailure { HTTPFailure(status: 400, message: message) }
}

/// A parsed request head.
struct RequestHead: Equatable {
    enum Framing: Equatable {
        case none
        case length(Int)
        case chunked
    }

    var method: String
    /// Origin-form (`/path?query`) as received; an absolute-form target is cut to its path.
    var target: String
    /// 0 or 1 (HTTP/1.0 or HTTP/1.1).
    var minorVersion: Int
    var fields: [ServeHeaders.Field]
    var keepAlive: Bool
    var framing: Framing
    var expectsContinue: Bool

    static func == (lhs: RequestHead, rhs: RequestHead) -> Bool {
        lhs.method == rhs.method && lhs.target == rhs.target && lhs.minorVersion == rhs.minorVersion
            && lhs.fields.map(\.name) == rhs.fields.map(\.name) && lhs.fields.map(\.value) == rhs.fields.map(\.value)
            && lhs.keepAlive == rhs.keepAlive && lhs.framing == rhs.framing && lhs.expectsContinue == rhs.expectsContinue
    }
}

private let LF: UInt8 = 0x0A
private let CR: UInt8 = 0x0D
private let SP: UInt8 = 0x20
private let HT: UInt8 = 0x09

/// Finds where a request head ends, a byte at a time, never looking at a byte twice: the
/// scanner keeps its place between calls as more bytes arrive. Refuses a request line over
/// `maxRequestLine` (414) and header fields over `maxHeaderBytes` (431) as soon as they are
/// too long, without waiting for their end.
struct HeadScanner {
    enum Outcome: Equatable {
        case incomplete
        /// The head is `bytes[0..<end]` (its blank line included).
        case complete(end: Int)
        case failure(HTTPFailure)
    }

    let limits: ServeLimits
    private var position = 0
    private var requestLineEnd: Int?

    init(limits: ServeLimits) {
        self.limits = limits
    }

    /// Scans the bytes not scanned yet; `bytes` must start where the head starts and hold every
    /// byte given before.
    mutating func scan(_ bytes: UnsafeRawBufferPointer) -> Outcome {
        while position < bytes.count {
            if bytes[position] == LF {
                if let lineEnd = requestLineEnd {
                    let previous = position - 1
                    if previous == lineEnd || (bytes[previous] == CR && previous - 1 >= lineEnd && bytes[previous - 1] == LF) {
                        position += 1
                        if position - lineEnd - 1 > limits.maxHeaderBytes + 2 { return .failure(tooLarge) }
                        return .complete(end: position)
                    }
                } else {
                    if position > limits.maxRequestLine { return .failure(tooLong) }
                    requestLineEnd = position
                }
            }
            position += 1
        }
        if let lineEnd = requestLineEnd {
            if bytes.count - lineEnd - 1 > limits.maxHeaderBytes + 2 { return .failure(tooLarge) }
        } else if bytes.count > limits.maxRequestLine + 2 {
            return .failure(tooLong)
        }
        return .incomplete
    }

    private var tooLong: HTTPFailure {
        HTTPFailure(status: 414, message: "the request line is longer than \(limits.maxRequestLine) bytes")
    }

    private var tooLarge: HTTPFailure {
        HTTPFailure(status: 431, message: "the header fields are larger than \(limits.maxHeaderBytes) bytes")
    }
}

enum RequestParser {
    /// Parses a whole head (as found by `HeadScanner`), strictly: one space between the parts of
    /// the request line, token methods and field names, no line folding, no control characters
    /// in values, one `Host` in HTTP/1.1, and an unambiguous body length.
    static func parseHead(_ bytes: UnsafeRawBufferPointer, limits: ServeLimits) -> Result<RequestHead, HTTPFailure> {
        var lines: [UnsafeRawBufferPointer] = []
        var start = 0
        for index in 0..<bytes.count where bytes[index] == LF {
            var end = index
            if end > start && bytes[end - 1] == CR { end -= 1 }
            lines.append(UnsafeRawBufferPointer(rebasing: bytes[start..<end]))
            start = index + 1
        }
        // The last line is the blank one that ends the head.
        guard lines.count >= 2, let requestLine = lines.first else { return .failure(.malformed("malformed request line")) }
        if lines.count - 2 > limits.maxHeaderCount {
            return .failure(HTTPFailure(status: 431, message: "more than \(limits.maxHeaderCount) header fields"))
        }

        // Request line: METHOD SP TARGET SP HTTP/1.x
        let parts = requestLine.split(separator: SP, omittingEmptySubsequences: false)
        guard parts.count == 3, !parts[0].isEmpty, !parts[1].isEmpty else {
            return .failure(.malformed("malformed request line"))
        }
        guard parts[0].count <= 32, parts[0].allSatisfy(isTokenByte) else { return .failure(.malformed("malformed method")) }
        let method = String(decoding: parts[0], as: UTF8.self)

        let version = Array(parts[2])
        guard version.count == 8, version.starts(with: Array("HTTP/".utf8)), isDigit(version[5]), version[6] == UInt8(ascii: "."),
              isDigit(version[7]) else {
            return .failure(.malformed("malformed HTTP version"))
        }
        guard version[5] == UInt8(ascii: "1"), version[7] == UInt8(ascii: "0") || version[7] == UInt8(ascii: "1") else {
            return .failure(HTTPFailure(status: 505, message: "HTTP version not supported (use HTTP/1.1)"))
        }
        let minor = version[7] == UInt8(ascii: "1") ? 1 : 0

        guard parts[1].allSatisfy({ $0 > SP && $0 < 0x7F }) else { return .failure(.malformed("malformed request target")) }
        var target = String(decoding: parts[1], as: UTF8.self)
        if target.hasPrefix("http://") || target.hasPrefix("https://") {
            // Absolute form (proxies send it): keep the path and query.
            let afterScheme = target[target.range(of: "://")!.upperBound...]
            target = afterScheme.firstIndex(where: { $0 == "/" || $0 == "?" }).map { String(afterScheme[$0...]) } ?? "/"
            if target.hasPrefix("?") { target = "/" + target }
        } else if target == "*" {
            guard method == "OPTIONS" else { return .failure(.malformed("malformed request target")) }
        } else if !target.hasPrefix("/") {
            return .failure(.malformed("malformed request target"))
        }

        // Header fields.
        var fields: [ServeHeaders.Field] = []
        fields.reserveCapacity(lines.count - 2)
        for line in lines[1..<(lines.count - 1)] {
            guard let first = line.first, first != SP, first != HT else {
                return .failure(.malformed(line.isEmpty ? "malformed header field" : "obsolete line folding in the header"))
            }
            guard let colon = line.firstIndex(of: UInt8(ascii: ":")), colon > 0,
                  line[..<colon].allSatisfy(isTokenByte) else {
                return .failure(.malformed("malformed header field"))
            }
            var valueStart = colon + 1
            var valueEnd = line.count
            while valueStart < valueEnd && (line[valueStart] == SP || line[valueStart] == HT) { valueStart += 1 }
            while valueEnd > valueStart && (line[valueEnd - 1] == SP || line[valueEnd - 1] == HT) { valueEnd -= 1 }
            let value = line[valueStart..<valueEnd]
            guard value.allSatisfy({ $0 == HT || ($0 >= SP && $0 != 0x7F) }) else {
                return .failure(.malformed("control character in a header field"))
            }
            fields.append((name: String(decoding: line[..<colon], as: UTF8.self), value: String(decoding: value, as: UTF8.self)))
        }
        let headers = ServeHeaders(fields)

        if minor == 1 && headers.values("Host").count != 1 {
            return .failure(.malformed("an HTTP/1.1 request needs exactly one Host header"))
        }

        // Body framing: chunked, one Content-Length, or none; never both.
        var framing = RequestHead.Framing.none
        let transferEncodings = headers.values("Transfer-Encoding")
        let lengths = headers.values("Content-Length").flatMap { $0.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) } }
        if !transferEncodings.isEmpty {
            guard minor == 1 else { return .failure(.malformed("Transfer-Encoding in an HTTP/1.0 request")) }
            guard lengths.isEmpty else { return .failure(.malformed("both Transfer-Encoding and Content-Length")) }
            guard transferEncodings.count == 1, transferEncodings[0].lowercased() == "chunked" else {
                return .failure(HTTPFailure(status: 501, message: "unsupported Transfer-Encoding (only chunked)"))
            }
            framing = .chunked
        } else if let length = lengths.first {
            guard lengths.allSatisfy({ $0 == length }), !length.isEmpty, length.utf8.count <= 18, length.utf8.allSatisfy(isDigit),
                  let count = Int(length) else {
                return .failure(.malformed("malformed Content-Length"))
            }
            let maxBody = limits.maxBody(method: method, target: target)
            if count > maxBody {
                return .failure(HTTPFailure(status: 413, message: "the body is larger than \(maxBody) bytes"))
            }
            framing = count > 0 ? .length(count) : .none
        }

        let connection = headers.values("Connection").flatMap { $0.lowercased().split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) } }
        let keepAlive = minor == 1 ? !connection.contains("close") : connection.contains("keep-alive")

        var expectsContinue = false
        if let expect = headers["Expect"] {
            guard expect.lowercased() == "100-continue" else {
                return .failure(HTTPFailure(status: 417, message: "unsupported Expect (only 100-continue)"))
            }
            expectsContinue = minor == 1 && framing != .none
        }

        return .success(RequestHead(method: method, target: target, minorVersion: minor, fields: fields,
                                    keepAlive: keepAlive, framing: framing, expectsContinue: expectsContinue))
    }

    /// tchar of RFC 9110: letters, digits and ``!#$%&'*+-.^_`|~``.
    static func isTokenByte(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "0")...UInt8(ascii: "9"):
            true
        default:
            "!#$%&'*+-.^_`|~".utf8.contains(byte)
        }
    }

    static func isDigit(_ byte: UInt8) -> Bool {
        byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9")
    }
}

/// Reads a chunked body a piece at a time, bounded: the body by `maxBody` (413, the request's
/// limit from `ServeLimits.maxBody(method:target:)`), a chunk-size
/// line by 1 KB (400), a trailer line by 1 KB and the trailer by `maxHeaderBytes` (431).
struct ChunkedBodyReader {
    enum Step: Equatable {
        /// Consumed `consumed` bytes; call again when more arrive (`needMore`) or now.
        case progress(consumed: Int, needMore: Bool)
        /// Consumed `consumed` bytes and the body is whole.
        case done(consumed: Int)
        case failure(HTTPFailure)
    }

    private enum State {
        case size
        case data(remaining: Int)
        case dataEnd
        case trailer(total: Int)
    }

    let limits: ServeLimits
    let maxBody: Int
    private var state = State.size
    private(set) var body = Data()

    init(limits: ServeLimits, maxBody: Int? = nil) {
        self.limits = limits
        self.maxBody = maxBody ?? limits.maxBody
    }

    /// One step over `bytes` (what is buffered, from the first byte not yet consumed).
    mutating func step(_ bytes: UnsafeRawBufferPointer) -> Step {
        switch state {
        case .size:
            guard let lineFeed = bytes.prefix(1024).firstIndex(of: LF) else {
                return bytes.count >= 1024 ? .failure(.malformed("malformed chunk size")) : .progress(consumed: 0, needMore: true)
            }
            var line = bytes[..<lineFeed]
            if line.last == CR { line = line.dropLast() }
            let digits = line.prefix { $0 != UInt8(ascii: ";") }
            guard !digits.isEmpty, digits.count <= 8, let size = Int(String(decoding: digits, as: UTF8.self), radix: 16), size >= 0 else {
                return .failure(.malformed("malformed chunk size"))
            }
            if body.count + size > maxBody {
                return .failure(HTTPFailure(status: 413, message: "the body is larger than \(maxBody) bytes"))
            }
            state = size == 0 ? .trailer(total: 0) : .data(remaining: size)
            return .progress(consumed: lineFeed + 1, needMore: false)
        case .data(let remaining):
            let take = min(remaining, bytes.count)
            guard take > 0 else { return .progress(consumed: 0, needMore: true) }
            body.append(contentsOf: bytes[..<take])
            state = take == remaining ? .dataEnd : .data(remaining: remaining - take)
            return .progress(consumed: take, needMore: take < remaining)
        case .dataEnd:
            guard let first = bytes.first else { return .progress(consumed: 0, needMore: true) }
            if first == LF {
                state = .size
                return .progress(consumed: 1, needMore: false)
            }
            guard first == CR else { return .failure(.malformed("malformed chunk")) }
            guard bytes.count >= 2 else { return .progress(consumed: 0, needMore: true) }
            guard bytes[1] == LF else { return .failure(.malformed("malformed chunk")) }
            state = .size
            return .progress(consumed: 2, needMore: false)
        case .trailer(let total):
            // Trailer fields are read and dropped, a line at a time, up to a blank line.
            guard let lineFeed = bytes.prefix(1024).firstIndex(of: LF) else {
                return bytes.count >= 1024 ? .failure(HTTPFailure(status: 431, message: "a trailer field is longer than 1024 bytes"))
                    : .progress(consumed: 0, needMore: true)
            }
            let lineLength = lineFeed - (lineFeed > 0 && bytes[lineFeed - 1] == CR ? 1 : 0)
            if lineLength == 0 { return .done(consumed: lineFeed + 1) }
            if total + lineFeed + 1 > limits.maxHeaderBytes {
                return .failure(HTTPFailure(status: 431, message: "the trailer is larger than \(limits.maxHeaderBytes) bytes"))
            }
            state = .trailer(total: total + lineFeed + 1)
            return .progress(consumed: lineFeed + 1, needMore: false)
        }
    }
}
