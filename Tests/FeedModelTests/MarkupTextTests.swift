import Testing
@testable import FeedModel

@Suite struct MarkupTextTests {
    typealias Run = MarkupText.Run

    @Test(arguments: [
        ("<strong>You</strong> made a roundup.", [Run("You", bold: true), Run(" made a roundup.")]),
        ("plain", [Run("plain")]),
        ("", []),
        ("Tom &amp; Jerry &lt;3 &gt; &quot;q&quot; it&#39;s", [Run("Tom & Jerry <3 > \"q\" it's")]),
        ("&#x263A; &#9731; &bogus; & alone", [Run("☺ ☃ &bogus; & alone")]),
        ("<em>kept</em> <a href=\"x\">link</a>", [Run("kept link")]),
        ("<strong>bold to the end", [Run("bold to the end", bold: true)]),
        ("stray</strong> close", [Run("stray close")]),
        ("<STRONG>Up</STRONG>per", [Run("Up", bold: true), Run("per")]),
        ("a < b > c", [Run("a < b > c")]),
        ("<strong>a<strong>b</strong>c</strong>d", [Run("abc", bold: true), Run("d")]),
        ("x<br/>y", [Run("xy")]),
        ("<strong>&#27;]0;title&#7;</strong>ok", [Run("ok")]),
        ("&#0; &#1114112;", [Run("\u{FFFD} \u{FFFD}")]),
    ])
    func parses(source: String, runs: [Run]) {
        #expect(MarkupText(parsing: source).runs == runs)
    }

    @Test func plainTextJoinsRuns() {
        #expect(MarkupText(parsing: "<strong>Johan</strong> made a roundup.").plainText == "Johan made a roundup.")
    }

    @Test func markupSourceRoundTrips() {
        let text = MarkupText(parsing: "<strong>A &amp; B</strong> paid <x>")
        #expect(MarkupText(parsing: text.markupSource) == text)
    }
}
