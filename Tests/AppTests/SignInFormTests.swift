import FeedModel
import Testing
import TermUI
@testable import QapitalApp

/// The sign-in form on its own: masked, the refusal under the field, "remember" opt-in.
@Suite struct SignInFormTests {
    static let secret = "sk-live-ABCdef123"

    func frame(_ form: SignInForm, width: Int = 80, height: Int = 24) -> [String] {
        var buffer = CellBuffer(width: width, height: height)
        form.draw(into: &buffer, area: buffer.area)
        return buffer.lines
    }

    func typed(_ text: String, into form: inout SignInForm) {
        for character in text { #expect(form.handle(.char(character)) == nil) }
    }

    @Test func theTokenIsMaskedAndSubmittedWithEnter() {
        var form = SignInForm(origin: "api.starlingbank.com", title: "Starling Bank")
        typed(Self.secret, into: &form)
        let lines = frame(form)
        let text = lines.joined(separator: "\n")
        #expect(text.contains("Sign in to api.starlingbank.com"))
        #expect(!text.contains(Self.secret))
        #expect(!text.contains("ABC") && !text.contains("123"))
        #expect(text.contains(String(repeating: "•", count: Self.secret.count)))
        #expect(form.handle(.enter) == .submit(token: Self.secret, remember: false))
        #expect(form.phase == .checking)
        #expect(frame(form).joined().contains("Checking…"))
        // While checking, typing does nothing.
        #expect(form.handle(.char("z")) == nil)
        #expect(form.token.text == Self.secret)
    }

    @Test func theRefusalShowsUnderTheFieldInOneLine() throws {
        var form = SignInForm(origin: "127.0.0.1:8080", refusal: "GET /api/v2/accounts: the token was refused (HTTP 401)", title: "Starling Bank")
        let lines = frame(form)
        let field = try #require(lines.firstIndex { $0.contains("Access token") })
        #expect(lines[field + 1].contains("✗ GET /api/v2/accounts: the token was refused (HTTP 401)"))
        typed("x", into: &form)
        #expect(form.phase == .editing)
    }

    @Test func rememberIsOptIn() {
        var form = SignInForm(origin: "h", title: "Starling Bank")
        typed("tok", into: &form)
        #expect(!form.remember)
        #expect(form.handle(.tab) == nil)
        #expect(form.handle(.char(" ")) == nil)
        #expect(form.remember)
        #expect(frame(form).joined().contains("[x] Remember it on this computer"))
        // Space on the checkbox is not typed into the token.
        #expect(form.token.text == "tok")
        #expect(form.handle(.enter) == .submit(token: "tok", remember: true))
    }

    @Test func anEmptyTokenIsNotSentAndEscQuits() {
        var form = SignInForm(origin: "h", title: "Starling Bank")
        #expect(form.handle(.enter) == nil)
        #expect(form.phase == .refused("Paste or type your access token first."))
        #expect(form.handle(.escape) == .quit)
    }

    /// The field says what the bank calls its secret, in the label and in the "first" line, and
    /// a longer label moves the field rather than running into it.
    @Test(arguments: [("API key", "API key"), ("Setup token", "setup token"), ("Personal access token", "personal access token")])
    func theFieldIsNamedAsTheBankNamesIt(label: String, inSentence: String) {
        var form = SignInForm(origin: "h", title: "Bank", tokenLabel: label)
        typed("abc", into: &form)
        let lines = frame(form)
        // The label, at least two blanks, then the field's bullets.
        let field = lines.first { line in
            guard let named = line.range(of: label), let bullets = line.range(of: "•••") else { return false }
            let gap = line[named.upperBound..<bullets.lowerBound]
            return gap.count >= 2 && gap.allSatisfy { $0 == " " }
        }
        #expect(field != nil, "\(lines.joined(separator: "\n"))")
        #expect(!lines.joined().contains("Access token"))
        var empty = SignInForm(origin: "h", title: "Bank", tokenLabel: label)
        _ = empty.handle(.enter)
        #expect(empty.phase == .refused("Paste or type your \(inSentence) first."))
    }

    @Test func aNarrowTerminalStillMasks() {
        var form = SignInForm(origin: "h", title: "Starling Bank")
        typed(String(repeating: "s3cret", count: 20), into: &form)
        let text = frame(form, width: 30, height: 8).joined()
        #expect(!text.contains("s3cret"))
    }
}

/// Issue 50, item 5: a long refusal is read whole in the form, wrapped at words, at any width.
@Suite struct SignInFormWrapsTests {
    static let refusal = "POST /claim: HTTP 403: the setup token was already claimed and may be compromised: disable it on the SimpleFIN Bridge and make a new one"

    @Test(arguments: [(100, 30), (60, 20), (80, 24)])
    func aLongRefusalIsReadWhole(width: Int, height: Int) {
        let form = SignInForm(origin: "beta-bridge.simplefin.org", refusal: Self.refusal, title: "SimpleFIN Bridge")
        var buffer = CellBuffer(width: width, height: height)
        form.draw(into: &buffer, area: buffer.area)
        let words = (0..<height).map { y in (0..<width).map { String(buffer[$0, y].scalar) }.joined() }
            .joined(separator: " ").replacingOccurrences(of: "│", with: " ")
            .split(separator: " ", omittingEmptySubsequences: true).joined(separator: " ")
        #expect(words.contains("✗ " + Self.refusal), "\(words)")
    }
}
