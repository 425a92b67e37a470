import Foundation
import NIOConcurrencyHelpers
import NIOCore

/// What the server tells its connections when it stops.
enum ConnectionEvent: Sendable {
    /// Stop accepting requests: close if idle, else finish the request under way (its answer
    /// says `Connection: close`) and close.
    case stopGracefully
    /// Close now; a request under way is answered 503.
    case stopNow
}

/// One HTTP/1.1 connection: reads requests strictly and within `ServeLimits`, hands each whole
/// request to the `ServeHandler` (one at a time, in order; pipelined requests wait in the
/// buffer), and writes each answer in one write.
///
/// Reading is explicit (the channel's autoRead is off): nothing more is read while a request
/// is being handled, so a connection holds at most one request and its limits' worth of bytes.
/// Everything here runs on the channel's event loop.
final class HTTPConnection: ChannelInboundHandler {
    typealias InboundIn = ByteBuffer
    typealias OutboundOut = ByteBuffer

    private enum Phase {
        case head
        case body(RequestHead, remaining: Int)
        case chunked(RequestHead, ChunkedBodyReader)
        case handling(RequestHead)
        /// Answered and closing: input is read and dropped until the peer closes or `linger` ends.
        case closing
    }

    private enum Timer {
        case header, body, idle, linger
    }

    private let handler: any ServeHandler
    private let limits: ServeLimits
    private let log: (@Sendable (String) -> Void)?
    private let stats: ServerStats
    private let rejected: Bool

    private var context: ChannelHandlerContext?
    private var buffer: ByteBuffer?
    private var phase = Phase.head
    private var scanner: HeadScanner
    private var body = Data()
    /// Some byte of the current request has arrived (a timeout then answers 408, else just closes).
    private var requestStarted = false
    private var stopping = false
    private var timer: Scheduled<Void>?
    private var task: Task<Void, Never>?
    private var requestStart = ContinuousClock.now
    /// Bytes read and dropped while closing.
    private var drained = 0
    static let maxDrained = 256 * 1024

    /// Handlers alive in this process: a connection that closed is not kept (the test of flat memory).
    static let alive = NIOLockedValueBox(0)

    /// `rejected`: the server is at its connection cap; answer 503 and close.
    init(handler: any ServeHandler, limits: ServeLimits, log: (@Sendable (String) -> Void)?, stats: ServerStats, rejected: Bool) {
        Self.alive.withLockedValue { $0 += 1 }
        self.handler = handler
        self.limits = limits
        self.log = log
        self.stats = stats
        self.rejected = rejected
        scanner = HeadScanner(limits: limits)
    }

    deinit { Self.alive.withLockedValue { $0 -= 1 } }

    func handlerAdded(context: ChannelHandlerContext) {
        self.context = context
    }

    /// The context holds this handler: kept here past the channel's end, the two would keep each
    /// other (and their buffers) alive for every connection ever served (issue 37.9).
    func handlerRemoved(context: ChannelHandlerContext) {
        timer?.cancel()
        timer = nil
        self.context = nil
    }

    func channelActive(context: ChannelHandlerContext) {
        if rejected {
            fail(HTTPFailure(status: 503, message: "too many connections (at most \(limits.maxConnections))"), head: nil)
            return
        }
        arm(.header)
        context.read()
    }

    func channelInactive(context: ChannelHandlerContext) {
        timer?.cancel()
        timer = nil
        task?.cancel()
        task = nil
        if case .handling = phase { stats.finished() }
        phase = .closing
        buffer = nil
        context.fireChannelInactive()
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        var incoming = unwrapInboundIn(data)
        if case .closing = phase {
            // Dropped, up to a bound: a refused body is not read whole.
            drained += incoming.readableBytes
            if drained > HTTPConnection.maxDrained { context.close(promise: nil) }
            return
        }
        if buffer == nil {
            buffer = incoming
        } else {
            buffer!.writeBuffer(&incoming)
        }
        process()
    }

    func channelReadComplete(context: ChannelHandlerContext) {
        switch phase {
        case .head, .body, .chunked, .closing: context.read()
        case .handling: break
        }
    }

    func userInboundEventTriggered(context: ChannelHandlerContext, event: Any) {
        guard let event = event as? ConnectionEvent else {
            context.fireUserInboundEventTriggered(event)
            return
        }
        switch event {
        case .stopGracefully:
            stopping = true
            switch phase {
            case .head where !requestStarted, .closing: context.close(promise: nil)
            default: break
            }
        case .stopNow:
            stopping = true
            if case .handling(let head) = phase {
                task?.cancel()
                task = nil
                stats.cutOff()
                let answer = ServeResponse.error(503, "the server is stopping")
                logLine(head.method, head.target, 503)
                phase = .closing
                let bound = NIOLoopBound(context, eventLoop: context.eventLoop)
                write(answer, head: head, close: true).whenComplete { _ in bound.value.close(promise: nil) }
            } else {
                context.close(promise: nil)
            }
        }
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        // Resets and broken pipes: nothing to answer.
        context.close(promise: nil)
    }

    // MARK: - Reading requests

    private func process() {
        while let context, buffer != nil {
            switch phase {
            case .head:
                if !requestStarted {
                    // Blank lines before a request are allowed (RFC 9112 §2.2).
                    while let byte = buffer!.getInteger(at: buffer!.readerIndex, as: UInt8.self), byte == 0x0D || byte == 0x0A {
                        buffer!.moveReaderIndex(forwardBy: 1)
                    }
                    guard buffer!.readableBytes > 0 else { return }
                    requestStarted = true
                    requestStart = .now
                    // From the first byte (a new connection's timer runs from its opening).
                    if currentTimer != .header { arm(.header) }
                }
                let outcome = buffer!.withUnsafeReadableBytes { scanner.scan($0) }
                switch outcome {
                case .incomplete:
                    return
                case .failure(let failure):
                    fail(failure, head: nil)
                    return
                case .complete(let end):
                    let parsed = buffer!.withUnsafeReadableBytes {
                        RequestParser.parseHead(UnsafeRawBufferPointer(rebasing: $0[..<end]), limits: limits)
                    }
                    buffer!.moveReaderIndex(forwardBy: end)
                    scanner = HeadScanner(limits: limits)
                    switch parsed {
                    case .failure(let failure):
                        fail(failure, head: nil)
                        return
                    case .success(let head):
                        if head.expectsContinue {
                            var line = context.channel.allocator.buffer(capacity: 25)
                            line.writeString("HTTP/1.1 100 Continue\r\n\r\n")
                            context.writeAndFlush(wrapOutboundOut(line), promise: nil)
                        }
                        switch head.framing {
                        case .none:
                            dispatch(head, body: Data())
                        case .length(let count):
                            body = Data(capacity: count)
                            phase = .body(head, remaining: count)
                            arm(.body)
                        case .chunked:
                            body = Data()
                            phase = .chunked(head, ChunkedBodyReader(limits: limits, maxBody: limits.maxBody(method: head.method, target: head.target)))
                            arm(.body)
                        }
                    }
                }
            case .body(let head, let remaining):
                let take = min(remaining, buffer!.readableBytes)
                guard take > 0 else { return }
                buffer!.withUnsafeReadableBytes { body.append(contentsOf: UnsafeRawBufferPointer(rebasing: $0[..<take])) }
                buffer!.moveReaderIndex(forwardBy: take)
                if take == remaining {
                    dispatch(head, body: body)
                } else {
                    phase = .body(head, remaining: remaining - take)
                    return
                }
            case .chunked(let head, var reader):
                let step = buffer!.withUnsafeReadableBytes { reader.step($0) }
                switch step {
                case .progress(let consumed, let needMore):
                    buffer!.moveReaderIndex(forwardBy: consumed)
                    phase = .chunked(head, reader)
                    if needMore { return }
                case .done(let consumed):
                    buffer!.moveReaderIndex(forwardBy: consumed)
                    dispatch(head, body: reader.body)
                case .failure(let failure):
                    fail(failure, head: head)
                    return
                }
            case .handling, .closing:
                return
            }
            if buffer!.readableBytes == 0 {
                // Dropped, not cleared: a buffer grown by one large body is not kept for the connection's life.
                buffer = nil
                return
            }
        }
    }

    private func dispatch(_ head: RequestHead, body: Data) {
        guard let context else { return }
        timer?.cancel()
        timer = nil
        currentTimer = nil
        phase = .handling(head)
        self.body = Data()
        let request = ServeRequest(method: head.method, target: head.target, headers: ServeHeaders(head.fields), body: body)
        let handler = self.handler
        let connection = NIOLoopBound(self, eventLoop: context.eventLoop)
        stats.started()
        task = Task(executorPreference: ServeExecutor.shared) {
            let answer = await handler.handle(request)
            connection.eventLoop.execute {
                connection.value.answer(answer)
            }
        }
    }

    private func answer(_ answer: ServeResponse) {
        guard case .handling(let head) = phase, let context else { return }
        task = nil
        stats.finished()
        let close = !head.keepAlive || stopping
        let written = write(answer, head: head, close: close)
        if close {
            phase = .closing
            let bound = NIOLoopBound(context, eventLoop: context.eventLoop)
            written.whenComplete { _ in bound.value.close(promise: nil) }
            return
        }
        phase = .head
        requestStarted = false
        if let buffer, buffer.readableBytes > 0 {
            process()
        }
        if case .head = phase, !requestStarted {
            arm(.idle)
        }
        if case .handling = phase {} else { context.read() }
    }

    // MARK: - Writing answers

    @discardableResult
    private func write(_ answer: ServeResponse, head: RequestHead?, close: Bool) -> EventLoopFuture<Void> {
        guard let context else { preconditionFailure("written before the handler was added") }
        let sendBody = head?.method != "HEAD"
        var out = context.channel.allocator.buffer(capacity: 160 + (sendBody ? answer.body.count : 0))
        out.writeString("HTTP/1.1 \(answer.status) \(ServeResponse.reason(answer.status))\r\n")
        for field in answer.headers where HTTPConnection.isWritable(field) {
            out.writeString(field.name)
            out.writeString(": ")
            out.writeString(field.value)
            out.writeString("\r\n")
        }
        out.writeString("Content-Length: \(answer.body.count)\r\n")
        if close {
            out.writeString("Connection: close\r\n")
        } else if head?.minorVersion == 0 {
            out.writeString("Connection: keep-alive\r\n")
        }
        out.writeString("\r\n")
        if sendBody { out.writeBytes(answer.body) }
        return context.writeAndFlush(wrapOutboundOut(out))
    }

    /// A handler's header field, unless it is one the connection owns or could break the framing.
    private static func isWritable(_ field: ServeHeaders.Field) -> Bool {
        let name = field.name.lowercased()
        guard name != "content-length", name != "connection", name != "transfer-encoding", !name.isEmpty,
              field.name.utf8.allSatisfy(RequestParser.isTokenByte) else { return false }
        return field.value.utf8.allSatisfy { $0 == 0x09 || ($0 >= 0x20 && $0 != 0x7F) }
    }

    /// Answers `failure` with its JSON reason and closes, reading and dropping what the client
    /// still sends for a moment first, so that it sees the answer instead of a reset.
    private func fail(_ failure: HTTPFailure, head: RequestHead?) {
        guard let context else { return }
        logLine(head?.method ?? "-", head?.target ?? "-", failure.status, note: failure.message)
        phase = .closing
        buffer = nil
        // Half-close after the answer is out; the peer's close (or the linger timer) ends it.
        let bound = NIOLoopBound(context, eventLoop: context.eventLoop)
        write(.error(failure.status, failure.message), head: head, close: true).whenComplete { _ in
            bound.value.close(mode: .output, promise: nil)
        }
        arm(.linger)
        context.read()
    }

    private func logLine(_ method: String, _ target: String, _ status: Int, note: String? = nil) {
        guard let log else { return }
        var line = DemoHTTPServer.logLine(method: method, target: String(target.prefix(512)), status: status,
                                          elapsed: ContinuousClock.now - requestStart)
        if let note { line += " (\(note))" }
        log(line)
    }

    // MARK: - Timers

    private var currentTimer: Timer?

    private func arm(_ kind: Timer) {
        guard let context else { return }
        timer?.cancel()
        let delay: Duration = switch kind {
        case .header: limits.headerTimeout
        case .body: limits.bodyTimeout
        case .idle: limits.idleTimeout
        case .linger: .seconds(1)
        }
        let connection = NIOLoopBound(self, eventLoop: context.eventLoop)
        currentTimer = kind
        timer = context.eventLoop.scheduleTask(in: .nanoseconds(HTTPConnection.nanoseconds(delay))) {
            connection.value.timerFired(kind)
        }
    }

    private func timerFired(_ kind: Timer) {
        guard let context, currentTimer == kind else { return }
        timer = nil
        currentTimer = nil
        switch kind {
        case .header where requestStarted:
            fail(HTTPFailure(status: 408, message: "the request header did not arrive within \(limits.headerTimeout)"), head: nil)
        case .body:
            var head: RequestHead?
            switch phase {
            case .body(let current, _), .chunked(let current, _): head = current
            default: break
            }
            fail(HTTPFailure(status: 408, message: "the request body did not arrive within \(limits.bodyTimeout)"), head: head)
        case .header, .idle, .linger:
            context.close(promise: nil)
        }
    }

    static func nanoseconds(_ duration: Duration) -> Int64 {
        let (seconds, attoseconds) = duration.components
        return seconds * 1_000_000_000 + attoseconds / 1_000_000_000
    }
}

/// Requests under way, for the stop report. Requests answered after the stop began count as
/// finished, a pipelined one the connection had read but not yet started included.
final class ServerStats: Sendable {
    private let counts = NIOLockedValueBox((inFlight: 0, cutOff: 0, stopping: false, finishedWhileStopping: 0))

    func started() { counts.withLockedValue { $0.inFlight += 1 } }
    func finished() {
        counts.withLockedValue {
            $0.inFlight -= 1
            if $0.stopping { $0.finishedWhileStopping += 1 }
        }
    }
    func cutOff() { counts.withLockedValue { $0.inFlight -= 1; $0.cutOff += 1 } }
    func beginStopping() { counts.withLockedValue { $0.stopping = true } }

    var inFlight: Int { counts.withLockedValue { $0.inFlight } }
    var cutOffCount: Int { counts.withLockedValue { $0.cutOff } }
    var finishedWhileStopping: Int { counts.withLockedValue { $0.finishedWhileStopping } }
}
