import FeedModel
import Foundation
import HTTPTransport
import Testing
@testable import BunqClient

enum BunqFixture {
    static func url(_ name: String, _ ext: String) throws -> URL {
        guard let url = Bundle.module.url(forResource: name, withExtension: ext, subdirectory: "Fixtures") else {
            throw CocoaError(.fileNoSuchFile, userInfo: [NSFilePathErrorKey: name])
        }
        return url
    }

    static func text(_ name: String, _ ext: String) throws -> String { try String(contentsOf: try url(name, ext), encoding: .utf8) }
}

/// Signing and verification against a known vector: a fixed key (made with `openssl genpkey`)
/// and body give the signature `openssl dgst -sha256 -sign` gave (PKCS #1 v1.5 is deterministic).
@Suite struct BunqSigningTests {
    struct Vector: Decodable { let body: String; let signature: String }

    @Test func aFixedKeyAndBodyGiveOpenSSLsSignature() throws {
        let vector = try JSONDecoder().decode(Vector.self, from: Data(try BunqFixture.text("signing_vector", "json").utf8))
        let pair = try BunqKeyPair(privateKeyPEM: try BunqFixture.text("bunq_test_private_key", "pem"))
        #expect(try pair.sign(Data(vector.body.utf8)) == vector.signature)
        let publicKey = try BunqPublicKey(pem: try BunqFixture.text("bunq_test_public_key", "pem"))
        #expect(publicKey.verifies(vector.signature, body: Data(vector.body.utf8)))
        #expect(pair.publicKeyPEM.hasPrefix("-----BEGIN PUBLIC KEY-----"))
        #expect(try BunqPublicKey(pem: pair.publicKeyPEM).pem == publicKey.pem)
    }

    @Test func aTamperedBodyOrSignatureIsRefused() throws {
        let vector = try JSONDecoder().decode(Vector.self, from: Data(try BunqFixture.text("signing_vector", "json").utf8))
        let publicKey = try BunqPublicKey(pem: try BunqFixture.text("bunq_test_public_key", "pem"))
        #expect(!publicKey.verifies(vector.signature, body: Data((vector.body + " ").utf8)))
        #expect(!publicKey.verifies(vector.signature, body: Data(vector.body.replacingOccurrences(of: "vector", with: "vectoR").utf8)))
        var raw = try #require(Data(base64Encoded: vector.signature))
        raw[10] ^= 0x01
        #expect(!publicKey.verifies(raw.base64EncodedString(), body: Data(vector.body.utf8)))
        #expect(!publicKey.verifies(nil, body: Data(vector.body.utf8)))
        #expect(!publicKey.verifies("not base64 !!", body: Data(vector.body.utf8)))
        #expect(!publicKey.verifies("", body: Data(vector.body.utf8)))
        // Another key's signature of the same body.
        let other = try BunqKeyPair.generate()
        #expect(!publicKey.verifies(try other.sign(Data(vector.body.utf8)), body: Data(vector.body.utf8)))
        #expect(other.publicKey.verifies(try other.sign(Data(vector.body.utf8)), body: Data(vector.body.utf8)))
    }

    @Test func thePrivateKeyIsNeverInADescription() throws {
        let pair = try BunqKeyPair(privateKeyPEM: try BunqFixture.text("bunq_test_private_key", "pem"))
        #expect(!"\(pair)".contains("PRIVATE"))
        #expect(throws: BunqCryptoError.self) { try BunqKeyPair(privateKeyPEM: "-----BEGIN PRIVATE KEY-----\nAAAA\n-----END PRIVATE KEY-----") }
        #expect(throws: BunqCryptoError.self) { try BunqPublicKey(pem: "nonsense") }
    }
}

@Suite struct BunqPayloadTests {
    @Test(arguments: [("12.50", 1250), ("-0.01", -1), ("0", 0), ("7", 700), ("-100.1", -10010), ("+3.05", 305)])
    func amountsAreReadExactly(text: String, minor: Int64) {
        #expect(Bunq.Amount.parse(text, currency: .eur)?.minorUnits == minor)
    }

    @Test(arguments: ["", "1.234", "1,50", "abc", "1.", ".5", "--1", "1e3", "99999999999999999999", " ", "0x10", "１２"])
    func malformedAmountsAreRefused(text: String) {
        #expect(Bunq.Amount.parse(text, currency: .eur) == nil)
    }

    @Test func amountsRoundTripThroughText() {
        for minor: Int64 in [0, 1, -1, 99, 100, 101, -12_345, 1_000_000_007] {
            let money = Money(minorUnits: minor, currency: .eur)
            #expect(Bunq.Amount.parse(Bunq.Amount.text(money), currency: .eur) == money)
        }
    }

    @Test func timesAreBunqsUTCForm() throws {
        let date = try #require(Bunq.parseTime("2026-11-23 14:05:09.123456"))
        #expect(abs(date.timeIntervalSince1970 - 1_795_442_709.123456) < 0.000_01)
        #expect(Bunq.parseTime("2026-11-23 14:05:09") != nil)
        #expect(Bunq.parseTime("2026-13-23 14:05:09") == nil)
        #expect(Bunq.parseTime("yesterday") == nil)
        #expect(Bunq.parseTime(Bunq.timeText(date)).map { abs($0.timeIntervalSince(date)) < 0.000_01 } == true)
    }

    /// Unknown types and keys are ignored; a known type that cannot be read is named, not fatal.
    @Test func anEnvelopeIsReadLeniently() throws {
        let json = """
        {"Response": [
          {"MonetaryAccountBank": {"id": 1, "currency": "EUR", "description": "Main", "balance": {"value": "10.00", "currency": "EUR"},
            "alias": [{"type": "EMAIL", "value": "a@b"}, {"type": "IBAN", "value": "NL00BUNQ0000000001", "name": "A"}], "status": "ACTIVE",
            "new_field": [1, 2]}},
          {"MonetaryAccountSavings": {"id": 2, "currency": "EUR", "description": "Trip", "balance": {"value": "1.00", "currency": "EUR"},
            "savings_goal": null, "savings_goal_progress": 0.5, "status": "ACTIVE"}},
          {"MonetaryAccountSavings": {"id": "three"}},
          {"SomethingNew": {"x": 1}}
        ], "Pagination": {"older_url": "/v1/user/1/monetary-account/1/payment?count=200&older_id=77", "newer_url": null}}
        """
        let envelope = try JSONDecoder().decode(Bunq.Envelope.self, from: Data(json.utf8))
        #expect(envelope.accounts.count == 2)
        #expect(envelope.accounts[0].iban == "NL00BUNQ0000000001" && envelope.accounts[0].isBank)
        #expect(envelope.accounts[1].isSavings && envelope.accounts[1].savingsGoal == nil)
        #expect(envelope.unreadable.count == 1 && envelope.unreadable[0].0 == "MonetaryAccountSavings")
        #expect(envelope.pagination?.olderId == 77)
    }
}

/// The round-up rule over every documented and recorded `type` and `sub_type`.
@Suite struct BunqRoundUpTests {
    static let types = ["MASTERCARD", "FIS", "MAESTRO", "BUNQ", "EBA_SCT", "EBA_SDD", "IDEAL", "SWIFT", "SAVINGS", "CHECKOUT_MERCHANT", "", "UNKNOWN"]
    static let subTypes = ["PAYMENT", "WITHDRAWAL", "REVERSAL", "REQUEST", "BILLING", "SCT", "SDD", "NLO", ""]

    @Test func everyTypeAndSubTypeRoundsUpOnlyAsTheRuleSays() {
        for type in Self.types {
            for subType in Self.subTypes {
                for minor: Int64 in [-1234, -1200, -1, 0, 1, 1234] {
                    let expected = ["MASTERCARD", "FIS", "MAESTRO"].contains(type) && subType == "PAYMENT" && minor < 0
                    #expect(BunqRoundUp.roundsUp(type: type, subType: subType, minorUnits: minor) == expected,
                            "\(type)/\(subType)/\(minor)")
                    // Case does not matter.
                    #expect(BunqRoundUp.roundsUp(type: type.lowercased(), subType: subType.lowercased(), minorUnits: minor) == expected)
                }
            }
        }
    }

    @Test func aCardPaymentRoundsUpByTheAppsStep() throws {
        let payment = Bunq.Payment(id: 1, created: "2026-11-23 10:00:00.000000", monetaryAccountId: 1,
                                   amount: Bunq.Amount(value: "-12.34", currency: "EUR"), alias: nil, counterpartyAlias: nil,
                                   description: "Coffee", type: "MASTERCARD", subType: "PAYMENT")
        let transaction = try BunqMapping.transaction(payment)
        #expect(transaction.roundsUp && transaction.amount.minorUnits == -1234)
        let summary = RoundUp.Summary(transactions: [transaction], accountCurrency: .eur)
        #expect(summary.saveable.minorUnits == 66)
        var refund = payment
        refund.subType = "REVERSAL"
        refund.amount = Bunq.Amount(value: "12.34", currency: "EUR")
        #expect(try !BunqMapping.transaction(refund).roundsUp)
        #expect(BunqMapping.label(type: "MASTERCARD", subType: "REVERSAL") == "refund")
        #expect(BunqMapping.label(type: "SAVINGS", subType: "PAYMENT") == "bunq auto-save")
        #expect(BunqMapping.label(type: "EBA_SDD", subType: "SDD") == "direct debit")
    }
}

/// The pacer keeps a scripted session under bunq's classic limits (an injected clock, no sleeps).
@Suite struct BunqPacerTests {
    /// Sends every request at the time the pacer says, and checks no window holds more than the limit.
    static func check(_ script: [(Double, String, String)]) -> [(Double, String, String)] {
        let pacer = BunqPacer()
        var sent: [(Double, String, String)] = []
        for (at, method, path) in script {
            let wait = pacer.reserve(method: method, path: path, now: at)
            #expect(wait >= 0)
            sent.append((at + wait, method, path))
        }
        return sent
    }

    static func underLimits(_ sent: [(Double, String, String)]) -> Bool {
        for (index, (at, method, path)) in sent.enumerated() {
            let limit = BunqPacer.limit(method: method, path: path)
            let key = BunqPacer.endpoint(path)
            let inWindow = sent[...index].filter { $0.1 == method && BunqPacer.endpoint($0.2) == key && $0.0 > at - limit.seconds + 0.000_001 }
            if inWindow.count > limit.count { return false }
        }
        return true
    }

    @Test func aBurstIsSpreadToTheLimits() {
        var script: [(Double, String, String)] = [(0, "POST", "/session-server"), (0.1, "POST", "/session-server")]
        for index in 0..<20 { script.append((Double(index) * 0.1, "GET", "/user/4242/monetary-account/\(100 + index % 2)/payment")) }
        for index in 0..<12 { script.append((Double(index) * 0.05, "POST", "/user/4242/monetary-account/101/payment")) }
        let sent = Self.check(script)
        #expect(Self.underLimits(sent))
        // The second session waits out the 30 s window; GETs to both accounts share one endpoint.
        #expect(sent[1].0 >= 30)
        let gets = sent.filter { $0.1 == "GET" }.map(\.0).sorted()
        #expect(gets[3] >= 3 && gets.last! >= 18)
        // An unpaced script of the same requests would have broken the limits.
        #expect(!Self.underLimits(script))
    }

    @Test func anOrdinarySessionIsNotSlowed() {
        // Three GETs and a POST spaced over the window never wait.
        let pacer = BunqPacer()
        #expect(pacer.reserve(method: "GET", path: "/user/1/monetary-account", now: 0) == 0)
        #expect(pacer.reserve(method: "GET", path: "/user/1/monetary-account/2/payment", now: 0.5) == 0)
        #expect(pacer.reserve(method: "POST", path: "/user/1/monetary-account/2/payment", now: 0.6) == 0)
        #expect(pacer.reserve(method: "GET", path: "/user/1/monetary-account", now: 3.1) == 0)
        #expect(BunqPacer(enabled: false).reserve(method: "POST", path: "/session-server", now: 0) == 0)
    }

    /// A send that exact pacing would book on the window's edge (where bunq, counting arrivals,
    /// still sees the window's first send) is booked the margin past it.
    @Test func aSendOnTheWindowsEdgeIsBookedTheMarginPastIt() {
        let pacer = BunqPacer()
        let path = "/user/1/monetary-account/2/payment"
        for _ in 0..<3 { #expect(pacer.reserve(method: "GET", path: path, now: 0) == 0) }
        // At 3.0 exactly the first GET leaves a 3 s window: the fourth goes at 3.3, not at 3.0.
        let wait = pacer.reserve(method: "GET", path: path, now: 3)
        #expect(abs(wait - 0.3) < 0.000_1, "waited \(wait)")
        // Asked earlier, it is booked at the same edge plus the margin.
        let other = "/user/1/monetary-account"
        for _ in 0..<3 { _ = pacer.reserve(method: "GET", path: other, now: 10) }
        #expect(abs(pacer.reserve(method: "GET", path: other, now: 10.5) - 2.8) < 0.000_1)
        // The session's 30 s window: the second opening at 33 s.
        #expect(pacer.reserve(method: "POST", path: "/session-server", now: 0) == 0)
        #expect(abs(pacer.reserve(method: "POST", path: "/session-server", now: 30) - 3) < 0.000_1)
        // Sends that arrive up to 0.12 s later or earlier than booked still keep bunq's windows.
        var sent: [(Double, String, String)] = []
        let jitter = [0.12, -0.12, 0.05, -0.05, 0.1, 0]
        for index in 0..<30 {
            let at = Double(index) * 0.2
            let booked = at + pacer.reserve(method: "PUT", path: "/user/1/monetary-account-savings/7", now: at)
            sent.append((booked + jitter[index % jitter.count], "PUT", "/user/1/monetary-account-savings/7"))
        }
        #expect(Self.underLimits(sent.sorted { $0.0 < $1.0 }))
    }

    @Test func a429NamesItsWindowOrFallsBack() {
        #expect(BunqPacer.waitAfter429(text: "Too many requests. You can do a maximum of 3 calls per 3 seconds to this endpoint.", path: "/x") == 3)
        #expect(BunqPacer.waitAfter429(text: "You can do a maximum of 1 calls per 30 seconds", path: "/x") == 30)
        #expect(BunqPacer.waitAfter429(text: nil, path: "/session-server") == 30)
        #expect(BunqPacer.waitAfter429(text: "slow down", path: "/user/1") == 3)
        #expect(BunqPacer.waitAfter429(text: "maximum of 1 calls per 99999 seconds", path: "/user/1") == 60)
        // A Retry-After, if bunq ever sends one, wins over the text; a minute at most.
        #expect(BunqPacer.waitAfter429(text: "maximum of 3 calls per 3 seconds", path: "/user/1", retryAfter: "5") == 5)
        #expect(BunqPacer.waitAfter429(text: nil, path: "/user/1", retryAfter: "600") == 60)
        #expect(BunqPacer.waitAfter429(text: nil, path: "/session-server", retryAfter: "Wed, 21 Oct 2015 07:28:00 GMT") == 30)
    }
}

@Suite struct BunqSaveMarkTests {
    @Test func theMarkIsTheKeysFirstTwelveHexDigits() {
        let key = UUID(uuidString: "6F1D2C8E-3A4B-4F0E-9B7D-5C2A1E8F4D30")!
        #expect(BunqAPI.marker(key) == "6f1d2c8e3a4b")
        #expect(BunqAPI.description(week: "2026-W47", key: key) == "qapital-tui round-ups 2026-W47 6f1d2c8e3a4b")
        #expect(BunqAPI.description(week: "2026-W47", key: key).count < 140)
    }

    @Test func sandboxAndProductionKeysAreNeverCrossed() {
        #expect(BunqAPI.keyCrossing(apiKey: "sandbox_abc", baseURL: BunqAPI.productionURL) != nil)
        #expect(BunqAPI.keyCrossing(apiKey: "abc", baseURL: BunqAPI.sandboxURL) != nil)
        #expect(BunqAPI.keyCrossing(apiKey: "sandbox_abc", baseURL: BunqAPI.sandboxURL) == nil)
        #expect(BunqAPI.keyCrossing(apiKey: "abc", baseURL: BunqAPI.productionURL) == nil)
        #expect(BunqAPI.keyCrossing(apiKey: "abc", baseURL: URL(string: "http://127.0.0.1:8080/v1")!) == nil)
    }

    @Test func colourTintsAreReadOnlyFromHexColours() {
        #expect(BunqMapping.tint(color: "#4CAF50") == .green)
        #expect(BunqMapping.tint(color: "#E91E63") == .pink)
        #expect(BunqMapping.tint(color: "#123456") == .blue)
        #expect(BunqMapping.tint(color: "red") == nil)
        #expect(BunqMapping.tint(color: "#808080") == nil)
        #expect(BunqMapping.tint(color: nil) == nil)
    }
}
