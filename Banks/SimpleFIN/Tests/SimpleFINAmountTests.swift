import FeedModel
import Foundation
import PropertyBased
@testable import SimpleFINClient
import Testing

@Suite struct SimpleFINAmountTests {
    @Test func examples() {
        #expect(SimpleFINAmount.minorUnits("-0.10", minorDigits: 2) == -10)
        #expect(SimpleFINAmount.minorUnits("1234.5", minorDigits: 2) == 123_450)
        #expect(SimpleFINAmount.minorUnits("100", minorDigits: 2) == 10_000)
        #expect(SimpleFINAmount.minorUnits("+7.01", minorDigits: 2) == 701)
        #expect(SimpleFINAmount.minorUnits("1200", minorDigits: 0) == 1_200)
        #expect(SimpleFINAmount.minorUnits("1.234", minorDigits: 3) == 1_234)
        for bad in ["-1,234.56", "1e3", "", " 1", "1.", ".5", "--1", "1.234", "0x10", "١٢", "1.2.3", "NaN", "+", "-", "1 ", "½"] {
            #expect(SimpleFINAmount.minorUnits(bad, minorDigits: 2) == nil, "\(bad)")
        }
        #expect(SimpleFINAmount.minorUnits("12.5", minorDigits: 0) == nil)
        #expect(SimpleFINAmount.minorUnits("1000000000000000", minorDigits: 2) == Money.maxMagnitude)
        #expect(SimpleFINAmount.minorUnits("1000000000000000.01", minorDigits: 2) == nil)
        #expect(SimpleFINAmount.minorUnits("99999999999999999999999", minorDigits: 0) == nil)
    }

    /// Every valid decimal string (sign, leading zeros, up to the currency's digits) reads back
    /// as exactly the minor units it was written from.
    @Test func validStringsRoundTrip() async {
        await propertyCheck(count: 300, input: Gen.int64(in: -Money.maxMagnitude...Money.maxMagnitude), Gen.int(in: 0...3),
                            Gen.int(in: 0...2), Gen.int(in: 0...3)) { minor, digits, zeros, style in
            let plain = SimpleFINAmount.text(minor, minorDigits: digits)
            // The same number written differently: leading zeros, a `+`, fewer fractional digits.
            var written = plain
            let negative = written.hasPrefix("-")
            if negative { written.removeFirst() }
            written = String(repeating: "0", count: zeros) + written
            if digits > 0, style == 1 {
                while written.hasSuffix("0"), written.contains(".") { written.removeLast() }
                if written.hasSuffix(".") { written.removeLast() }
            }
            written = (negative ? "-" : style == 2 ? "+" : "") + written
            #expect(SimpleFINAmount.minorUnits(written, minorDigits: digits) == minor, "\(written)")
            #expect(SimpleFINAmount.minorUnits(plain, minorDigits: digits) == minor)
        }
    }

    /// Anything outside `^[+-]?\d+(\.\d+)?$` is refused, whatever it is made of.
    @Test func invalidStringsAreRefused() async {
        let alphabet = Gen.oneOf(Gen.always(Character("1")), Gen.always(Character(".")), Gen.always(Character("-")),
                                 Gen.always(Character("+")), Gen.always(Character(",")), Gen.always(Character("e")),
                                 Gen.always(Character(" ")), Gen.always(Character("0")))
        await propertyCheck(count: 400, input: alphabet.string(of: 0...12)) { text in
            let valid = text.wholeMatch(of: /[+-]?[0-9]+(\.[0-9]{1,2})?/) != nil
            let read = SimpleFINAmount.minorUnits(text, minorDigits: 2)
            #expect((read != nil) == valid, "\(text)")
        }
    }

    @Test func currencies() {
        #expect(SimpleFINCurrency("USD").iso == .usd)
        #expect(SimpleFINCurrency("jpy").iso?.minorDigits == 0)
        #expect(SimpleFINCurrency("KWD").iso?.minorDigits == 3)
        #expect(SimpleFINCurrency("https://www.example.com/flight-miles") == .custom(label: "custom currency (www.example.com)"))
        #expect(SimpleFINCurrency("XYZ").iso == nil)
    }
}
