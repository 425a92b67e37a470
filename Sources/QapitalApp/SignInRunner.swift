import FeedModel
import Foundation
import TermUI

/// Runs the sign-in form full screen until a token is accepted or the user leaves: before the
/// app starts, when there is no token or the server refused the one given.
///
/// Keys go to the form; Enter hands the token to `check` (off the main actor's way: keys keep
/// working, Esc leaves), whose answer is either the value the app needs or the one-line
/// refusal to show under the field. The token only ever goes to `check`.
///
/// This is its own small loop because the app core takes its API when it is made; it belongs
/// in the screen abstraction once there is one (docs/starling.md, "Not yet").
@MainActor
public final class SignInRunner<Value: Sendable> {
    public enum Outcome {
        case signedIn(Value, token: String, remember: Bool)
        /// Esc, or a quit signal (then its number).
        case quit(signal: Int32?)
    }

    private enum Event {
        case terminal(TerminalEvent)
        case checked(Result<Value, SignInRefusal>, token: String, remember: Bool, attempt: Int)
    }

    private var form: SignInForm
    private let terminal: NcursesTerminal
    private let check: @Sendable (String) async -> Result<Value, SignInRefusal>
    private var buffer = CellBuffer(width: 0, height: 0)
    private var attempt = 0

    public init(form: SignInForm, terminal: NcursesTerminal,
                check: @escaping @Sendable (String) async -> Result<Value, SignInRefusal>) {
        self.form = form
        self.terminal = terminal
        self.check = check
    }

    public func run() async -> Outcome {
        let (events, continuation) = AsyncStream<Event>.makeStream(bufferingPolicy: .unbounded)
        terminal.startEventSources { continuation.yield(.terminal($0)) }
        draw()
        var checking: Task<Void, Never>?
        defer { checking?.cancel() }
        for await event in events {
            switch event {
            case .terminal(.quitSignal(let signal)):
                return .quit(signal: signal)
            case .terminal(.resize):
                break
            case .terminal(.key(let key)):
                switch form.handle(key) {
                case .quit?:
                    return .quit(signal: nil)
                case .submit(let token, let remember)?:
                    attempt += 1
                    let (check, number) = (self.check, attempt)
                    checking = Task {
                        let result = await check(token)
                        continuation.yield(.checked(result, token: token, remember: remember, attempt: number))
                    }
                case nil:
                    break
                }
            case .checked(let result, let token, let remember, let number):
                guard number == attempt, form.phase == .checking else { break }
                switch result {
                case .success(let value):
                    return .signedIn(value, token: token, remember: remember)
                case .failure(let refusal):
                    form.phase = .refused(refusal.message)
                }
            }
            draw()
        }
        return .quit(signal: nil)
    }

    private func draw() {
        let size = terminal.size
        if buffer.width != size.width || buffer.height != size.height {
            buffer = CellBuffer(width: size.width, height: size.height)
        }
        buffer.fill(buffer.area)
        form.draw(into: &buffer, area: buffer.area)
        terminal.present(buffer)
    }
}

/// Why a token was not accepted, in one line that never quotes it.
public struct SignInRefusal: Error, Sendable, Equatable {
    public let message: String
    public init(_ message: String) { self.message = TextSanitizer.clean(message) }
}
