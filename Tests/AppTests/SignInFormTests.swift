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
        #expect(form.phase == .refused("Paste or type your personal access token first."))
        #expect(form.handle(.escape) == .quit)
    }

    @Test func aNarrowTerminalStillMasks() {
        var form = SignInForm(origin: "h", title: "Starling Bank")
        typed(String(repeating: "s3cret", count: 20), into: &form)
        let text = frame(form, width: 30, height: 8).joined()
        #expect(!text.contains("s3cret"))
    }
}
