import FeedModel
import TermUI

/// The sign-in form over the app, when the server refuses the token in use (401 or 403) in the
/// middle of a session: a good token is used from then on and everything loads again; Esc
/// closes it (the app stays as it was, its requests refused). The token is only ever bullets.
@MainActor
final class SignInOverlay: Overlay {
    enum Action: Sendable { case signIn, switchField, close }

    nonisolated static let keyMap: KeyMap<Action> = {
        var map = KeyMap<Action>()
        let section = "Sign-in (the token was refused; other keys type)"
        map.bind([.enter], to: .signIn, help: "check the token and sign in", section: section)
        map.bind([.tab, .backTab, .down, .up], to: .switchField, help: "the token or remember (Space ticks it)", section: section)
        map.bind([.escape], to: .close, help: "close it", section: section)
        return map
    }()
    nonisolated static var help: [HelpEntry] { keyMap.helpEntries }

    private(set) var form: SignInForm
    private let capability: AppCore.SignInCapability
    private let events: EventSink<StoreEvent>
    private var attempt = 0
    /// The last check accepted the token.
    private(set) var signedIn = false

    init(_ capability: AppCore.SignInCapability, refusal: String?, events: EventSink<StoreEvent>) {
        self.capability = capability
        self.events = events
        form = SignInForm(origin: capability.origin, refusal: refusal, escape: "close", title: capability.title,
                          tokenCheck: capability.tokenCheck)
    }

    /// A token is being checked (the app is not settled until the answer is in).
    var isChecking: Bool { form.phase == .checking }

    func handle(_ key: Key, _ data: ScreenData) -> Outcome {
        if Self.keyMap.action(for: key) == .close { return .close(notice: "Not signed in: the server still refuses the token.") }
        guard case .submit(let token, let remember)? = form.handle(key) else { return .consumed }
        attempt += 1
        let (number, check) = (attempt, capability.check)
        Task { [weak self] in
            let refusal = await check(token, remember)
            self?.finish(refusal, attempt: number)
        }
        return .consumed
    }

    private func finish(_ refusal: SignInRefusal?, attempt number: Int) {
        guard number == attempt else { return }
        if let refusal {
            form.phase = .refused(refusal.message)
        } else {
            signedIn = true
        }
        events.send(.signIn)
    }

    func receive(_ event: StoreEvent, _ data: ScreenData) -> Outcome {
        guard event == .signIn, signedIn else { return .ignored }
        return .close(notice: "Signed in.")
    }

    func draw(into buffer: inout CellBuffer, area: Rect, statusBar: Rect, _ data: ScreenData) {
        form.draw(into: &buffer, area: area)
    }
}
