import FeedModel
import Foundation
import TermUI

/// The sign-in before the app, as the first screen of the one event loop (`AppRunner`): when
/// there is no token, or the server refused the one given. The app's stores need an API, and
/// the API needs the token, so this screen stands before the `AppCore` exists; once a token is
/// accepted it opens the app on the same event queue and the loop goes on with it.
///
/// Keys go to the form; Enter hands the token to `check` (in a task: keys keep working, Esc
/// leaves); its answer comes back through the queue as `StoreEvent.signIn`, and is either the
/// value the app needs (handed to `open`) or the one-line refusal shown under the field. The
/// token only ever goes to `check` and `open`.
@MainActor
public final class SignInScreen<Value: Sendable>: FirstScreen {
    /// What `open` gets: the checked value, the token and whether to keep it, and the queue the
    /// app must be made on (`AppCore(…, events:)`).
    public struct Accepted {
        public let value: Value
        public let token: String
        public let remember: Bool
        public let events: EventQueue
    }

    private(set) var form: SignInForm
    public let events = EventQueue()
    private let check: @Sendable (String) async -> Result<Value, SignInRefusal>
    private let open: @MainActor (Accepted) -> AppCore
    private var attempt = 0
    private var checking: Task<Void, Never>?
    /// The last check's answer, with its attempt (an older attempt's answer is dropped).
    private var answer: (attempt: Int, result: Result<Value, SignInRefusal>, token: String, remember: Bool)?
    private(set) var shouldQuit = false
    private(set) var quitSignal: Int32?

    public init(form: SignInForm, check: @escaping @Sendable (String) async -> Result<Value, SignInRefusal>,
                open: @escaping @MainActor (Accepted) -> AppCore) {
        self.form = form
        self.check = check
        self.open = open
    }

    var isIdle: Bool { form.phase != .checking }

    func update(_ event: AppCore.Event) -> AppCore? {
        switch event {
        case .terminal(.quitSignal(let signal)):
            quitSignal = signal
            leave()
        case .terminal(.key(let key)):
            switch form.handle(key) {
            case .quit?: leave()
            case .submit(let token, let remember)?: submit(token, remember: remember)
            case nil: break
            }
        case .store(.signIn):
            guard let answer, answer.attempt == attempt, form.phase == .checking else { return nil }
            switch answer.result {
            case .success(let value):
                checking = nil
                return open(Accepted(value: value, token: answer.token, remember: answer.remember, events: events))
            case .failure(let refusal):
                form.phase = .refused(refusal.message)
            }
        case .terminal(.resize), .store, .picture, .tick:
            break
        }
        return nil
    }

    private func leave() {
        shouldQuit = true
        checking?.cancel()
    }

    private func submit(_ token: String, remember: Bool) {
        attempt += 1
        let (check, number) = (self.check, attempt)
        checking?.cancel()
        checking = Task { [weak self] in
            let result = await check(token)
            guard let self else { return }
            self.answer = (number, result, token, remember)
            self.events.post(.store(.signIn))
        }
    }

    func draw(into buffer: inout CellBuffer) {
        buffer.fill(buffer.area)
        form.draw(into: &buffer, area: buffer.area)
    }
}

/// A screen the loop shows before the app exists (the sign-in): it takes the events until it
/// opens the app or the user leaves.
@MainActor
protocol FirstScreen: AnyObject {
    /// The queue the loop reads while this screen is up (and the app it opens after).
    var events: EventQueue { get }
    /// One event; the app, once this screen opens it.
    func update(_ event: AppCore.Event) -> AppCore?
    func draw(into buffer: inout CellBuffer)
    /// Nothing in flight (no token being checked).
    var isIdle: Bool { get }
    /// Esc or a quit signal: the loop ends without an app.
    var shouldQuit: Bool { get }
    var quitSignal: Int32? { get }
}

/// Why a token was not accepted, in one line that never quotes it.
public struct SignInRefusal: Error, Sendable, Equatable {
    public let message: String
    public init(_ message: String) { self.message = TextSanitizer.clean(message) }
}
