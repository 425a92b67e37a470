@testable import EnableBankingClient
import FeedModel
import Foundation
import PropertyBased
import Testing

@Suite struct EnableBankingAmountTests {
    @Test func examples() {
        #expect(EnableBankingAmount.magnitude("1234.5", minorDigits: 2) == 123_450)
        #expect(EnableBankingAmount.magnitude("0.10", minorDigits: 2) == 10)
        #expect(EnableBankingAmount.magnitude("1200", minorDigits: 0) == 1_200)
        #expect(EnableBankingAmount.magnitude("-3.50", minorDigits: 2) == 350)
        #expect(EnableBankingAmount.magnitude("1.234", minorDigits: 3) == 1_234)
        for bad in ["1,234.56", "1e3", "", " 1", "1.", ".5", "--1", "0x10", "١٢", "1.2.3", "NaN", "+", "1 "] {
            #expect(EnableBankingAmount.magnitude(bad, minorDigits: 2) == nil, "\(bad)")
        }
        // More decimals than the currency has is refused, never rounded.
        #expect(EnableBankingAmount.magnitude("12.5", minorDigits: 0) == nil)
        #expect(EnableBankingAmount.magnitude("1.001", minorDigits: 2) == nil)
        #expect(EnableBankingAmount.money(.init(currency: "JPY", amount: "1200.5"), indicator: "DBIT") == nil)
        #expect(EnableBankingAmount.money(.init(currency: "KWD", amount: "1.005"), indicator: "CRDT") == Money(minorUnits: 1_005, currency: .kwd))
        #expect(EnableBankingAmount.money(.init(currency: "XYZ", amount: "1"), indicator: "CRDT") == nil)
        #expect(EnableBankingAmount.money(.init(currency: "EUR", amount: "1"), indicator: "OTHR") == nil)
    }

    /// Any amount in any ISO exponent (0 to 3), written with leading zeros, a sign or fewer
    /// fractional digits, reads back as exactly its minor units, signed by the indicator alone.
    @Test func everyWrittenAmountReadsExactly() async {
        let currencies: [Currency] = [.jpy, .eur, .kwd, .gbp, .sek]
        await propertyCheck(count: 400, input: Gen.int64(in: 0...Money.maxMagnitude), Gen.int(in: 0...4), Gen.int(in: 0...2),
                            Gen.int(in: 0...3), Gen.bool) { minor, which, zeros, style, credit in
            let currency = currencies[which]
            var written = String(repeating: "0", count: zeros) + EnableBankingAmount.text(minor, minorDigits: currency.minorDigits)
            if currency.minorDigits > 0, style == 1 {
                while written.hasSuffix("0"), written.contains(".") { written.removeLast() }
                if written.hasSuffix(".") { written.removeLast() }
            }
            // The string's sign says nothing: the indicator does.
            if style == 2 { written = "-" + written }
            if style == 3 { written = "+" + written }
            let money = EnableBankingAmount.money(.init(currency: currency.code, amount: written), indicator: credit ? "CRDT" : "DBIT")
            #expect(money == Money(minorUnits: credit ? minor : -minor, currency: currency), "\(written) \(currency.code)")
            // One decimal more than the currency has is refused, never rounded.
            let plain = EnableBankingAmount.text(minor, minorDigits: currency.minorDigits)
            #expect(EnableBankingAmount.magnitude(plain + (currency.minorDigits > 0 ? "1" : ".1"), minorDigits: currency.minorDigits) == nil)
        }
    }

    /// Anything outside `^[+-]?\d+(\.\d{1,2})?$` is refused for EUR, whatever it is made of.
    @Test func invalidStringsAreRefused() async {
        let alphabet = Gen.oneOf(Gen.always(Character("1")), Gen.always(Character(".")), Gen.always(Character("-")),
                                 Gen.always(Character("+")), Gen.always(Character(",")), Gen.always(Character("e")),
                                 Gen.always(Character(" ")), Gen.always(Character("0")))
        await propertyCheck(count: 400, input: alphabet.string(of: 0...12)) { text in
            let valid = text.wholeMatch(of: /[+-]?[0-9]+(\.[0-9]{1,2})?/) != nil
            #expect((EnableBankingAmount.magnitude(text, minorDigits: 2) != nil) == valid, "\(text)")
        }
    }
}
