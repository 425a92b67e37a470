import FlyingFox
import FlyingSocks
#if canImport(Glibc)
import Glibc
#endif

/// FlyingFox's socket pool, with TCP_NODELAY on every socket it waits for.
///
/// FlyingFox writes a response's header and body in two writes. With Nagle's algorithm on,
/// the body waits for the client to acknowledge the header, and the client delays that
/// acknowledgement (40 ms on Linux): every answer took about 40 ms longer than it should.
/// FlyingFox has no hook for accepted sockets, but every socket passes through the pool.
struct NoDelaySocketPool<Base: AsyncSocketPool>: AsyncSocketPool {
    let base: Base

    func prepare() async throws { try await base.prepare() }

    func run() async throws { try await base.run() }

    func suspendSocket(_ socket: Socket, untilReadyFor events: Socket.Events) async throws {
        // Cheap and idempotent; on the listening socket it is inherited by accepted ones.
        try? socket.setValue(true, for: BoolSocketOption(level: Int32(IPPROTO_TCP), name: TCP_NODELAY))
        try await base.suspendSocket(socket, untilReadyFor: events)
    }
}
