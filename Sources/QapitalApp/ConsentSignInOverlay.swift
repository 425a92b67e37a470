import FeedModel
import Foundation
import TermUI

/// `L` in the app, for a source that signs in through a consent at the bank: the same sign-in
/// as before the app (`ConsentSignInPanel`), over it. Once signed in the source has taken up the
/// new session and everything shown loads again (`AppCore`); Esc cancels a sign-in under way,
/// then closes.
@MainActor
final class ConsentSignInOverlay: Overlay {
    enum Action: Sendable { case signIn, close }

    nonisolated static let keyMap: KeyMap<Action> = {
        var map = KeyMap<Action>()
        let section = "Sign-in at the bank (L; other keys type the address)"
        map.bind([.enter], to: .signIn, help: "start, or take the pasted address", section: section)
        map.bind([.escape], to: .close, help: "cancel the sign-in under way, then close", section: section)
        return map
    }()
    nonisolated static var help: [HelpEntry] { keyMap.helpEntries }

    let panel: ConsentSignInPanel<Void>

    init(_ capability: ConsentSignInCapability, events: EventQueue) {
        let run = capability.run
        panel = ConsentSignInPanel(words: capability.words, escape: "close", browse: capability.browse,
                                   wake: { Task { @MainActor in events.post(.store(.consentSignIn)) } },
                                   run: { channel in
                                       if let refusal = await run(channel) { return .failure(refusal) }
                                       return .success(())
                                   })
    }

    var signedIn: Bool { panel.phase == .signedIn }

    /// `L`: the sign-in over the app (one at a time), or for a source without one a note.
    static func offer(_ capability: ConsentSignInCapability?, over overlays: [any Overlay], events: EventQueue, key: String) -> Outcome {
        guard let capability else { return .notice("\(key): no sign-in at the bank in a browser here (Enable Banking and Monzo have one)") }
        if overlays.contains(where: { $0 is ConsentSignInOverlay }) { return .consumed }
        return .present(ConsentSignInOverlay(capability, events: events))
    }

    /// The panel's event, taken before the overlays hear it: whether it signed in (the core
    /// then loads everything again, and the overlay closes).
    static func signedIn(_ overlays: [any Overlay]) -> Bool {
        guard let overlay = overlays.last(where: { $0 is ConsentSignInOverlay }) as? ConsentSignInOverlay else { return false }
        overlay.panel.receive()
        return overlay.signedIn
    }

    func handle(_ key: Key, _ data: ScreenData) -> Outcome {
        if panel.handle(key) == .leave { return .close() }
        return .consumed
    }

    /// The panel took the event's news already (`AppCore`, which reloads on a sign-in first).
    func receive(_ event: StoreEvent, _ data: ScreenData) -> Outcome {
        guard event == .consentSignIn else { return .ignored }
        return signedIn ? .close(notice: panel.words.signedIn) : .consumed
    }

    func draw(into buffer: inout CellBuffer, area: Rect, statusBar: Rect, _ data: ScreenData) {
        panel.draw(into: &buffer, area: area)
    }
}
