import FeedModel
import TermUI

/// Seed 002's sign-in: a masked field for an access token, an opt-in "remember", and the
/// server's refusal in one line under the field. The token is never drawn: only bullets.
public struct SignInForm {
    public enum Phase: Equatable, Sendable {
        case editing
        /// Enter was pressed; the token is being checked.
        case checking
        /// The server refused the token (or could not be asked): one line, never the token.
        case refused(String)
    }

    public enum Focus: Equatable, Sendable { case token, remember }

    /// What a key asks the caller to do.
    public enum Action: Equatable, Sendable {
        /// Check this token; keep it between runs if `remember`.
        case submit(token: String, remember: Bool)
        case quit
    }

    /// Where the token goes, shown so the user knows ("api.starlingbank.com").
    public let origin: String
    public private(set) var token = TextInput()
    public private(set) var remember = false
    public private(set) var focus = Focus.token
    public var phase = Phase.editing

    static let mask: Character = "•"
    static let fieldWidth = 40

    /// What Esc does, for the hint line ("quit" before the app, "close" over it).
    let escape: String

    /// The box's title (the bank's, "Starling Bank") and the request that checks the token.
    let title: String
    let tokenCheck: String
    /// The field's label: what the bank calls the secret ("Access token", "API key").
    let tokenLabel: String

    /// `token`: one waiting for the customer's approval in the bank's app, already in the field
    /// (drawn as bullets), so Enter checks it again once approved; nothing checks it by itself.
    public init(origin: String, refusal: String? = nil, escape: String = "quit", title: String,
                tokenCheck: String = "GET /api/v2/accounts", tokenLabel: String = SourceDescription.defaultTokenLabel, token: String? = nil) {
        self.token = TextInput(token ?? "")
        self.origin = TextSanitizer.clean(origin)
        self.title = title
        self.tokenCheck = tokenCheck
        self.tokenLabel = TextSanitizer.clean(tokenLabel)
        self.escape = escape
        phase = refusal.map { .refused(TextSanitizer.clean($0)) } ?? .editing
    }

    /// Feeds a key; returns what the caller should do, if anything.
    public mutating func handle(_ key: Key) -> Action? {
        if phase == .checking {
            return key == .escape ? .quit : nil
        }
        switch key {
        case .tab, .backTab, .down, .up:
            focus = focus == .token ? .remember : .token
            return nil
        case .escape:
            return .quit
        case .enter:
            let text = token.text.trimmingCharacters(in: .whitespacesAndNewlines)
            guard !text.isEmpty else {
                phase = .refused("Paste or type your \(SignInForm.inSentence(tokenLabel)) first.")
                return nil
            }
            phase = .checking
            return .submit(token: text, remember: remember)
        default:
            break
        }
        switch focus {
        case .remember:
            if key == .char(" ") || key == .char("x") { remember.toggle() }
        case .token:
            if token.handle(key) == .edited, case .refused = phase { phase = .editing }
        }
        return nil
    }

    public func draw(into buffer: inout CellBuffer, area: Rect) {
        let muted = Style(fg: .role(.muted))
        var status: [Span] = []
        switch phase {
        case .editing: status = [Span("Enter checks the token with \(tokenCheck).", muted)]
        case .checking: status = [Span("Checking…", Style(fg: .role(.warning)))]
        case .refused(let message): status = [Span("✗ " + message, Style(fg: .role(.error), attributes: .bold))]
        }
        let width = min(area.width, 72)
        // The status (a refusal can be long: SimpleFIN's 403 on a claim) wraps at words, read whole.
        let statusLines = SpanWrap.wrap(status, width: max(1, width - 4))
        let box = area.centered(width: width, height: min(area.height, 10 + max(1, statusLines.count)))
        let body = box.inset(dx: 2, dy: 1)
        let lines: [[Span]] = [
            [Span("Sign in to " + origin, .bold)],
            [],
            [Span(tokenLabel + "  ", muted)],
        ] + (statusLines.isEmpty ? [[]] : statusLines) + [
            [],
            [Span(remember ? "[x]" : "[ ]", focus == .remember ? Style(attributes: .reverse) : .plain),
             Span(" Remember it on this computer (a file only you can read)")],
            [],
            [Span("Enter: sign in   Tab: remember   Esc: \(escape)", muted)],
        ]
        buffer.fill(box)
        Box.draw(into: &buffer, rect: box, style: Style(fg: .role(.border)), title: title)
        for (row, line) in lines.prefix(body.height).enumerated() {
            buffer.write(line, x: body.x, y: body.y + row, maxWidth: body.width)
        }
        if body.height > 2 {
            let field = Style(attributes: .underline)
            let label = max(14, TextWidth.of(tokenLabel) + 2)
            token.draw(into: &buffer, x: body.x + label, y: body.y + 2, width: min(SignInForm.fieldWidth, body.width - label),
                       style: field, cursorStyle: focus == .token ? Style(attributes: .reverse) : field, mask: SignInForm.mask,
                       focused: focus == .token)
        }
    }

    /// A label inside a sentence: "Access token" → "access token", "API key" stays.
    static func inSentence(_ label: String) -> String {
        let letters = Array(label)
        guard letters.count > 1, letters[0].isUppercase, !letters[1].isUppercase else { return label }
        return letters[0].lowercased() + String(letters.dropFirst())
    }
}
