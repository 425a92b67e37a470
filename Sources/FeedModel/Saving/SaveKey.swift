import Foundation

/// Who is saving: the source (its kind and server) and the account on it, as the server names
/// it, never a credential. The idempotency key of a week's round-ups is derived from this and
/// the week, so two runs, two machines, or one machine after signing in again, saving the same
/// week send the same key and the server moves the money once.
public struct SaveIdentity: Hashable, Sendable, Codable {
    /// "demo", "qapital https://api.example.com", "starling https://api.starlingbank.com".
    public let source: String
    /// The account on that source as the server names it (Starling's account uid, Monzo's
    /// account id); empty where the API names none (the Qapital API, the demo).
    public let account: String
    /// The API names no account (the Qapital API): the owner of the goal saved into (the goal's
    /// `userId`) stands for it in the key, so a save into any goal of that user is the same
    /// save, and two users of one server never share a key.
    public let byGoalOwner: Bool

    public init(source: String, account: String, byGoalOwner: Bool = false) {
        self.source = source
        self.account = account
        self.byGoalOwner = byGoalOwner
    }

    /// The identity a source saves under: `sourceName` ("qapital", "starling") and its base URL
    /// (lowercased, no trailing slash), and the account the server named, or nil where its API
    /// names none. Nothing here may come from a token: a new token is the same account.
    public static func forSaving(sourceName: String, baseURL: String, account: String?) -> SaveIdentity {
        var base = baseURL.lowercased()
        while base.hasSuffix("/") { base.removeLast() }
        return SaveIdentity(source: sourceName + " " + base, account: account ?? "", byGoalOwner: account == nil)
    }

    public static let demo = SaveIdentity(source: "demo", account: "")

    enum CodingKeys: String, CodingKey { case source, account, byGoalOwner }

    public init(from decoder: Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        self.init(source: try container.decode(String.self, forKey: .source), account: try container.decode(String.self, forKey: .account),
                  byGoalOwner: try container.decodeIfPresent(Bool.self, forKey: .byGoalOwner) ?? false)
    }

    /// A digest of a secret, safe to keep in a file name: never the secret. The save identity
    /// no longer uses one (issue 37); it names the record files of earlier versions, which are
    /// still read (`RoundUpRecordFile`).
    public static func digest(_ secret: String) -> String {
        SHA1.hex(Array("qapital-tui account\n\(secret)".utf8))
    }

    /// The key of `week`'s round-ups: the same on every machine, whatever the amount, and
    /// whatever the goal where the account is named (by the goal's owner where it is not).
    public func weekKey(_ week: Week, goal: Goal) -> UUID {
        byGoalOwner ? SaveIdentity(source: source, account: "user \(goal.ownerId)").weekKey(week) : weekKey(week)
    }

    /// The key of `week`'s round-ups for this source and account.
    public func weekKey(_ week: Week) -> UUID {
        UUID.version5(namespace: SaveIdentity.namespace, name: name(week))
    }

    private func name(_ week: Week) -> String {
        "round-ups\n\(source)\n\(account)\n\(week.isoLabel)"
    }

    /// The namespace of every key this app derives (a fixed random UUID).
    static let namespace = UUID(uuidString: "6f1d2c8e-3a4b-4f0e-9b7d-5c2a1e8f4d30")!
}

extension UUID {
    /// A name-based UUID (RFC 9562 version 5: SHA-1 of the namespace and the name).
    public static func version5(namespace: UUID, name: String) -> UUID {
        let space = namespace.uuid
        var bytes = [space.0, space.1, space.2, space.3, space.4, space.5, space.6, space.7,
                     space.8, space.9, space.10, space.11, space.12, space.13, space.14, space.15]
        bytes += Array(name.utf8)
        var hash = SHA1.digest(bytes)
        hash[6] = (hash[6] & 0x0f) | 0x50
        hash[8] = (hash[8] & 0x3f) | 0x80
        return UUID(uuid: (hash[0], hash[1], hash[2], hash[3], hash[4], hash[5], hash[6], hash[7],
                           hash[8], hash[9], hash[10], hash[11], hash[12], hash[13], hash[14], hash[15]))
    }
}

extension Week {
    /// The ISO 8601 week of its Monday: "2026-W47".
    public var isoLabel: String {
        var iso = Calendar(identifier: .iso8601)
        iso.timeZone = calendar.timeZone
        // Noon on Monday: clear of any DST edge.
        let monday = start.addingTimeInterval(12 * 3600)
        let parts = iso.dateComponents([.yearForWeekOfYear, .weekOfYear], from: monday)
        let week = parts.weekOfYear ?? 0
        return "\(parts.yearForWeekOfYear ?? 0)-W\(week < 10 ? "0" : "")\(week)"
    }

    /// The week an ISO label names ("2026-W47", also "2026-w7"), in `calendar`; nil for
    /// anything else, or a week the year does not have.
    public init?(isoLabel text: String, calendar: Calendar) {
        let parts = text.uppercased().split(separator: "-W", omittingEmptySubsequences: false)
        guard parts.count == 2, parts[0].count == 4, let year = Int(parts[0]), (1...9999).contains(year),
              (1...2).contains(parts[1].count), let number = Int(parts[1]), (1...53).contains(number),
              parts[1].allSatisfy(\.isASCII), parts[0].allSatisfy(\.isASCII) else { return nil }
        var iso = Calendar(identifier: .iso8601)
        iso.timeZone = calendar.timeZone
        var components = DateComponents()
        components.yearForWeekOfYear = year
        components.weekOfYear = number
        components.weekday = 2
        components.hour = 12
        guard let monday = iso.date(from: components) else { return nil }
        self.init(containing: monday, calendar: calendar)
        // Week 53 of a year that has 52 is the next year's week 1: refused.
        guard isoLabel == "\(parts[0])-W\(number < 10 ? "0" : "")\(number)" else { return nil }
    }
}

/// SHA-1 (FIPS 180-4), for name-based UUIDs and file names only: never for security.
public enum SHA1 {
    public static func digest(_ message: [UInt8]) -> [UInt8] {
        var h: [UInt32] = [0x6745_2301, 0xEFCD_AB89, 0x98BA_DCFE, 0x1032_5476, 0xC3D2_E1F0]
        var bytes = message
        let bitLength = UInt64(message.count) &* 8
        bytes.append(0x80)
        while bytes.count % 64 != 56 { bytes.append(0) }
        for shift in stride(from: 56, through: 0, by: -8) { bytes.append(UInt8(truncatingIfNeeded: bitLength >> UInt64(shift))) }
        var w = [UInt32](repeating: 0, count: 80)
        for chunk in stride(from: 0, to: bytes.count, by: 64) {
            for i in 0..<16 {
                let j = chunk + i * 4
                w[i] = UInt32(bytes[j]) << 24 | UInt32(bytes[j + 1]) << 16 | UInt32(bytes[j + 2]) << 8 | UInt32(bytes[j + 3])
            }
            for i in 16..<80 {
                let x = w[i - 3] ^ w[i - 8] ^ w[i - 14] ^ w[i - 16]
                w[i] = x << 1 | x >> 31
            }
            var (a, b, c, d, e) = (h[0], h[1], h[2], h[3], h[4])
            for i in 0..<80 {
                let (f, k): (UInt32, UInt32)
                switch i {
                case 0..<20: (f, k) = ((b & c) | (~b & d), 0x5A82_7999)
                case 20..<40: (f, k) = (b ^ c ^ d, 0x6ED9_EBA1)
                case 40..<60: (f, k) = ((b & c) | (b & d) | (c & d), 0x8F1B_BCDC)
                default: (f, k) = (b ^ c ^ d, 0xCA62_C1D6)
                }
                let temp = (a << 5 | a >> 27) &+ f &+ e &+ k &+ w[i]
                (e, d, c, b, a) = (d, c, b << 30 | b >> 2, a, temp)
            }
            h[0] &+= a; h[1] &+= b; h[2] &+= c; h[3] &+= d; h[4] &+= e
        }
        return h.flatMap { word in [24, 16, 8, 0].map { UInt8(truncatingIfNeeded: word >> UInt32($0)) } }
    }

    public static func hex(_ message: [UInt8]) -> String {
        digest(message).map { ($0 < 16 ? "0" : "") + String($0, radix: 16) }.joined()
    }
}

extension SaveIdentity {
    /// The key of a rule's transfer for `period`: a name-based UUID of (source, account, rule,
    /// the rule's name, the period). The round-up rule keeps the round-ups key (`weekKey`), so
    /// the Round-ups tab, `roundups --save` and `rules --save` can never move one week twice.
    public func ruleKey(_ rule: Rule, period: RulePeriod, goal: Goal) -> UUID {
        if case .roundUp = rule.kind, case .week(let week) = period { return weekKey(week, goal: goal) }
        let account = byGoalOwner ? "user \(goal.ownerId)" : account
        return UUID.version5(namespace: SaveIdentity.namespace, name: "rule\n\(source)\n\(account)\n\(rule.name)\n\(period.label)")
    }
}
