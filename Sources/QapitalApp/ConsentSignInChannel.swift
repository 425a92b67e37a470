import FeedModel
import Foundation

/// A source that signs in through a consent given at the bank in a browser (Enable Banking):
/// the app's sign-in screen runs the source's own steps, the same `login NAME` runs, with the
/// screen standing in for the terminal (`ConsentSignInChannel`).
public struct ConsentSignInCapability: Sendable {
    /// The screen's title ("Enable Banking").
    public var title: String
    /// What the screen says: a consent's words unless the source says otherwise (an OAuth client's).
    public var words: ConsentSignInWords
    /// Whether this sign-in stands instead of the token form (a consent: no token to paste);
    /// false: a refused token still puts the form up, and `L` is the other way in (Monzo's OAuth).
    public var replacesTokenForm = true
    /// The source's steps: nil once signed in (the session recorded and taken up), else why not.
    public var run: @Sendable (ConsentSignInChannel) async -> SignInRefusal?
    /// Opens the bank's address in a browser (nothing with `--no-browser`).
    public var browse: @Sendable (URL) -> Void

    public init(title: String, browse: @escaping @Sendable (URL) -> Void,
                run: @escaping @Sendable (ConsentSignInChannel) async -> SignInRefusal?) {
        self.title = title
        words = .consent(title)
        self.browse = browse
        self.run = run
    }
}

/// The sign-in screen's words, for the way the source signs in.
public struct ConsentSignInWords: Sendable, Equatable {
    /// The heading ("Sign in at the bank through Enable Banking").
    public var heading: String
    /// Before Enter: what happens.
    public var explanation: String
    /// While the bank's address is asked for.
    public var asking: String
    /// The notice once signed in over the app.
    public var signedIn: String

    public init(heading: String, explanation: String, asking: String, signedIn: String) {
        self.heading = heading
        self.explanation = explanation
        self.asking = asking
        self.signedIn = signedIn
    }

    /// An aggregator's consent given at the bank (Enable Banking).
    public static func consent(_ title: String) -> ConsentSignInWords {
        let title = TextSanitizer.clean(title)
        return ConsentSignInWords(
            heading: "Sign in at the bank through \(title)",
            explanation: "Enter asks \(title) for the bank's sign-in page and opens it in a browser. Give your consent there; "
                + "the browser comes back to this computer and the app opens on your accounts.",
            asking: "Asking \(title) for the bank's sign-in page…",
            signedIn: "Signed in at the bank: the new consent is in use.")
    }

    /// The customer's own OAuth client (Monzo's): `section` is the config file's table.
    public static func oauth(_ title: String, section: String) -> ConsentSignInWords {
        let title = TextSanitizer.clean(title)
        return ConsentSignInWords(
            heading: "Sign in at \(title) with your own OAuth client",
            explanation: "Enter opens \(title)'s sign-in page in a browser for the client in the config file's [\(section)] table. "
                + "Sign in there; the browser comes back to this computer, then approve the sign-in in the \(title) app.",
            asking: "Making \(title)'s sign-in address…",
            signedIn: "Signed in at \(title): the new token is in use (approve it in the \(title) app).")
    }
}

/// What a consent sign-in says and reads while it runs, for the screen: the lines it says (the
/// bank's address among them), its notes (a refused return), the address it opened, and the
/// addresses pasted into the screen's field. It wakes the screen through the event queue; the
/// screen reads it on the main actor. Nothing here is a secret (no key, JWT or session id).
public final class ConsentSignInChannel: Sendable {
    struct Said: Equatable, Sendable {
        var lines: [String] = []
        var notes: [String] = []
        var address: URL?
    }

    private let said = Locked(Said())
    private let pasted = PastedLines()
    private let wake: @Sendable () -> Void
    private let browse: @Sendable (URL) -> Void

    /// `browse`: opens an address in a browser (nothing with `--no-browser`); `wake`: the screen
    /// has something new to show.
    public init(browse: @escaping @Sendable (URL) -> Void, wake: @escaping @Sendable () -> Void) {
        self.browse = browse
        self.wake = wake
    }

    var snapshot: Said { said.withLock { $0 } }

    /// A line the user must act on (the request's `say`).
    public func say(_ line: String) {
        said.withLock { $0.lines.append(TextSanitizer.clean(line)) }
        wake()
    }

    /// A line on what happens (the request's `note`).
    public func note(_ line: String) {
        said.withLock { $0.notes.append(TextSanitizer.clean(line)) }
        wake()
    }

    /// The bank's sign-in address: kept to be shown whole, and opened in a browser.
    public func open(_ url: URL) {
        said.withLock { $0.address = url }
        wake()
        browse(url)
    }

    /// The next address pasted into the screen's field; nil once the task reading is cancelled.
    public func readLine() async -> String? {
        await pasted.next()
    }

    /// Enter in the screen's field.
    func paste(_ line: String) {
        let pasted = self.pasted
        Task { await pasted.give(line) }
    }
}

/// The screen's pasted addresses, one reader waiting at a time.
actor PastedLines {
    private var lines: [String] = []
    private var waiter: CheckedContinuation<String?, Never>?

    func give(_ line: String) {
        if let waiter {
            self.waiter = nil
            waiter.resume(returning: line)
        } else {
            lines.append(line)
        }
    }

    func next() async -> String? {
        if !lines.isEmpty { return lines.removeFirst() }
        if Task.isCancelled { return nil }
        return await withTaskCancellationHandler {
            await withCheckedContinuation { waiter = $0 }
        } onCancel: {
            Task { await self.stopWaiting() }
        }
    }

    private func stopWaiting() {
        waiter?.resume(returning: nil)
        waiter = nil
    }
}
