import FeedModel
import Foundation
import TermUI

/// The consent sign-in as the app shows it, before the app (`ConsentSignInScreen`) or over it
/// (`ConsentSignInOverlay`, key `L`): Enter runs the source's steps in a task (the UI keeps
/// drawing); their lines come back through the queue and are shown whole, the bank's address
/// left-aligned so it can be selected and copied; a field takes the address the browser was
/// sent to; Esc cancels a sign-in under way (its listener closes), or leaves.
@MainActor
final class ConsentSignInPanel<Value: Sendable> {
    enum Phase: Equatable {
        /// Enter starts (`refusal`: why the last attempt did not sign in).
        case ready(refusal: String?)
        /// The source's steps run: the address to open, then the wait for the browser.
        case running
        /// Signed in; the value is `signedIn`.
        case signedIn
    }

    /// What a key asks of the screen holding the panel.
    enum Action: Equatable { case leave }

    let words: ConsentSignInWords
    /// What Esc does when nothing runs ("quit" before the app, "close" over it).
    let escape: String
    private(set) var phase: Phase
    private(set) var field = TextInput()
    private(set) var said = ConsentSignInChannel.Said()
    private(set) var signedIn: Value?
    private let run: @Sendable (ConsentSignInChannel) async -> Result<Value, SignInRefusal>
    private let browse: @Sendable (URL) -> Void
    private let wake: @Sendable () -> Void
    private var channel: ConsentSignInChannel?
    private var task: Task<Void, Never>?
    private var attempt = 0
    private var answer: (attempt: Int, result: Result<Value, SignInRefusal>)?

    /// `wake`: posts the panel's event (`StoreEvent.consentSignIn`) into the loop's queue.
    init(words: ConsentSignInWords, escape: String, refusal: String? = nil, browse: @escaping @Sendable (URL) -> Void,
         wake: @escaping @Sendable () -> Void, run: @escaping @Sendable (ConsentSignInChannel) async -> Result<Value, SignInRefusal>) {
        self.words = words
        self.escape = escape
        phase = .ready(refusal: refusal.map(TextSanitizer.clean))
        self.browse = browse
        self.wake = wake
        self.run = run
    }

    /// Whether nothing is under way but the user's part (the browser, the paste).
    var isIdle: Bool { phase != .running || said.address != nil }

    func handle(_ key: Key) -> Action? {
        switch phase {
        case .ready, .signedIn:
            switch key {
            case .escape: return .leave
            case .enter: if case .ready = phase { start() }
            default: break
            }
        case .running:
            switch key {
            case .escape: cancel()
            case .enter:
                // An empty Enter is passed on too: a sign-in waiting for the user ("press Enter here") goes on.
                let text = field.text.trimmingCharacters(in: .whitespacesAndNewlines)
                guard let channel else { break }
                channel.paste(text)
                field = TextInput()
            default: _ = field.handle(key)
            }
        }
        return nil
    }

    /// The panel's event: the channel's lines taken; the answer, when it is this attempt's.
    func receive() {
        if let channel { said = channel.snapshot }
        guard let answer, answer.attempt == attempt, phase == .running else { return }
        self.answer = nil
        task = nil
        switch answer.result {
        case .success(let value):
            signedIn = value
            phase = .signedIn
        case .failure(let refusal):
            phase = .ready(refusal: refusal.message)
        }
    }

    /// Esc over the panel's owner: a sign-in under way stops (its listener closes).
    func stop() { task?.cancel() }

    private func start() {
        attempt += 1
        let number = attempt
        let wake = self.wake
        let channel = ConsentSignInChannel(browse: browse, wake: wake)
        self.channel = channel
        said = ConsentSignInChannel.Said()
        field = TextInput()
        phase = .running
        let (run, previous) = (self.run, task)
        task = Task { [weak self] in
            // A cancelled attempt closes its listener first: the redirect's port is free again.
            await previous?.value
            let result = await run(channel)
            self?.answer = (number, result)
            wake()
        }
    }

    private func cancel() {
        task?.cancel()
        attempt += 1
        phase = .ready(refusal: "Cancelled: nothing listens for the browser now. Enter starts again.")
    }

    func draw(into buffer: inout CellBuffer, area: Rect) {
        let muted = Style(fg: .role(.muted))
        let width = max(1, area.width - 2)
        // Each line, and whether it starts at the first column (the address, to be selected whole).
        var lines: [(spans: [Span], flush: Bool)] = [([Span(words.heading, .bold)], false), ([], false)]
        func text(_ words: String, _ style: Style = .plain) {
            lines += SpanWrap.wrap([Span(words, style)], width: width).map { ($0, false) }
        }
        var fieldRow: Int?
        switch phase {
        case .ready(let refusal):
            text(words.explanation, muted)
            if let refusal {
                lines.append(([], false))
                text("✗ " + refusal, Style(fg: .role(.error), attributes: .bold))
            }
        case .running, .signedIn:
            if said.lines.isEmpty { text(words.asking, Style(fg: .role(.warning))) }
            for line in said.lines {
                if let address = said.address, line == address.absoluteString {
                    // The address whole, from the first column, nothing beside it: it can be selected.
                    lines += SpanWrap.wrap([Span(line, Style(fg: .role(.accent)))], width: area.width).map { ($0, true) }
                } else {
                    text(line)
                }
            }
            if phase == .running, said.address != nil {
                lines.append(([], false))
                text("Waiting for the browser to come back. On another computer, paste here the whole address the browser was sent to:", muted)
                fieldRow = lines.count
                lines.append(([], false))
            }
            for note in said.notes.suffix(2) { text(note, Style(fg: .role(.warning))) }
            if phase == .signedIn { text("Signed in: opening your accounts…", Style(fg: .role(.moneyIn))) }
        }
        let footer: String = switch phase {
        case .ready: "Enter: sign in   Esc: \(escape)"
        case .running: "Enter: take the pasted address   Esc: cancel"
        case .signedIn: ""
        }
        buffer.fill(area)
        let room = max(0, area.height - 1)
        for (row, line) in lines.prefix(room).enumerated() {
            if line.flush {
                buffer.write(line.spans, x: area.x, y: area.y + row, maxWidth: area.width)
            } else {
                buffer.write(line.spans, x: area.x + 1, y: area.y + row, maxWidth: width)
            }
        }
        if let fieldRow, fieldRow < room {
            let label = "Address: "
            buffer.write(label, x: area.x + 1, y: area.y + fieldRow, style: muted)
            let x = area.x + 1 + TextWidth.of(label)
            field.draw(into: &buffer, x: x, y: area.y + fieldRow, width: max(1, area.x + area.width - 1 - x), style: Style(attributes: .underline),
                       cursorStyle: Style(attributes: .reverse))
        }
        if area.height > 0 { buffer.write(footer, x: area.x + 1, y: area.y + area.height - 1, maxWidth: width, style: muted) }
    }
}
