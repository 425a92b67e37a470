import DemoServer

/// Forwards every request to a look-alike and counts what it answered, by status: how many
/// requests an ordinary session made and how many 429s it met.
public actor CountingHandler: ServeHandler {
    public let inner: any ServeHandler
    private var statuses: [Int: Int] = [:]

    public init(inner: any ServeHandler) { self.inner = inner }

    /// Requests answered so far.
    public var requests: Int { statuses.values.reduce(0, +) }

    /// Answers with `status` so far.
    public func answered(_ status: Int) -> Int { statuses[status, default: 0] }

    public func handle(_ request: ServeRequest) async -> ServeResponse {
        let response = await inner.handle(request)
        statuses[response.status, default: 0] += 1
        return response
    }
}
