import Foundation
import PropertyBased
import Testing
@testable import FeedModel

/// Issue 49, item 3: a bank's ids kept in the row (`ActivityID`), every id read back byte for byte.
@Suite struct ActivityIDTests {
    static func isPacked(_ id: ActivityID) -> Bool { if case .packed = id { true } else { false } }

    @Test func banksIdsAreKeptInTheRow() {
        let starling = "feed1ed0-e776-4966-9a92-b00fd2f43ae3"
        let upper = "FEED1ED0-E776-4966-9A92-B00FD2F43AE3"
        let monzo = "tx_00009hQ0MsjNfkaaC4R9gf"
        let pot = "pot_0000demo0000000000000001"
        for id in [starling, upper, monzo, pot] {
            #expect(Self.isPacked(ActivityID(id)), "\(id)")
            #expect(ActivityID(id).text == id)
        }
        // Not a bank's shape, or short enough to be kept in the string anyway: text.
        for id in ["feed1ed0-E776-4966-9a92-b00fd2f43ae3", "payment-123", "qAbCdEfGhIjK", "tx_with space in it 123", "tx_" + String(repeating: "a", count: 27),
                   "a_b", "_leading_underscore_and_more", "ünïcødé_ids_are_text_here"] {
            #expect(!Self.isPacked(ActivityID(id)), "\(id)")
            #expect(ActivityID(id).text == id)
        }
        #expect(!Self.isPacked(ActivityID("feed1ed0-E776-4966-9a92-b00fd2f43ae3")), "mixed case is kept as written")
        // Ids are compared byte for byte: KELVIN SIGN is not K, though Unicode text says they are.
        let kelvin = "tx_00009hQ0MsjNfkaaC4R9g\u{212A}", k = "tx_00009hQ0MsjNfkaaC4R9gK"
        #expect(kelvin == k && ActivityID(kelvin) != ActivityID(k))
        // The row pays for it in place: one word more than when it kept a `String` (120 B, the
        // three words of the packed form with `kind` and the category in the tag's tail).
        #expect(MemoryLayout<ActivityID>.size == 25)
        #expect(MemoryLayout<Activity>.stride <= 128, "\(MemoryLayout<Activity>.stride)")
    }

    /// Ids of every shape: UUIDs in either case or mixed, prefixed ids of any length and symbols,
    /// and any text; each reads back byte for byte, through the row too, with and without a goal,
    /// and two ids are kept the same way exactly when they are the same text.
    static let generatedID = PropertyBased.zip(Gen.int(in: 0...5), Gen.int(in: 0...0x2FF).array(of: 0...40)).map { shape, values -> String in
        let hex = Array("0123456789abcdef")
        switch shape {
        case 0, 1:
            var digits = (0..<32).map { hex[(values.indices.contains($0) ? values[$0] : $0) % 16] }
            if shape == 1 { digits = digits.map { Character($0.uppercased()) } }
            let text = String(digits)
            let parts = [text.prefix(8), text.dropFirst(8).prefix(4), text.dropFirst(12).prefix(4), text.dropFirst(16).prefix(4), text.dropFirst(20)]
            return parts.joined(separator: "-")
        case 2, 3:
            let alphabet = Array("0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz_-.é")
            let prefix = ["tx_", "pot_", "acc_", "x_", "abcdefgh_"][(values.first ?? 0) % 5]
            return prefix + String(values.dropFirst().prefix(30).map { alphabet[$0 % alphabet.count] })
        default:
            return String(String.UnicodeScalarView(values.compactMap { Unicode.Scalar(UInt32(32 + $0)) }))
        }
    }

    @Test func everyIdReadsBackByteForByte() async {
        await propertyCheck(count: 500, input: Self.generatedID, Self.generatedID) { first, second in
            #expect(Array(ActivityID(first).text.utf8) == Array(first.utf8))
            #expect((ActivityID(first) == ActivityID(second)) == (Array(first.utf8) == Array(second.utf8)))
            let clean = TextSanitizer.clean(first)
            let row = Activity(id: clean, message: MarkupText(parsing: "x"), amount: Money(minorUnits: 1, currency: .gbp), userId: 1,
                               timestamp: Date(timeIntervalSince1970: 0), kind: .other)
            // An empty id is no id: the row's own synthetic one.
            #expect(row.id == (clean.isEmpty ? Activity.syntheticID(message: row.message, amount: row.amount, userId: 1,
                                                                    timestamp: row.timestamp, kind: .other) : clean))
            if !clean.isEmpty {
                var moved = row
                moved.goalId = GoalID("goal-1")
                #expect(moved.id == clean && moved.goalId == GoalID("goal-1") && moved.idKey == row.idKey)
                moved.goalId = nil
                #expect(moved == row)
                // What the cache and the commands write: the same text.
                let data = try! JSONEncoder().encode(row)
                let object = try! JSONSerialization.jsonObject(with: data) as! [String: Any]
                #expect(object["id"] as? String == clean)
            }
        }
    }
}
