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
    init(_ capability: AppCore.SignInCapability, refusal: String?) {
        form = SignInForm(origin: capability.origin, refusal: refusal, escape: "close", title: capability.title,
                          tokenCheck: capability.tokenCheck, tokenLabel: capability.tokenLabel)
    }

    /// Enter hands the token to `TokenCheck` as a command (nothing starts here); Esc closes.
    func handle(_ key: Key, _ data: ScreenData) -> Outcome {
        if Self.keyMap.action(for: key) == .close { return .close(notice: "Not signed in: the server still refuses the token.") }
        guard case .submit(let token, let remember)? = form.handle(key) else { return .consumed }
        return .run(.checkToken(SignInAttempt(token: token, remember: remember)))
    }

    /// The check's answer: the refusal under the field, or the form closes.
    func receive(_ event: StoreEvent, _ data: ScreenData) -> Outcome {
        guard event == .signIn, form.phase == .checking, let answer = data.tokenCheck?.answer else { return .ignored }
        if case .failure(let refusal) = answer {
            form.phase = .refused(refusal.message)
            return .consumed
        }
        return .close(notice: "Signed in.")
    }

    func draw(into buffer: inout CellBuffer, area: Rect, statusBar: Rect, _ data: ScreenData) {
        form.draw(into: &buffer, area: area)
    }
}

/// What the sign-in form over the app asks of the stores.
extension Command {
    /// Enter: check the token (`TokenCheck`). The attempt's description hides the token.
    static func checkToken(_ attempt: SignInAttempt) -> Command {
        Command("check-token", attempt) { $0.stores.tokenCheck?.check(attempt) }
    }
}
