import FeedModel
import Foundation
import TermUI

/// The sign-in before the app for a source that signs in through a consent at the bank (no
/// session yet, or it ended): Enter runs the source's own steps (`ConsentSignInPanel`), and once
/// they signed in and the source opened on the new session, the app opens on the same queue.
@MainActor
public final class ConsentSignInScreen<Value: Sendable>: FirstScreen {
    public let events = EventQueue()
    private(set) var panel: ConsentSignInPanel<Value>!
    private let open: @MainActor (Value, EventQueue) -> AppCore
    private(set) var shouldQuit = false
    private(set) var quitSignal: Int32?

    /// `run`: the source's steps, then the source opened on the session they recorded.
    /// `browse`: opens the bank's address (nothing with `--no-browser`).
    public init(title: String, refusal: String?, browse: @escaping @Sendable (URL) -> Void,
                run: @escaping @Sendable (ConsentSignInChannel) async -> Result<Value, SignInRefusal>,
                open: @escaping @MainActor (Value, EventQueue) -> AppCore) {
        self.open = open
        let events = self.events
        panel = ConsentSignInPanel(words: .consent(title), escape: "quit", refusal: refusal, browse: browse,
                                   wake: { Task { @MainActor in events.post(.store(.consentSignIn)) } }, run: run)
    }

    var isIdle: Bool { panel.isIdle }

    func update(_ event: AppCore.Event) -> AppCore? {
        switch event {
        case .terminal(.quitSignal(let signal)):
            quitSignal = signal
            leave()
        case .terminal(.key(let key)):
            if panel.handle(key) == .leave { leave() }
        case .store(.consentSignIn):
            panel.receive()
            if let value = panel.signedIn { return open(value, events) }
        case .terminal(.resize), .store, .picture, .tick:
            break
        }
        return nil
    }

    private func leave() {
        shouldQuit = true
        panel.stop()
    }

    func draw(into buffer: inout CellBuffer) {
        panel.draw(into: &buffer, area: buffer.area)
    }
}
