import FeedModel

/// Checks a token pasted into the sign-in form over the app (`SignInOverlay`), for a source whose
/// token can be refused mid-session: the store behind `Command.checkToken`. One check counts:
/// a newer one makes an older answer moot. The answer comes back as `StoreEvent.signIn`, and the
/// form reads it here. The token goes only to the source's `check`.
@MainActor
final class TokenCheck {
    private let capability: AppCore.SignInCapability
    private let events: EventSink<StoreEvent>
    private var attempt = 0
    private var task: Task<Void, Never>?
    /// The newest check's answer (nil while it is under way, or before any): accepted, or refused.
    private(set) var answer: Result<Void, SignInRefusal>?
    /// A check is under way (the app is not settled until its answer is in).
    var isBusy: Bool { task != nil }

    init(_ capability: AppCore.SignInCapability, events: EventSink<StoreEvent>) {
        self.capability = capability
        self.events = events
    }

    func check(_ entry: SignInAttempt) {
        attempt += 1
        answer = nil
        task?.cancel()
        let (number, check) = (attempt, capability.check)
        task = Task { [weak self] in
            let refusal = await check(entry.token, entry.remember)
            self?.finish(refusal, attempt: number)
        }
    }

    private func finish(_ refusal: SignInRefusal?, attempt number: Int) {
        guard number == attempt else { return }
        answer = refusal.map { .failure($0) } ?? .success(())
        task = nil
        events.send(.signIn)
    }
}

/// A token to check and whether to keep it, as `Command.checkToken` carries it: its text never
/// shows in a description, a debug description or a mirror (a command may be logged or dumped).
struct SignInAttempt: Hashable, Sendable, CustomStringConvertible, CustomDebugStringConvertible, CustomReflectable {
    let token: String
    let remember: Bool

    var description: String { "a token (hidden)\(remember ? ", to remember" : "")" }
    var debugDescription: String { description }
    var customMirror: Mirror { Mirror(self, children: ["remember": remember]) }
}
